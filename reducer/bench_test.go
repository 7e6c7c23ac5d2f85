package reducer_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/benchmeter"
	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// Benchmarks over the shared workloads (see workload_test.go and
// internal/benchwork). Each reports ns/event and allocs/event. Set
// AGVIEW_BENCH_1M=1 to add the 1M-event streams (slow to generate and to
// run).

func benchSizes() []int {
	if testing.Short() {
		return []int{10000}
	}
	return []int{10000, 100000}
}

func bench1M(b *testing.B) bool {
	return !testing.Short() && envSet("AGVIEW_BENCH_1M")
}

func sizes(b *testing.B) []int {
	s := benchSizes()
	if bench1M(b) {
		s = append(s, 1000000)
	}
	return s
}

// The passes the benchmarks time: each folds (or decodes) a whole stream.

// reduceAll folds evs with Reduce, a view per event.
func reduceAll(tb testing.TB, evs []event.Event) *view.View {
	v := view.New()
	for _, e := range evs {
		var err error
		if v, err = reducer.Reduce(v, e); err != nil {
			tb.Fatal(err)
		}
	}
	return v
}

// buildAll folds evs through a Builder.
func buildAll(tb testing.TB, evs []event.Event) *view.View {
	bl := reducer.NewBuilder(view.New())
	for _, e := range evs {
		if err := bl.Fold(e); err != nil {
			tb.Fatal(err)
		}
	}
	return bl.View()
}

// decodeLines decodes every line and keeps nothing.
func decodeLines(tb testing.TB, raw [][]byte) {
	for _, l := range raw {
		if _, err := event.Decode(l); err != nil {
			tb.Fatal(err)
		}
	}
}

// foldLines folds the wire lines with FoldJSON, a view per event.
func foldLines(tb testing.TB, raw [][]byte) *view.View {
	v := view.New()
	for _, l := range raw {
		var err error
		if v, err = reducer.FoldJSON(v, l); err != nil {
			tb.Fatal(err)
		}
	}
	return v
}

// buildLines folds the wire lines through a Builder.
func buildLines(tb testing.TB, raw [][]byte) *view.View {
	bl := reducer.NewBuilder(view.New())
	for _, l := range raw {
		if err := bl.FoldJSON(l); err != nil {
			tb.Fatal(err)
		}
	}
	return bl.View()
}

// metered runs pass b.N times and reports per event of n.
func metered(b *testing.B, n int, pass func()) {
	m := benchmeter.Start()
	for range b.N {
		pass()
	}
	m.Report(b, n)
}

// BenchmarkReduce folds pre-decoded events: the reducer alone, with Reduce
// (a view per event) and through a Builder (build: one view at the end).
func BenchmarkReduce(b *testing.B) {
	for _, profile := range []string{"chat", "swarm"} {
		for _, n := range sizes(b) {
			b.Run(fmt.Sprintf("%s-%d", profile, n), func(b *testing.B) {
				evs := decodeAll(b, benchwork.Lines(b, mustStream(b, profile, n)))
				metered(b, len(evs), func() { reduceAll(b, evs) })
			})
			b.Run(fmt.Sprintf("%s-%d/build", profile, n), func(b *testing.B) {
				evs := decodeAll(b, benchwork.Lines(b, mustStream(b, profile, n)))
				metered(b, len(evs), func() { buildAll(b, evs) })
			})
		}
	}
}

// BenchmarkDecodeReduce decodes and folds each line, with FoldJSON (a view
// per event) and through a Builder, next to decoding alone in the same run.
// BenchmarkRatio gives the ratios steadily.
func BenchmarkDecodeReduce(b *testing.B) {
	for _, profile := range []string{"chat", "swarm"} {
		for _, n := range sizes(b) {
			raw := func(b *testing.B) [][]byte { return benchwork.Lines(b, mustStream(b, profile, n)) }
			b.Run(fmt.Sprintf("%s-%d/decode", profile, n), func(b *testing.B) {
				r := raw(b)
				metered(b, len(r), func() { decodeLines(b, r) })
			})
			b.Run(fmt.Sprintf("%s-%d/decode+build", profile, n), func(b *testing.B) {
				r := raw(b)
				metered(b, len(r), func() { buildLines(b, r) })
			})
			b.Run(fmt.Sprintf("%s-%d/decode+reduce", profile, n), func(b *testing.B) {
				r := raw(b)
				metered(b, len(r), func() { foldLines(b, r) })
			})
		}
	}
}

