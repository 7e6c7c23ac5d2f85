package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
)

const benchEvents = 100_000

// swarmFrames returns a swarm-like stream of benchEvents events, one wire
// JSON frame each: the shared workload generator's output
// (../shared/bench/gen, cached in testdata/bench/, which git ignores) when
// that folder exists, else agenttest's demo swarm grown to the same size.
func swarmFrames(b *testing.B) ([]json.RawMessage, string) {
	root := moduleRoot(b)
	gen := filepath.Join(root, "..", "shared", "bench", "gen")
	if _, err := os.Stat(gen); err != nil {
		return demoSwarm(b), "agenttest.Swarm"
	}
	cache := filepath.Join(root, "testdata", "bench", "swarm-100000-seed1.jsonl")
	if _, err := os.Stat(cache); err != nil {
		if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
			b.Fatal(err)
		}
		tmp := cache + ".tmp" + filepath.Base(b.TempDir())
		cmd := exec.Command("go", "run", ".", "-profile", "swarm", "-events", "100000", "-seed", "1", "-format", "jsonl", "-q", "-o", tmp)
		cmd.Dir = gen
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("generating the workload: %v\n%s", err, out)
		}
		if err := os.Rename(tmp, cache); err != nil {
			b.Fatal(err)
		}
	}
	f, err := os.Open(cache)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var frames []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		frames = append(frames, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return frames, "bench/gen -profile swarm"
}

func demoSwarm(b *testing.B) []json.RawMessage {
	var frames []json.RawMessage
	for rounds := 50; len(frames) < benchEvents; rounds *= 2 {
		frames = frames[:0]
		for f := range agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1, Researchers: 8, Rounds: rounds}).Frames(nil) {
			frames = append(frames, f)
		}
	}
	return frames
}

// BenchmarkSwarm measures events/s of a swarm-like stream of 100k events
// received over SSE and WebSocket from agenttest on loopback (the server
// flushes every event), read from memory as SSE text and JSONL, and the floor:
// decoding the same frames with event.Decode alone, in the same run.
func BenchmarkSwarm(b *testing.B) {
	frames, origin := swarmFrames(b)
	b.Logf("workload: %d events from %s", len(frames), origin)
	size := 0
	var jsonl, sse []byte
	for _, f := range frames {
		size += len(f)
		jsonl = append(append(jsonl, f...), '\n')
		sse = transport.AppendSSEData(sse, f)
	}
	srv := agenttest.NewServer(agenttest.Frames(frames...), nil)
	defer srv.Close()

	count := func(b *testing.B, seq func(func(event.Event, error) bool)) {
		n := 0
		for _, err := range seq {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != len(frames) {
			b.Fatalf("%d events, want %d", n, len(frames))
		}
	}
	report := func(b *testing.B) {
		b.ReportMetric(float64(len(frames))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(len(frames)*b.N), "ns/event")
	}
	b.Run("decode-only", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range frames {
				if _, err := event.Decode(f); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b)
	})
	b.Run("read-jsonl", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			count(b, transport.Read(context.Background(), bytes.NewReader(jsonl), transport.FormatJSONL, nil))
		}
		report(b)
	})
	b.Run("read-sse", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			count(b, transport.Read(context.Background(), bytes.NewReader(sse), transport.FormatSSE, nil))
		}
		report(b)
	})
	b.Run("sse-loopback", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		src := transport.NewSSE(srv.URL(), nil)
		for b.Loop() {
			count(b, src.Run(context.Background(), nil))
		}
		report(b)
	})
	b.Run("websocket-loopback", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		src := transport.NewWebSocket(srv.WSURL(), nil)
		for b.Loop() {
			count(b, src.Run(context.Background(), nil))
		}
		report(b)
	})
}
