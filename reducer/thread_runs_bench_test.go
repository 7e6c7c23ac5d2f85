package reducer_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/agview/agview/internal/benchmeter"
	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// threadRuns are the run counts of the two thread-runs workloads the
// benchmarks fold, each run of threadRunsPerRun messages. The stream grows
// with runs² (32 runs: about 50 MB, 8 runs: 3 MB), so four times the runs
// is sixteen times the input.
var threadRuns = [2]int{8, 32}

const threadRunsPerRun = 500

// BenchmarkThreadRuns folds the thread-runs workload (many runs on one
// thread, each RUN_STARTED carrying the whole history as its input, then
// 500 short messages from a subagent) of 8 and 32 runs, decoding and
// building through a Builder as agview verify does. Next to the per-event
// figures it reports the cost per input byte, wall (ns/input-byte) and CPU
// (cpu-ns/input-byte), and the bytes allocated per input byte
// (alloc-B/input-byte): every RUN_STARTED repeats the history, so the input
// grows with runs² while the events grow with runs, and per input byte is
// the fair measure of the two sizes.
func BenchmarkThreadRuns(b *testing.B) {
	for _, runs := range threadRuns {
		b.Run(fmt.Sprintf("runs-%dx%d", runs, threadRunsPerRun), func(b *testing.B) {
			raw := benchwork.Lines(b, benchwork.ThreadRuns(b, runs, threadRunsPerRun))
			in := float64(inputBytes(raw)) * float64(b.N)
			var before, after runtime.MemStats
			m := benchmeter.Start()
			runtime.ReadMemStats(&before)
			cpu0, cpuOK := benchmeter.CPUTime()
			start := time.Now()
			for range b.N {
				buildLines(b, raw)
			}
			wall := time.Since(start)
			cpu1, _ := benchmeter.CPUTime()
			runtime.ReadMemStats(&after)
			m.Report(b, len(raw))
			b.ReportMetric(float64(wall.Nanoseconds())/in, "ns/input-byte")
			if cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/in, "cpu-ns/input-byte")
			}
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/in, "alloc-B/input-byte")
			b.ReportMetric(float64(inputBytes(raw)), "input-bytes")
		})
	}
}

// BenchmarkThreadRunsScaling alternates, in each round, a pass over the
// thread-runs workload of 8 runs and one over 32, and reports the median
// over the rounds of the per-input-byte cost at 32 runs over that at 8, in
// wall time (x-32runs) and in CPU time (x-32runs-cpu, steadier on a busy
// machine). The history's share of the input grows with the runs (65 % of
// the bytes at 8 runs, 89 % at 32), so these ratios also weigh what a
// history byte costs against what a byte of the other events does;
// x-32runs-history-cpu compares the RUN_STARTED events alone, per byte: 1
// when a run's input costs in proportion to its size, above 1 when it
// costs more as the history grows. Run with -benchtime 6x or more.
func BenchmarkThreadRunsScaling(b *testing.B) {
	small := benchwork.Lines(b, benchwork.ThreadRuns(b, threadRuns[0], threadRunsPerRun))
	large := benchwork.Lines(b, benchwork.ThreadRuns(b, threadRuns[1], threadRunsPerRun))
	var xs, xc, xh []float64
	for i := 0; b.Loop(); i++ {
		var sm, lg threadRunsPass
		if i%2 == 0 {
			sm, lg = foldThreadRuns(b, small), foldThreadRuns(b, large)
		} else {
			lg, sm = foldThreadRuns(b, large), foldThreadRuns(b, small)
		}
		xs = append(xs, lg.wall/sm.wall)
		if sm.cpu > 0 && sm.historyCPU > 0 {
			xc, xh = append(xc, lg.cpu/sm.cpu), append(xh, lg.historyCPU/sm.historyCPU)
		}
	}
	b.ReportMetric(median(xs), "x-32runs")
	if len(xc) > 0 {
		b.ReportMetric(median(xc), "x-32runs-cpu")
		b.ReportMetric(median(xh), "x-32runs-history-cpu")
	}
	b.ReportMetric(0, "ns/op")
}

// threadRunsPass is what one fold of a thread-runs workload cost, in ns
// per input byte: wall and CPU time over every line, and CPU time over the
// RUN_STARTED lines alone per byte of them (0 where the CPU time cannot be
// read).
type threadRunsPass struct{ wall, cpu, historyCPU float64 }

// foldThreadRuns folds raw as buildLines does, reading the CPU time around
// each RUN_STARTED line besides around the whole.
func foldThreadRuns(b *testing.B, raw [][]byte) threadRunsPass {
	runtime.GC()
	var history int
	var historyCPU time.Duration
	cpu0, _ := benchmeter.CPUTime()
	start := time.Now()
	bl := reducer.NewBuilder(view.New())
	for _, l := range raw {
		started := bytes.HasPrefix(l, []byte(`{"type":"RUN_STARTED"`))
		var c0 time.Duration
		if started {
			c0, _ = benchmeter.CPUTime()
		}
		if err := bl.FoldJSON(l); err != nil {
			b.Fatal(err)
		}
		if started {
			c1, _ := benchmeter.CPUTime()
			history, historyCPU = history+len(l), historyCPU+c1-c0
		}
	}
	wall := time.Since(start)
	cpu1, _ := benchmeter.CPUTime()
	n := float64(inputBytes(raw))
	return threadRunsPass{
		wall:       float64(wall) / n,
		cpu:        float64(cpu1-cpu0) / n,
		historyCPU: float64(historyCPU) / float64(history),
	}
}

// inputBytes is the size of the lines of a stream.
func inputBytes(raw [][]byte) int {
	n := 0
	for _, l := range raw {
		n += len(l)
	}
	return n
}
