package reducer_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/benchmeter"
	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// protoMessages converts a workload's JSON lines to protobuf messages, once.
func protoMessages(b *testing.B, raw [][]byte) [][]byte {
	out := make([][]byte, len(raw))
	for i, l := range raw {
		e, err := event.Decode(l)
		if err != nil {
			b.Fatal(err)
		}
		if out[i], err = event.AppendProto(nil, e); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// decodeProtos decodes every protobuf message and keeps nothing.
func decodeProtos(tb testing.TB, msgs [][]byte) {
	for _, m := range msgs {
		if _, err := event.DecodeProto(m); err != nil {
			tb.Fatal(err)
		}
	}
}

// buildProtos folds the protobuf messages through a Builder's FoldProto.
func buildProtos(tb testing.TB, msgs [][]byte) *view.View {
	bl := reducer.NewBuilder(view.New())
	for _, m := range msgs {
		if err := bl.FoldProto(m); err != nil {
			tb.Fatal(err)
		}
	}
	return bl.View()
}

// reduceProtos folds the protobuf messages with FoldProto, a view per event.
func reduceProtos(tb testing.TB, msgs [][]byte) *view.View {
	v := view.New()
	for _, m := range msgs {
		var err error
		if v, err = reducer.FoldProto(v, m); err != nil {
			tb.Fatal(err)
		}
	}
	return v
}

// BenchmarkProto compares the protobuf encoding with JSON on the chat and
// swarm workloads, converted to protobuf once: decoding alone, decode+build
// (a Builder) and decode+reduce (a view per event), each as JSON lines
// (event.Decode, Builder.FoldJSON, reducer.FoldJSON) and as protobuf messages
// (event.DecodeProto, Builder.FoldProto, reducer.FoldProto). Each pass reports ns/event,
// cpu-ns/event and allocs/event. The ratio sub-benchmark alternates the six
// passes in rounds and reports the median over the rounds of each protobuf
// pass's CPU time over its JSON pass's: x-decode, x-build, x-reduce (the
// target is at most 1; run it with -benchtime 15x or more).
func BenchmarkProto(b *testing.B) {
	for _, profile := range []string{"chat", "swarm"} {
		n := benchSizes()[0]
		name := fmt.Sprintf("%s-%d", profile, n)
		var raw, msgs [][]byte
		load := func(b *testing.B) {
			if raw == nil {
				raw = benchwork.Lines(b, mustStream(b, profile, n))
				msgs = protoMessages(b, raw)
			}
		}
		passes := []struct {
			name string
			fn   func()
		}{
			{"json/decode", func() { decodeLines(b, raw) }},
			{"proto/decode", func() { decodeProtos(b, msgs) }},
			{"json/decode+build", func() { buildLines(b, raw) }},
			{"proto/decode+build", func() { buildProtos(b, msgs) }},
			{"json/decode+reduce", func() { foldLines(b, raw) }},
			{"proto/decode+reduce", func() { reduceProtos(b, msgs) }},
		}
		for _, p := range passes {
			b.Run(name+"/"+p.name, func(b *testing.B) {
				load(b)
				metered(b, len(raw), p.fn)
			})
		}
		b.Run(name+"/ratio", func(b *testing.B) {
			load(b)
			cpu := func(fn func()) float64 {
				runtime.GC()
				start, _ := benchmeter.CPUTime()
				fn()
				end, _ := benchmeter.CPUTime()
				return float64(end - start)
			}
			ratios := make([][]float64, 3)
			for i := 0; b.Loop(); i++ {
				t := make([]float64, len(passes))
				for k := range passes {
					j := k
					if i%2 == 1 {
						j = len(passes) - 1 - k // alternate the order
					}
					t[j] = cpu(passes[j].fn)
				}
				for k := range ratios {
					ratios[k] = append(ratios[k], t[2*k+1]/t[2*k])
				}
			}
			b.ReportMetric(median(ratios[0]), "x-decode")
			b.ReportMetric(median(ratios[1]), "x-build")
			b.ReportMetric(median(ratios[2]), "x-reduce")
			b.ReportMetric(0, "ns/op")
		})
	}
}