func mustStream(b *testing.B, profile string, n int) string {
	s, _ := benchwork.Stream(b, profile, n)
	return s
}

// BenchmarkStateDelta measures one STATE_DELTA (1–3 operations) against a
// state of 1 KB, 100 KB and 1 MB.
func BenchmarkStateDelta(b *testing.B) {
	for _, kb := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("%dKB", kb), func(b *testing.B) {
			stream, _ := benchwork.Stream(b, "state", 2000, "-state-kb", fmt.Sprint(kb))
			evs := decodeAll(b, benchwork.Lines(b, stream))
			// Fold up to and including the snapshot, then time the deltas.
			base := view.New()
			first := 0
			for i, e := range evs {
				var err error
				if base, err = reducer.Reduce(base, e); err != nil {
					b.Fatal(err)
				}
				if e.EventType() == event.TypeStateSnapshot {
					first = i + 1
					break
				}
			}
			var deltas []event.Event
			for _, e := range evs[first:] {
				if e.EventType() == event.TypeStateDelta {
					deltas = append(deltas, e)
				}
			}
			if len(deltas) == 0 {
				b.Skip("no deltas in the state workload")
			}
			m := benchmeter.Start()
			for range b.N {
				v := base
				for _, e := range deltas {
					var err error
					if v, err = reducer.Reduce(v, e); err != nil {
						b.Fatal(err)
					}
				}
			}
			m.Report(b, len(deltas))
			b.ReportMetric(float64(len(base.State())), "state-bytes")
		})
	}
}

