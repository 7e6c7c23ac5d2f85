package transport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/transport"
)

const benchEvents = 100_000

// swarmFrames returns a swarm-like stream of benchEvents events, one wire
// JSON frame each: the shared workload generator's (see internal/benchwork,
// which caches it in testdata/bench/) when ../shared/bench/gen exists, else
// agenttest's demo swarm grown to the same size.
func swarmFrames(b *testing.B) ([]json.RawMessage, string) {
	if _, ok := benchwork.Generator(); !ok {
		return demoSwarm(b), "agenttest.Swarm"
	}
	stream, _ := benchwork.Stream(b, "swarm", benchEvents)
	return benchwork.Frames(b, stream), "bench/gen -profile swarm"
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
