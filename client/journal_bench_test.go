package client_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/internal/benchlive"
	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// Journal costs, measured within one run (issue 18):
//
//   - BenchmarkJournalLive: the live path (agenttest over SSE on loopback
//     into client.Run) without a journal and recording into each embedded
//     journal, passes alternated; it reports each one's events/s (medians)
//     and the ratio x-none of events/s with that journal over events/s
//     without (1.0 = no cost; the target is ≥ 0.90 for the file journal),
//     and cpu-x-none, the same ratio in the process's CPU time, which other
//     processes on a shared machine disturb less.
//   - BenchmarkAttach: a fresh viewer attaching to a journaled thread of
//     the swarm workload (client.Attach until its first full view) next to
//     what `agview replay` does with the same file (read the frames, fold
//     through a reducer.Builder); it reports x-replay (the target is < 2).
//
// Both skip when the shared generator is absent.

func BenchmarkJournalLive(b *testing.B) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	stream, _ := benchwork.Stream(b, "swarm", n)
	frames := benchwork.Frames(b, stream)
	srv := agenttest.NewServer(agenttest.Frames(frames...), nil)
	defer srv.Close()
	dir, err := journal.OpenDir(b.TempDir(), nil)
	require.NoError(b, err)
	defer dir.Close()
	mem := journal.NewMemory("")
	defer mem.Close()
	benchlive.Compare(b, srv.URL(), n, benchlive.Mode{Name: "file", Journal: dir}, benchlive.Mode{Name: "memory", Journal: mem})
}

func BenchmarkAttach(b *testing.B) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	stream, _ := benchwork.Stream(b, "swarm", n)
	frames := benchwork.Frames(b, stream)
	d, err := journal.OpenDir(b.TempDir(), nil)
	require.NoError(b, err)
	defer d.Close()
	ctx := b.Context()
	writeThread(b, d, "t1", frames)
	path := d.File("t1")

	var replay, attach []time.Duration
	var want, got int
	for range b.N {
		start := time.Now()
		v := replayFile(b, ctx, path)
		replay = append(replay, time.Since(start))
		want = v.EventCount()

		start = time.Now()
		a, err := client.Attach(ctx, d, "t1", &client.AttachOptions{UntilIdle: true})
		attach = append(attach, time.Since(start))
		require.NoError(b, err)
		got = a.Store().View().EventCount()
		a.Stop()
		a.Store().Close()
	}
	if got != n {
		b.Fatalf("attached %d events, want %d", got, n)
	}
	_ = want // replay also counts the input and end lines, as unknown events
	r, a := benchlive.Median(replay), benchlive.Median(attach)
	b.ReportMetric(float64(r.Microseconds())/1e3, "replay-ms")
	b.ReportMetric(float64(a.Microseconds())/1e3, "attach-ms")
	b.ReportMetric(a.Seconds()/r.Seconds(), "x-replay")
	b.ReportMetric(0, "ns/op")
}

// writeThread journals one run of frames on thread.
func writeThread(tb testing.TB, j journal.Journal, thread string, frames []json.RawMessage) {
	ctx := context.Background()
	w, err := j.Begin(ctx, journal.Lease{Thread: thread, RunID: "r1"})
	require.NoError(tb, err)
	_, err = w.Append(ctx, journal.Record{Kind: journal.KindInput, Data: json.RawMessage(`{"threadId":"` + thread + `","runId":"r1","messages":[]}`)})
	require.NoError(tb, err)
	for i := 0; i < len(frames); i += 1024 {
		recs := make([]journal.Record, 0, 1024)
		for _, f := range frames[i:min(i+1024, len(frames))] {
			recs = append(recs, journal.Record{Kind: journal.KindEvent, Data: f})
		}
		_, err = w.Append(ctx, recs...)
		require.NoError(tb, err)
	}
	_, err = w.Append(ctx, journal.Record{Kind: journal.KindEnd, Data: json.RawMessage(`{}`)})
	require.NoError(tb, err)
	require.NoError(tb, w.End(ctx))
}

// replayFile folds a file as `agview replay` does (cmd/agview foldFile).
func replayFile(tb testing.TB, ctx context.Context, path string) *view.View {
	b := reducer.NewBuilder(view.New())
	for f, err := range transport.ReadFileFrames(ctx, path, transport.FormatJSONL, nil) {
		if err != nil {
			break
		}
		_ = b.FoldJSON(f.Data)
	}
	return b.End(nil)
}
