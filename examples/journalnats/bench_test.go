package journalnats_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/examples/journalnats"
	"github.com/agview/agview/internal/benchmeter"
	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/journal"
)

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkLiveNATS runs the swarm workload of the shared generator (10k
// events with -short, else 100k) from agenttest over SSE into client.Run,
// without a journal and recording into NATS JetStream (an in-process server
// on loopback), passes alternated, and reports each one's events/s, the
// ratio x-none (events/s with NATS over events/s without; the target is
// ≥ 0.75) and cpu-x-none, the same ratio in the process's CPU time (which
// here includes the NATS server's work). It skips when the generator is
// absent.
func BenchmarkLiveNATS(b *testing.B) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	stream, _ := benchwork.Stream(b, "swarm", n)
	frames := benchwork.Frames(b, stream)
	agent := agenttest.NewServer(agenttest.Frames(frames...), nil)
	defer agent.Close()
	srv := journalnats.Start(b, b.TempDir())
	j, err := journal.DialNATS(b.Context(), srv.URL(), nil)
	require.NoError(b, err)
	defer j.Close()

	modes := []struct {
		name string
		j    journal.Journal
	}{{"none", nil}, {"nats", j}}
	times := make([][]time.Duration, len(modes))
	cpus := make([][]time.Duration, len(modes))
	run := 0
	for range b.N {
		for i, m := range modes {
			var opts []client.Option
			if m.j != nil {
				opts = append(opts, client.WithJournal(m.j, func(err error) { b.Fatal(err) }))
			}
			c := client.New(agent.URL(), opts...)
			run++
			cpu0, _ := benchmeter.CPUTime()
			start := time.Now()
			v, err := c.Run(b.Context(), &event.RunAgentInput{ThreadID: fmt.Sprint("thread-", run), RunID: "run-swarm"})
			times[i] = append(times[i], time.Since(start))
			cpu1, _ := benchmeter.CPUTime()
			cpus[i] = append(cpus[i], cpu1-cpu0)
			c.Close()
			if err != nil || v.EventCount() != n {
				b.Fatalf("%s: %d events, %v", m.name, v.EventCount(), err)
			}
		}
	}
	none, noneCPU := median(times[0]), median(cpus[0])
	nats, natsCPU := median(times[1]), median(cpus[1])
	b.ReportMetric(float64(n)/none.Seconds(), "none-events/s")
	b.ReportMetric(float64(n)/nats.Seconds(), "nats-events/s")
	b.ReportMetric(none.Seconds()/nats.Seconds(), "nats-x-none")
	b.ReportMetric(noneCPU.Seconds()/natsCPU.Seconds(), "nats-cpu-x-none")
	b.ReportMetric(0, "ns/op")
}
