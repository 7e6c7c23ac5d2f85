package event

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/agview/agview/internal/benchwork"
)

// workload is one shared stream the benchmark decodes (see
// internal/benchwork), named by its profile.
type workload struct {
	profile string
	events  int
	extra   []string
}

var workloads = []workload{
	{"chat", 20000, nil},
	{"swarm", 20000, nil},
	{"state", 10000, []string{"-state-kb", "100"}},
}

// envelope is what the floor decodes: the type alone, with stock encoding/json.
type envelope struct {
	Type string `json:"type"`
}

var sink any

// BenchmarkDecode decodes each shared workload (chat, swarm, state) with
// Decode, and with the "envelope floor" (stock encoding/json decoding only
// "type" and keeping the event as an owned json.RawMessage) in the same run.
// Each reports ns/event, MB/s and allocs/event; decode also reports x-floor,
// its time per event over the floor's.
func BenchmarkDecode(b *testing.B) {
	for _, w := range workloads {
		stream, _ := benchwork.Stream(b, w.profile, w.events, w.extra...)
		decodeAgainstFloor(b, w.profile, benchwork.Lines(b, stream))
	}
}

// decodeAgainstFloor runs the floor and decode benchmarks of BenchmarkDecode
// on lines, named name/floor and name/decode.
func decodeAgainstFloor(b *testing.B, name string, lines [][]byte) {
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	var floor float64
	b.Run(name+"/floor", func(b *testing.B) {
		floor = measure(b, lines, size, func(l []byte) error {
			var env envelope
			if err := json.Unmarshal(l, &env); err != nil {
				return err
			}
			sink = json.RawMessage(bytes.Clone(l))
			return nil
		})
	})
	b.Run(name+"/decode", func(b *testing.B) {
		ns := measure(b, lines, size, func(l []byte) error {
			e, err := Decode(l)
			sink = e
			return err
		})
		if floor > 0 {
			b.ReportMetric(ns/floor, "x-floor")
		}
	})
}

// measure decodes every line b.N times and reports per-event figures; it
// returns ns/event.
func measure(b *testing.B, lines [][]byte, size int, decode func([]byte) error) float64 {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for b.Loop() {
		for _, l := range lines {
			if err := decode(l); err != nil {
				b.Fatalf("%v: %s", err, l)
			}
		}
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	events := float64(b.N) * float64(len(lines))
	ns := float64(elapsed.Nanoseconds()) / events
	b.ReportMetric(ns, "ns/event")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/events, "allocs/event")
	return ns
}

// BenchmarkDecodeThread decodes the thread workload (many short messages,
// see benchwork.Thread) of 10k and 160k messages with Decode and with the
// envelope floor, reporting the figures BenchmarkDecode reports. Nearly
// every event of a thread is a lifecycle event (a message's start and end,
// a tool call's start, end and result), not a streamed delta.
func BenchmarkDecodeThread(b *testing.B) {
	for _, n := range []int{10_000, 160_000} {
		decodeAgainstFloor(b, "messages-"+strconv.Itoa(n), benchwork.Lines(b, benchwork.Thread(b, n)))
	}
}

// BenchmarkDecodeHistory decodes the RUN_STARTED events of the thread-runs
// workload of 8 runs (see benchwork.ThreadRuns), each carrying the thread's
// history as its input, and the same histories as MESSAGES_SNAPSHOT events,
// with Decode (the history fast path) and with the reference decoder in the
// same run. decode reports x-reference, its time per event over the
// reference's; both report MB/s, ns/event and allocs/event.
func BenchmarkDecodeHistory(b *testing.B) {
	var started, snapshots [][]byte
	for _, l := range benchwork.Lines(b, benchwork.ThreadRuns(b, 8, 500)) {
		if !bytes.HasPrefix(l, []byte(`{"type":"RUN_STARTED"`)) {
			continue
		}
		started = append(started, l)
		e, err := Decode(l)
		if err != nil {
			b.Fatal(err)
		}
		snap, err := Encode(&MessagesSnapshot{Messages: e.(*RunStarted).Input.Messages})
		if err != nil {
			b.Fatal(err)
		}
		snapshots = append(snapshots, snap)
	}
	for _, w := range []struct {
		name  string
		lines [][]byte
	}{{"run-started", started}, {"messages-snapshot", snapshots}} {
		size := 0
		for _, l := range w.lines {
			size += len(l) + 1
		}
		var ref float64
		b.Run(w.name+"/reference", func(b *testing.B) {
			ref = measure(b, w.lines, size, func(l []byte) error {
				e, err := decodeReference(l)
				sink = e
				return err
			})
		})
		b.Run(w.name+"/decode", func(b *testing.B) {
			ns := measure(b, w.lines, size, func(l []byte) error {
				e, err := Decode(l)
				sink = e
				return err
			})
			if ref > 0 {
				b.ReportMetric(ns/ref, "x-reference")
			}
		})
	}
}
