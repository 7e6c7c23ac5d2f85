package reducer_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/view"
)

// BenchmarkThread folds the thread workload (many short messages from one
// subagent, every tenth with an answered tool call) of 10k and 160k
// messages, decoding and building through a Builder as agview verify does.
// It reports ns per event, and the final view's heap per message over the
// message's own bytes (its text, id and the JSON of its tool call and
// result), x-heap.
func BenchmarkThread(b *testing.B) {
	for _, n := range []int{10_000, 160_000} {
		b.Run(fmt.Sprintf("messages-%d", n), func(b *testing.B) {
			raw := benchwork.Lines(b, benchwork.Thread(b, n))
			metered(b, len(raw), func() { buildLines(b, raw) })
			var in int
			for _, l := range raw {
				in += len(l)
			}
			heap, v := retained(b, raw, func() *view.View { return buildLines(b, raw) })
			b.ReportMetric(float64(heap)/float64(messageBytes(v)), "x-heap")
			b.ReportMetric(float64(heap)/float64(in), "heap/input-byte")
		})
	}
}

// BenchmarkThreadScaling alternates, in each round, a pass over the thread
// workload of 10k messages and one over 160k, and reports the median over
// the rounds of the per-event cost at 160k over that at 10k (x-160k), and
// of the 160k thread's per-event cost over the 100k swarm's (x-swarm), and
// the median per-event cost of each (ns-10k, ns-160k, ns-swarm), which say
// whether a ratio moved because its numerator or its denominator did.
// Run with -benchtime 10x or more.
func BenchmarkThreadScaling(b *testing.B) {
	small := benchwork.Lines(b, benchwork.Thread(b, 10_000))
	large := benchwork.Lines(b, benchwork.Thread(b, 160_000))
	swarm := benchwork.Lines(b, mustStream(b, "swarm", 100_000))
	perEvent := func(raw [][]byte) float64 {
		runtime.GC()
		start := time.Now()
		buildLines(b, raw)
		return float64(time.Since(start)) / float64(len(raw))
	}
	var xs, xw, ns, nl, nw []float64
	for i := 0; b.Loop(); i++ {
		var s, l, w float64
		if i%2 == 0 {
			s, l, w = perEvent(small), perEvent(large), perEvent(swarm)
		} else {
			w, l, s = perEvent(swarm), perEvent(large), perEvent(small)
		}
		xs, xw = append(xs, l/s), append(xw, l/w)
		ns, nl, nw = append(ns, s), append(nl, l), append(nw, w)
	}
	b.ReportMetric(median(xs), "x-160k")
	b.ReportMetric(median(xw), "x-swarm")
	b.ReportMetric(median(ns), "ns-10k")
	b.ReportMetric(median(nl), "ns-160k")
	b.ReportMetric(median(nw), "ns-swarm")
	b.ReportMetric(0, "ns/op")
}

// retained returns the heap that the view build returns keeps alive. The
// input, live before, is kept alive until after the measure: were it
// collected in between, the view would look smaller by its size.
func retained(b *testing.B, input [][]byte, build func() *view.View) (uint64, *view.View) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	runtime.KeepAlive(input)
	if after.HeapAlloc < before.HeapAlloc {
		return 0, v
	}
	return after.HeapAlloc - before.HeapAlloc, v
}

// messageBytes is what the messages of v hold themselves: ids, roles,
// contents and tool calls as JSON.
func messageBytes(v *view.View) int {
	n := 0
	for m := range v.Messages() {
		n += len(m.ID) + len(m.Role) + len(m.Content)
		for _, tc := range m.ToolCalls {
			n += len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)
		}
		if m.ToolCallID != nil {
			n += len(*m.ToolCallID)
		}
		if m.Subagent != nil {
			n += len(*m.Subagent)
		}
	}
	return n
}
