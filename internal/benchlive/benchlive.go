// Package benchlive measures what recording into a journal costs the live
// path, for the benchmarks of package client and examples/journalnats: it
// runs one workload through client.Run without a journal and with each
// journal given, passes alternated so that a loaded machine disturbs all
// alike, and reports medians and ratios.
package benchlive

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/benchmeter"
	"github.com/agview/agview/journal"
)

// Mode is one way to run: a name and a journal (nil: none).
type Mode struct {
	Name    string
	Journal journal.Journal
}

// Median returns the median of ds.
func Median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// Compare runs the agent at url (serving n events per run) b.N times in
// each mode, "none" first, each run on a thread of its own, and reports for
// each mode NAME-events/s and, against none, NAME-x-none (the ratio of
// events/s) and NAME-cpu-x-none (the same in the process's CPU time, which
// other processes disturb less).
func Compare(b *testing.B, url string, n int, modes ...Mode) {
	b.Helper()
	modes = append([]Mode{{Name: "none"}}, modes...)
	times := make([][]time.Duration, len(modes))
	cpus := make([][]time.Duration, len(modes))
	run := 0
	for range b.N {
		for i, m := range modes {
			var opts []client.Option
			if m.Journal != nil {
				opts = append(opts, client.WithJournal(m.Journal, func(err error) { b.Fatal(err) }))
			}
			c := client.New(url, opts...)
			run++
			cpu0, _ := benchmeter.CPUTime()
			start := time.Now()
			v, err := c.Run(b.Context(), &event.RunAgentInput{ThreadID: fmt.Sprint("thread-", run), RunID: "run-swarm"})
			times[i] = append(times[i], time.Since(start))
			cpu1, _ := benchmeter.CPUTime()
			cpus[i] = append(cpus[i], cpu1-cpu0)
			c.Close()
			if err != nil || v.EventCount() != n {
				b.Fatalf("%s: %d events, %v", m.Name, v.EventCount(), err)
			}
		}
	}
	none, noneCPU := Median(times[0]), Median(cpus[0])
	for i, m := range modes {
		t := Median(times[i])
		b.ReportMetric(float64(n)/t.Seconds(), m.Name+"-events/s")
		if i > 0 {
			b.ReportMetric(none.Seconds()/t.Seconds(), m.Name+"-x-none")
			b.ReportMetric(noneCPU.Seconds()/Median(cpus[i]).Seconds(), m.Name+"-cpu-x-none")
		}
	}
	b.ReportMetric(0, "ns/op")
}
