package reducer_test

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// snapshotRuns and snapshotPerRun are the sizes of the snapshot-runs
// workload BenchmarkSnapshotRuns folds: 50 runs of 200 messages (and 20
// tool results), the last snapshot restating some 11,000 messages.
const snapshotRuns, snapshotPerRun = 50, 200

// BenchmarkSnapshotRuns folds, in each round, the snapshot-runs workload
// (each of 50 runs opening with a MESSAGES_SNAPSHOT of the whole
// conversation so far) and the 100k swarm, both decoded and built through
// a Builder as agview verify does, and reports the median over the rounds
// of the wall time per snapshot message spent on the MESSAGES_SNAPSHOT
// lines, decoding included (ns/snapshot-message), the swarm's per-event
// time (ns/swarm-event), and the ratio of the two (x-swarm). Run with
// -benchtime 3x or more.
func BenchmarkSnapshotRuns(b *testing.B) {
	raw := benchwork.Lines(b, benchwork.SnapshotRuns(b, snapshotRuns, snapshotPerRun))
	swarm := benchwork.Lines(b, mustStream(b, "swarm", 100_000))
	var per, sw, xs []float64
	for i := 0; b.Loop(); i++ {
		var p, w float64
		if i%2 == 0 {
			p, w = foldSnapshotRuns(b, raw), swarmPerEvent(b, swarm)
		} else {
			w, p = swarmPerEvent(b, swarm), foldSnapshotRuns(b, raw)
		}
		per, sw, xs = append(per, p), append(sw, w), append(xs, p/w)
	}
	b.ReportMetric(median(per), "ns/snapshot-message")
	b.ReportMetric(median(sw), "ns/swarm-event")
	b.ReportMetric(median(xs), "x-swarm")
	b.ReportMetric(0, "ns/op")
}

// foldSnapshotRuns folds raw through a Builder and returns the wall time
// spent on its MESSAGES_SNAPSHOT lines per message they hold.
func foldSnapshotRuns(b *testing.B, raw [][]byte) float64 {
	runtime.GC()
	bl := reducer.NewBuilder(view.New())
	var spent time.Duration
	messages := 0
	for _, l := range raw {
		snapshot := bytes.HasPrefix(l, []byte(`{"type":"MESSAGES_SNAPSHOT"`))
		start := time.Now()
		if err := bl.FoldJSON(l); err != nil {
			b.Fatal(err)
		}
		if snapshot {
			spent += time.Since(start)
			messages += bytes.Count(l, []byte(`{"id":`))
		}
	}
	return float64(spent) / float64(messages)
}

// swarmPerEvent folds raw through a Builder and returns the wall time per
// event.
func swarmPerEvent(b *testing.B, raw [][]byte) float64 {
	runtime.GC()
	start := time.Now()
	buildLines(b, raw)
	return float64(time.Since(start)) / float64(len(raw))
}
