// Package benchmeter measures the cost per event of benchmarks that pass
// over a stream of events b.N times: wall time, CPU time (which a machine
// shared with other work does not inflate as it does wall time),
// allocations and bytes. The reducer's and the client's benchmarks share it.
//
// # Concurrency
//
// A Meter belongs to one benchmark function; CPUTime may be called from any
// goroutine.
package benchmeter

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

// Meter records where a measurement started.
type Meter struct {
	start time.Time
	cpu   time.Duration
	mem   runtime.MemStats
}

// Start collects garbage, then starts measuring.
func Start() *Meter {
	runtime.GC()
	m := &Meter{}
	runtime.ReadMemStats(&m.mem)
	m.cpu, _ = CPUTime()
	m.start = time.Now()
	return m
}

// Report reports, per event of b.N passes over n events, ns/event,
// cpu-ns/event (when the platform tells CPU time), allocs/event and B/event,
// hides ns/op, and returns the rate in events per second.
func (m *Meter) Report(b *testing.B, n int) float64 {
	wall := time.Since(m.start)
	cpu, cpuOK := CPUTime()
	var now runtime.MemStats
	runtime.ReadMemStats(&now)
	total := float64(b.N) * float64(n)
	b.ReportMetric(float64(wall.Nanoseconds())/total, "ns/event")
	if cpuOK {
		b.ReportMetric(float64((cpu-m.cpu).Nanoseconds())/total, "cpu-ns/event")
	}
	b.ReportMetric(float64(now.Mallocs-m.mem.Mallocs)/total, "allocs/event")
	b.ReportMetric(float64(now.TotalAlloc-m.mem.TotalAlloc)/total, "B/event")
	b.ReportMetric(0, "ns/op")
	return total / wall.Seconds()
}

// Median returns the median of xs (0 for none), for benchmarks that report
// the median of ratios measured in alternating rounds.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