// BenchmarkViewMemory reports the heap the final view of the swarm workload
// holds, per byte of input.
func BenchmarkViewMemory(b *testing.B) {
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("swarm-%d", n), func(b *testing.B) {
			raw := benchwork.Lines(b, mustStream(b, "swarm", n))
			input := 0
			for _, l := range raw {
				input += len(l) + 1
			}
			var held, joined float64
			for range b.N {
				runtime.GC()
				var m0 runtime.MemStats
				runtime.ReadMemStats(&m0)
				v := view.New()
				for _, l := range raw {
					var err error
					if v, err = reducer.FoldJSON(v, l); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				var m1 runtime.MemStats
				runtime.ReadMemStats(&m1)
				held = float64(int64(m1.HeapAlloc) - int64(m0.HeapAlloc))
				// Reading the messages joins each streamed text once and
				// lets its chunks go.
				_ = v.MessageList()
				runtime.GC()
				runtime.ReadMemStats(&m1)
				joined = float64(int64(m1.HeapAlloc) - int64(m0.HeapAlloc))
				runtime.KeepAlive(v)
			}
			b.ReportMetric(held/float64(input), "heap-B/input-B")
			b.ReportMetric(joined/float64(input), "joined-heap-B/input-B")
			b.ReportMetric(held, "heap-B")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkReduceDelta measures the hot path alone: one TEXT_MESSAGE_CONTENT
// into the open message of one of twelve interleaved subagents.
func BenchmarkReduceDelta(b *testing.B) {
	v := view.New()
	var err error
	if v, err = reducer.Reduce(v, &event.RunStarted{ThreadID: "t", RunID: "r"}); err != nil {
		b.Fatal(err)
	}
	var evs []event.Event
	for i := range 12 {
		id := fmt.Sprintf("s%d", i)
		for _, e := range []event.Event{
			&event.SubagentStarted{ID: id, Name: "worker"},
			&event.TextMessageStart{Attribution: event.By(id), MessageID: "m" + id},
		} {
			if v, err = reducer.Reduce(v, e); err != nil {
				b.Fatal(err)
			}
		}
		evs = append(evs, &event.TextMessageContent{Attribution: event.By(id), MessageID: "m" + id, Delta: "hello "})
	}
	b.ReportAllocs()
	w := v
	i := 0
	for b.Loop() {
		if i%10000 == 0 {
			w = v // keep the streamed texts short
		}
		if w, err = reducer.Reduce(w, evs[i%len(evs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkRatio alternates, in each round, a pass of decoding alone with a
// pass of decode+reduce through FoldJSON and one through a Builder over the
// same lines, and reports the median over the rounds of each pass's time
// over the decoding pass's: x-reduce and x-build. Alternating within one
// process keeps the ratios steady on a shared machine whose speed drifts
// (run with -benchtime 15x or more).
func BenchmarkRatio(b *testing.B) {
	for _, profile := range []string{"chat", "swarm"} {
		for _, n := range sizes(b) {
			b.Run(fmt.Sprintf("%s-%d", profile, n), func(b *testing.B) {
				raw := benchwork.Lines(b, mustStream(b, profile, n))
				decode := func() { decodeLines(b, raw) }
				reduce := func() { foldLines(b, raw) }
				build := func() { buildLines(b, raw) }
				timed := func(fn func()) float64 {
					runtime.GC()
					start := time.Now()
					fn()
					return float64(time.Since(start))
				}
				var xr, xb []float64
				for i := 0; b.Loop(); i++ {
					// Alternate the order so that neither pass always
					// runs after the same one.
					var d, r, u float64
					if i%2 == 0 {
						d, r, u = timed(decode), timed(reduce), timed(build)
					} else {
						u, r, d = timed(build), timed(reduce), timed(decode)
					}
					xr, xb = append(xr, r/d), append(xb, u/d)
				}
				b.ReportMetric(median(xr), "x-reduce")
				b.ReportMetric(median(xb), "x-build")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

func median(xs []float64) float64 { return benchmeter.Median(xs) }

// BenchmarkBuilderDelta is BenchmarkReduceDelta through a Builder that
// hands out a view every 64 events.
func BenchmarkBuilderDelta(b *testing.B) {
	bl := reducer.NewBuilder(view.New())
	if err := bl.Fold(&event.RunStarted{ThreadID: "t", RunID: "r"}); err != nil {
		b.Fatal(err)
	}
	var evs []event.Event
	for i := range 12 {
		id := fmt.Sprintf("s%d", i)
		for _, e := range []event.Event{
			&event.SubagentStarted{ID: id, Name: "worker"},
			&event.TextMessageStart{Attribution: event.By(id), MessageID: "m" + id},
		} {
			if err := bl.Fold(e); err != nil {
				b.Fatal(err)
			}
		}
		evs = append(evs, &event.TextMessageContent{Attribution: event.By(id), MessageID: "m" + id, Delta: "hello "})
	}
	start := bl.View()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%10000 == 0 {
			bl = reducer.NewBuilder(start) // keep the streamed texts short
		}
		if err := bl.Fold(evs[i%len(evs)]); err != nil {
			b.Fatal(err)
		}
		if i%64 == 63 {
			_ = bl.View()
		}
		i++
	}
}

// BenchmarkScaling measures how the cost per event grows with the length of
// the stream: in each round it folds the 10k, 100k (and, with
// AGVIEW_BENCH_1M=1, the 1M) swarm stream, repeating the shorter ones so
// that every size folds as many events, and reports the median over the
// rounds of each size's ns/event over the 10k stream's (x-100k, x-1M).
// Interleaving the sizes in one process keeps the ratios steady on a
// machine whose speed drifts. Modes: reduce (Reduce, events decoded
// beforehand), build (Builder.Fold, events decoded beforehand) and
// decode+build (Builder.FoldJSON on the wire lines).
func BenchmarkScaling(b *testing.B) {
	ns := sizes(b)
	if len(ns) < 2 {
		b.Skip("needs the 10k and 100k streams (not -short)")
	}
	raws := make([][][]byte, len(ns))
	evs := make([][]event.Event, len(ns))
	for i, n := range ns {
		raws[i] = benchwork.Lines(b, mustStream(b, "swarm", n))
		evs[i] = decodeAll(b, raws[i])
	}
	most := len(raws[len(raws)-1])
	modes := []struct {
		name string
		pass func(i int)
	}{
		{"reduce", func(i int) { reduceAll(b, evs[i]) }},
		{"build", func(i int) { buildAll(b, evs[i]) }},
		{"decode+build", func(i int) { buildLines(b, raws[i]) }},
	}
	for _, mode := range modes {
		b.Run(mode.name, func(b *testing.B) {
			per := make([][]float64, len(ns)) // ns/event per size, per round
			for b.Loop() {
				for i := range ns {
					reps := max(1, most/len(raws[i]))
					runtime.GC()
					start := time.Now()
					for range reps {
						mode.pass(i)
					}
					per[i] = append(per[i], float64(time.Since(start))/float64(reps*len(raws[i])))
				}
			}
			for i, n := range ns {
				b.ReportMetric(median(per[i]), fmt.Sprintf("ns/event-%dk", n/1000))
				if i > 0 {
					x := make([]float64, len(per[i]))
					for r := range x {
						x[r] = per[i][r] / per[0][r]
					}
					b.ReportMetric(median(x), fmt.Sprintf("x-%dk", n/1000))
				}
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}
