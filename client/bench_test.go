package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/benchmeter"
	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// The live path, measured end to end (issue 4):
//
//   - BenchmarkLiveSSE: events per second from an agenttest server over SSE
//     on loopback into a client's store, for the shared swarm workload, next
//     to decoding and folding the same frames in memory in the same run.
//   - BenchmarkLatency: the time from the server's write of each frame to a
//     store subscriber seeing the view that counts it, p50 and p99.
//
// The server runs in the benchmark's process, so the CPU figures include
// its work (encoding SSE frames and writing them) as well as the client's.

// BenchmarkLiveSSE runs the swarm workload of the shared generator
// (../shared/bench/gen, through internal/benchwork; 10k events with -short,
// else 100k) through agenttest.NewServer and client.Run, and reports
// events/s. Its first sub-benchmark decodes and folds the same frames in
// memory (reducer.FoldJSON), and the second reports its own rate as a
// fraction of that one (x-decode+reduce): the live path's overhead over the
// fold alone. It skips when the generator is absent.
func BenchmarkLiveSSE(b *testing.B) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	stream, _ := benchwork.Stream(b, "swarm", n)
	frames := benchwork.Frames(b, stream)
	require.Len(b, frames, n, "frames in %s", stream)
	var inMemory float64 // events/s of decode+reduce, for the ratio
	b.Run(fmt.Sprintf("swarm-%d/decode+reduce", n), func(b *testing.B) {
		m := benchmeter.Start()
		for range b.N {
			v := view.New()
			for _, f := range frames {
				var err error
				if v, err = reducer.FoldJSON(v, f); err != nil {
					b.Fatal(err)
				}
			}
			if v.EventCount() != len(frames) {
				b.Fatalf("folded %d events, want %d", v.EventCount(), len(frames))
			}
		}
		inMemory = m.Report(b, len(frames))
		b.ReportMetric(inMemory, "events/s")
	})
	b.Run(fmt.Sprintf("swarm-%d/sse", n), func(b *testing.B) {
		srv := agenttest.NewServer(agenttest.Frames(frames...), nil)
		defer srv.Close()
		ctx := b.Context()
		m := benchmeter.Start()
		for range b.N {
			c := client.New(srv.URL())
			v, err := c.Run(ctx, &event.RunAgentInput{ThreadID: "thread-swarm", RunID: "run-swarm"})
			c.Close()
			if err != nil {
				b.Fatal(err)
			}
			if v.EventCount() != len(frames) || v.ViolationCount() != 0 {
				b.Fatalf("folded %d events with %d violations, want %d and none", v.EventCount(), v.ViolationCount(), len(frames))
			}
		}
		live := m.Report(b, len(frames))
		b.ReportMetric(live, "events/s")
		if inMemory > 0 {
			b.ReportMetric(live/inMemory, "x-decode+reduce")
		}
	})
}

// BenchmarkLatency measures, for every event of the agenttest demo swarm
// (about 2,000 events per run), the time from just before the server writes
// its frame to the moment a store subscriber (store.Subscribe, on its own
// goroutine) is handed the first view that counts it. The server sends the
// next frame only once the subscriber has seen the previous one, so each
// latency is measured on an otherwise idle pipeline, with no queueing behind
// earlier events. It reports the median, the 99th percentile and the maximum
// in microseconds.
func BenchmarkLatency(b *testing.B) {
	frames := encodeAll(b, agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 1, Researchers: 8, Rounds: 12}))
	var lat []time.Duration
	for range b.N {
		lat = append(lat, pacedRun(b, frames)...)
	}
	slices.Sort(lat)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	b.ReportMetric(us(percentile(lat, 0.50)), "p50-µs")
	b.ReportMetric(us(percentile(lat, 0.99)), "p99-µs")
	b.ReportMetric(us(lat[len(lat)-1]), "max-µs")
	b.ReportMetric(float64(len(frames)), "events/run")
	b.ReportMetric(0, "ns/op")
}

// pacedRun serves frames one at a time, each after the subscriber has seen
// the previous one, and returns each frame's latency from write to delivery.
func pacedRun(b *testing.B, frames []json.RawMessage) []time.Duration {
	b.Helper()
	ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
	defer cancel()
	// mu guards sent (written by the server's goroutine), seen and count
	// (written by the subscriber's).
	var mu sync.Mutex
	sent := make([]time.Time, len(frames))
	seen := make([]time.Time, len(frames))
	count := 0
	acks := make(chan int, len(frames))
	script := agenttest.ScriptFunc(func(*event.RunAgentInput) iter.Seq[json.RawMessage] {
		return func(yield func(json.RawMessage) bool) {
			for i, f := range frames {
				now := time.Now()
				mu.Lock()
				sent[i] = now
				mu.Unlock()
				if !yield(f) { // returns once the frame is written and flushed
					return
				}
				select {
				case <-acks:
				case <-ctx.Done():
					return
				}
			}
		}
	})
	srv := agenttest.NewServer(script, nil)
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()

	unsubscribe := c.Store().Subscribe(func(v *view.View) {
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		for ; count < v.EventCount() && count < len(seen); count++ {
			seen[count] = now
			acks <- count
		}
	})
	defer unsubscribe()
	v, err := c.Run(ctx, nil)
	require.NoError(b, err)
	require.Equal(b, len(frames), v.EventCount(), "events folded")
	require.NoError(b, c.Store().Settle(ctx))
	out := make([]time.Duration, len(frames))
	mu.Lock()
	defer mu.Unlock()
	require.Equal(b, len(frames), count, "events the subscriber saw")
	for i := range frames {
		out[i] = seen[i].Sub(sent[i])
	}
	return out
}

// percentile returns the q-quantile of sorted (nearest rank).
func percentile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func encodeAll(tb testing.TB, evs []event.Event) []json.RawMessage {
	tb.Helper()
	out := make([]json.RawMessage, len(evs))
	for i, e := range evs {
		f, err := event.Encode(e)
		require.NoError(tb, err, "event %d", i)
		out[i] = f
	}
	return out
}
