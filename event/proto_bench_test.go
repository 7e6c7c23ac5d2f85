package event

import (
	"testing"

	"github.com/agview/agview/internal/benchwork"
)

// BenchmarkDecodeProto decodes the chat and swarm workloads, the
// state-heavy one and the thread of 10k short messages as JSON with Decode
// and, converted to protobuf once, with DecodeProto, in the same run. Each
// reports ns/event and allocs/event; the protobuf side also reports x-json,
// its time per event over JSON's (the target is at most 1).
func BenchmarkDecodeProto(b *testing.B) {
	type named struct {
		name  string
		lines [][]byte
	}
	var sets []named
	for _, w := range workloads {
		stream, _ := benchwork.Stream(b, w.profile, w.events, w.extra...)
		sets = append(sets, named{w.profile, benchwork.Lines(b, stream)})
	}
	sets = append(sets, named{"thread", benchwork.Lines(b, benchwork.Thread(b, 10_000))})
	for _, set := range sets {
		lines := set.lines
		msgs := make([][]byte, len(lines))
		jsonSize, protoSize := 0, 0
		for i, l := range lines {
			e, err := Decode(l)
			if err != nil {
				b.Fatal(err)
			}
			if msgs[i], err = AppendProto(nil, e); err != nil {
				b.Fatal(err)
			}
			jsonSize += len(l) + 1
			protoSize += len(msgs[i]) + 4
		}
		var jsonNS float64
		b.Run(set.name+"/json", func(b *testing.B) {
			jsonNS = measure(b, lines, jsonSize, func(l []byte) error {
				e, err := Decode(l)
				sink = e
				return err
			})
		})
		b.Run(set.name+"/proto", func(b *testing.B) {
			ns := measure(b, msgs, protoSize, func(m []byte) error {
				e, err := DecodeProto(m)
				sink = e
				return err
			})
			if jsonNS > 0 {
				b.ReportMetric(ns/jsonNS, "x-json")
			}
			b.ReportMetric(float64(protoSize)/float64(jsonSize), "x-json-bytes")
		})
	}
}

// BenchmarkAppendProto encodes the chat and swarm workloads' events as JSON
// (Encode) and as protobuf (AppendProto), in the same run.
func BenchmarkAppendProto(b *testing.B) {
	for _, w := range workloads[:2] {
		stream, _ := benchwork.Stream(b, w.profile, w.events, w.extra...)
		lines := benchwork.Lines(b, stream)
		evs := make([]Event, len(lines))
		for i, l := range lines {
			var err error
			if evs[i], err = Decode(l); err != nil {
				b.Fatal(err)
			}
		}
		var buf []byte
		b.Run(w.profile+"/json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, e := range evs {
					out, err := Encode(e)
					if err != nil {
						b.Fatal(err)
					}
					sink = out
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
		})
		b.Run(w.profile+"/proto", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, e := range evs {
					var err error
					if buf, err = AppendProto(buf[:0], e); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
		})
	}
}
