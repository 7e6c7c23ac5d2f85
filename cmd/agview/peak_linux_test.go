package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/agview/agview/internal/benchwork"
)

// BenchmarkVerifyPeakMemory builds agview and runs agview verify on the
// thread workload's recording (160k short messages from one subagent,
// every tenth with an answered tool call; generated under testdata/bench),
// and reports the process's peak resident memory over the recording's size
// (peak-RSS/file; issue 17 aims at 1.5 or less) and in megabytes. The
// peak moves with the collector's timing from one run to the next: the
// figures are the median of the runs, and peak-RSS/file-max the largest.
func BenchmarkVerifyPeakMemory(b *testing.B) {
	path := benchwork.Thread(b, 160_000)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go command to build agview with")
	}
	bin := filepath.Join(b.TempDir(), "agview")
	if out, err := exec.Command(gotool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var peaks []float64
	for b.Loop() {
		cmd := exec.Command(bin, "verify", path)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("agview verify: %v\n%s", err, out)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			b.Skip("no resource usage on this system")
		}
		peaks = append(peaks, float64(ru.Maxrss)*1024) // kilobytes on Linux
	}
	slices.Sort(peaks)
	median := peaks[len(peaks)/2]
	b.ReportMetric(median/float64(fi.Size()), "peak-RSS/file")
	b.ReportMetric(peaks[len(peaks)-1]/float64(fi.Size()), "peak-RSS/file-max")
	b.ReportMetric(median/1e6, "peak-MB")
	b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
	b.ReportMetric(0, "ns/op")
}
