package client_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/benchmeter"
	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/transport"
)

// BenchmarkLiveProto is the live path over the protobuf framing against SSE:
// the chat and swarm workloads (converted once, to an SSE body and to a
// protobuf body) served on loopback by a server that writes the ready body,
// so that the figures are the client's (HTTP, framing, decoding, folding into
// the store) and not the encoding's. Each sub-benchmark reports events/s,
// ns/event, cpu-ns/event and allocs/event; the ratio sub-benchmark alternates
// the two in rounds and reports the median of proto's CPU time over SSE's
// (x-sse; the target is at most 1; run it with -benchtime 10x or more).
func BenchmarkLiveProto(b *testing.B) {
	n := 10000
	for _, profile := range []string{"chat", "swarm"} {
		stream, _ := benchwork.Stream(b, profile, n)
		frames := benchwork.Frames(b, stream)
		var sse, pb []byte
		for _, f := range frames {
			sse = transport.AppendSSEData(sse, f)
			e, err := event.Decode(f)
			require.NoError(b, err)
			pb, err = event.AppendProtoFrame(pb, e)
			require.NoError(b, err)
		}
		serve := func(ct string, body []byte) *httptest.Server {
			return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", ct)
				w.Write(body)
			}))
		}
		sseSrv := serve("text/event-stream", sse)
		defer sseSrv.Close()
		protoSrv := serve(transport.MediaTypeProto, pb)
		defer protoSrv.Close()
		run := func(tb testing.TB, url string, enc transport.Encoding) {
			c := client.New(url, client.WithEncoding(enc))
			v, err := c.Run(tb.Context(), &event.RunAgentInput{ThreadID: "t", RunID: "r"})
			c.Close()
			if err != nil && v.EventCount() != len(frames) {
				tb.Fatal(err)
			}
			if v.EventCount() != len(frames) || v.ViolationCount() != 0 {
				tb.Fatalf("folded %d events with %d violations, want %d and none", v.EventCount(), v.ViolationCount(), len(frames))
			}
		}
		name := fmt.Sprintf("%s-%d", profile, n)
		for _, p := range []struct {
			name string
			url  string
			enc  transport.Encoding
		}{{"sse", sseSrv.URL, transport.EncodingSSE}, {"proto", protoSrv.URL, transport.EncodingPreferProto}} {
			b.Run(name+"/"+p.name, func(b *testing.B) {
				m := benchmeter.Start()
				for range b.N {
					run(b, p.url, p.enc)
				}
				b.ReportMetric(m.Report(b, len(frames)), "events/s")
			})
		}
		b.Run(name+"/ratio", func(b *testing.B) {
			cpu := func(url string, enc transport.Encoding) float64 {
				runtime.GC()
				start, _ := benchmeter.CPUTime()
				run(b, url, enc)
				end, _ := benchmeter.CPUTime()
				return float64(end - start)
			}
			var xs []float64
			for i := 0; b.Loop(); i++ {
				var s, p float64
				if i%2 == 0 {
					s, p = cpu(sseSrv.URL, transport.EncodingSSE), cpu(protoSrv.URL, transport.EncodingPreferProto)
				} else {
					p, s = cpu(protoSrv.URL, transport.EncodingPreferProto), cpu(sseSrv.URL, transport.EncodingSSE)
				}
				xs = append(xs, p/s)
			}
			b.ReportMetric(benchmeter.Median(xs), "x-sse")
			b.ReportMetric(0, "ns/op")
		})
	}
}
