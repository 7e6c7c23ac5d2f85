package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/benchlive"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// scriptOf returns a Script that plays, for each input, the events play
// emits (each encoded with event.Encode) until emit reports false.
func scriptOf(play func(in *event.RunAgentInput, emit func(event.Event) bool)) agenttest.Script {
	return agenttest.ScriptFunc(func(in *event.RunAgentInput) iter.Seq[json.RawMessage] {
		return func(yield func(json.RawMessage) bool) {
			play(in, func(e event.Event) bool {
				b, err := event.Encode(e)
				if err != nil {
					panic(err)
				}
				return yield(b)
			})
		}
	})
}

// growthAgent answers each run with one assistant message of replyBytes,
// streamed in deltas of at most 4 KB, and a small state snapshot every
// fifth run.
func growthAgent(replyBytes int) agenttest.Script {
	return scriptOf(func(in *event.RunAgentInput, emit func(event.Event) bool) {
		id := "a-" + in.RunID
		if !emit(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}) ||
			!emit(&event.TextMessageStart{MessageID: id, Role: event.Ptr(event.RoleAssistant)}) {
			return
		}
		reply := strings.Repeat("r", replyBytes)
		for len(reply) > 0 {
			n := min(len(reply), 4096)
			if !emit(&event.TextMessageContent{MessageID: id, Delta: reply[:n]}) {
				return
			}
			reply = reply[n:]
		}
		if !emit(&event.TextMessageEnd{MessageID: id}) {
			return
		}
		if len(in.Messages)%5 == 0 {
			st := json.RawMessage(fmt.Sprintf(`{"turns":%d}`, len(in.Messages)))
			if !emit(&event.StateSnapshot{Snapshot: st}) {
				return
			}
		}
		emit(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	})
}

// growth is one conversation recorded into a file journal.
type growth struct {
	dir    string
	j      *journal.Dir
	sent   int64 // the bytes of the messages the user added
	output int64 // the bytes of the agent's events
	file   int64 // the journal file's size
}

// converse records runs turns of msgBytes user messages on thread "t" in a
// file journal under dir, against an agent answering replyBytes per turn.
func converse(tb testing.TB, dir string, runs, msgBytes, replyBytes int) *growth {
	tb.Helper()
	srv := agenttest.NewServer(growthAgent(replyBytes), &agenttest.Options{MaxInputBytes: 64 << 20})
	defer srv.Close()
	j, err := journal.OpenDir(dir, nil)
	require.NoError(tb, err)
	g := &growth{dir: dir, j: j}
	c := client.New(srv.URL(), client.WithJournal(j, func(err error) { tb.Errorf("journal: %v", err) }))
	defer c.Close()
	for i := range runs {
		m := client.UserMessage(fmt.Sprintf("%d:", i) + strings.Repeat("u", msgBytes))
		g.sent += int64(len(m.Content))
		_, err := c.Continue(context.Background(), &client.InputOptions{ThreadID: "t", Messages: []event.Message{m}})
		require.NoError(tb, err)
	}
	for r, err := range j.Read(context.Background(), "t", 1) {
		require.NoError(tb, err)
		if r.Kind == journal.KindEvent {
			g.output += int64(len(r.Data))
		}
	}
	fi, err := os.Stat(j.File("t"))
	require.NoError(tb, err)
	g.file = fi.Size()
	return g
}

// TestJournalGrowth: a thread's journal is about the size of what was sent
// and answered, not of every run's whole history (issue 30).
func TestJournalGrowth(t *testing.T) {
	g := converse(t, t.TempDir(), 24, 16<<10, 1<<10)
	defer g.j.Close()
	ratio := float64(g.file) / float64(g.sent+g.output)
	t.Logf("journal %d bytes, sent %d, output %d: %.2fx", g.file, g.sent, g.output, ratio)
	require.LessOrEqual(t, ratio, 1.5, "the journal holds each message once")
	// And what it holds folds to the client's view.
	require.Equal(t, 48, attachIdle(t, g.j, "t").MessageCount())
}

// BenchmarkJournalGrowth is issue 30's growth target: 60 runs of 60 KB user
// messages (answered with 2 KB each) recorded in a file journal. It reports
// the journal's size (journal-MB) and its ratio to the bytes sent plus the
// agent's output (x-sent, the target ≤ 1.5), a fresh Attach to it
// (attach-ms, the target ≤ 1 s) and the `agview replay` of its file
// (replay-ms).
func BenchmarkJournalGrowth(b *testing.B) {
	runs := 60
	if testing.Short() {
		runs = 20
	}
	g := converse(b, b.TempDir(), runs, 60<<10, 2<<10)
	defer g.j.Close()
	ctx := context.Background()
	var attach, replay []time.Duration
	for range b.N {
		j, err := journal.OpenDir(g.dir, nil) // a fresh process's journal
		require.NoError(b, err)
		start := time.Now()
		a, err := client.Attach(ctx, j, "t", &client.AttachOptions{UntilIdle: true})
		require.NoError(b, err)
		attach = append(attach, time.Since(start))
		require.Equal(b, 2*runs, a.Store().View().MessageCount())
		a.Stop()
		a.Store().Close()
		j.Close()

		start = time.Now()
		v := replayJournal(b, ctx, g.j.File("t"))
		replay = append(replay, time.Since(start))
		require.Equal(b, 2*runs, v.MessageCount())
	}
	b.ReportMetric(float64(g.file)/1e6, "journal-MB")
	b.ReportMetric(float64(g.file)/float64(g.sent+g.output), "x-sent")
	b.ReportMetric(float64(benchlive.Median(attach).Microseconds())/1e3, "attach-ms")
	b.ReportMetric(float64(benchlive.Median(replay).Microseconds())/1e3, "replay-ms")
	b.ReportMetric(0, "ns/op")
}

// replayJournal folds a journal file as `agview replay` does (cmd/agview
// foldFile): input and end lines through a client.JournalFolder, events
// through the same reducer.Builder.
func replayJournal(tb testing.TB, ctx context.Context, path string) *view.View {
	tb.Helper()
	b := reducer.NewBuilder(view.New())
	jf := client.NewJournalFolder(b, "t")
	for f, err := range transport.ReadFileFrames(ctx, path, transport.FormatJSONL, nil) {
		if err != nil {
			break
		}
		if r := journal.ParseLine(f.Data); r.Kind != journal.KindEvent {
			jf.Fold(r)
			continue
		}
		_ = b.FoldJSON(f.Data)
	}
	return b.End(nil)
}
