package client_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/view"
)

// journals returns a fresh journal of each embedded kind.
func journals(t *testing.T) map[string]journal.Journal {
	t.Helper()
	d, err := journal.OpenDir(t.TempDir(), nil)
	require.NoError(t, err)
	m := journal.NewMemory("")
	t.Cleanup(func() { d.Close(); m.Close() })
	return map[string]journal.Journal{"memory": m, "file": d}
}

func viewJSON(t *testing.T, v *view.View) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// attachIdle attaches to thread and waits until it is idle.
func attachIdle(t *testing.T, j journal.Journal, thread string) *view.View {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	a, err := client.Attach(ctx, j, thread, &client.AttachOptions{UntilIdle: true, Poll: 10 * time.Millisecond})
	require.NoError(t, err)
	defer a.Store().Close()
	<-a.Done()
	require.NoError(t, a.Err())
	return a.Store().View()
}

// TestRecordThenAttach records runs of several kinds and checks that a
// viewer attaching afterwards sees exactly the client's own view.
func TestRecordThenAttach(t *testing.T) {
	swarm := agenttest.Swarm(&agenttest.SwarmConfig{Seed: 3, Researchers: 4})
	bad := agenttest.Frames(
		json.RawMessage(`{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`),
		json.RawMessage(`{"type":"NOT_A_TYPE","x":1}`),
		json.RawMessage(`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","extra":true}`),
		json.RawMessage("{\"type\":\"TEXT_MESSAGE_CONTENT\",\n\"messageId\":\"m1\",\"delta\":\"multi\\nline\"}"),
		json.RawMessage(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1"`),
		json.RawMessage(`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`),
		json.RawMessage(`{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`),
	)
	for _, tc := range []struct {
		name   string
		script agenttest.Script
		opts   *agenttest.Options
		ws     bool
		runs   int
	}{
		{"swarm over sse", swarm, nil, false, 1},
		{"swarm over websocket", swarm, nil, true, 1},
		{"two runs on one thread", swarm, nil, false, 2},
		{"refused and odd frames", bad, nil, false, 1},
		{"a transport cut mid-run", agenttest.Events(openStream()...), &agenttest.Options{Fault: agenttest.CutAfter(4)}, false, 1},
		{"a stream that ends mid-run", agenttest.Events(openStream()...), nil, false, 1},
	} {
		for jname, j := range journals(t) {
			t.Run(tc.name+"/"+jname, func(t *testing.T) {
				srv := agenttest.NewServer(tc.script, tc.opts)
				defer srv.Close()
				url := srv.URL()
				opts := []client.Option{client.WithJournal(j, func(err error) { t.Errorf("journal: %v", err) })}
				if tc.ws {
					url = srv.WSURL()
					opts = append(opts, client.WithWebSocket())
				}
				c := client.New(url, opts...)
				defer c.Close()
				in := &event.RunAgentInput{ThreadID: "t1", RunID: "r1", Messages: []event.Message{client.UserMessage("what is new?")}}
				for range tc.runs {
					_, _ = c.Run(t.Context(), in) // how the run ended is in the view
					in = client.NextInput(c.Store().View(), &client.InputOptions{Messages: []event.Message{client.UserMessage("and then?")}, Answer: client.ResolveAll(json.RawMessage(`{"approved":true}`))})
				}
				require.Positive(t, len(c.Store().View().MessageList()), "the history is in the view")
				want := c.Store().View()
				got := attachIdle(t, j, "t1")
				assert.Equal(t, viewJSON(t, want), viewJSON(t, got), "the attached view is the client's")
				assert.Equal(t, want.Ended(), got.Ended(), "ended")
				st, err := j.Stat(t.Context(), "t1")
				require.NoError(t, err)
				assert.Nil(t, st.Active, "the lease is released when the run ends")
			})
		}
	}
}

// TestAttachFollowsLive attaches before the run starts and follows it.
func TestAttachFollowsLive(t *testing.T) {
	for jname, j := range journals(t) {
		t.Run(jname, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			a, err := client.Attach(ctx, j, "thread-demo", &client.AttachOptions{Poll: 10 * time.Millisecond})
			require.NoError(t, err)
			defer a.Store().Close()
			defer a.Stop()
			assert.Zero(t, a.Store().View().EventCount(), "nothing journaled yet")

			srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), &agenttest.Options{Delay: 100 * time.Microsecond})
			defer srv.Close()
			c := client.New(srv.URL(), client.WithJournal(j, nil))
			defer c.Close()
			want, err := c.Run(ctx, &event.RunAgentInput{ThreadID: "thread-demo", RunID: "r1"})
			require.NoError(t, err)
			got, err := a.Store().Wait(ctx, func(v *view.View) bool { return v.Ended() })
			require.NoError(t, err)
			assert.Equal(t, viewJSON(t, want), viewJSON(t, got), "the follower's view is the client's")
			a.Stop()
			assert.NoError(t, a.Err(), "stopped, not failed")
		})
	}
}

// TestSecondWriterRefused runs a client on a thread whose lease another
// writer holds: the run is refused before anything is sent.
func TestSecondWriterRefused(t *testing.T) {
	for jname, j := range journals(t) {
		t.Run(jname, func(t *testing.T) {
			w, err := j.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "other", Owner: "replica-2"})
			require.NoError(t, err)
			defer w.End(t.Context())
			srv := agenttest.NewServer(agenttest.Events(finish(openStream())...), nil)
			defer srv.Close()
			c := client.New(srv.URL(), client.WithJournal(j, nil))
			defer c.Close()
			v, err := c.Run(t.Context(), &event.RunAgentInput{ThreadID: "t1", RunID: "r1"})
			require.ErrorIs(t, err, journal.ErrBusy)
			var je *journal.Error
			require.ErrorAs(t, err, &je)
			assert.Equal(t, "other", je.Holder.RunID)
			assert.Empty(t, srv.Inputs(), "nothing was sent")
			assert.Zero(t, v.EventCount(), "nothing folded")
		})
	}
}

// TestAttachCutRun journals a run whose writer goes away without its end:
// an attachment, whether it was there before or comes after, reads the run
// as cut (failed, open invocations abandoned, text kept).
func TestAttachCutRun(t *testing.T) {
	frames := make([]journal.Record, 0, 8)
	frames = append(frames, journal.Record{Kind: journal.KindInput, Data: json.RawMessage(`{"threadId":"t1","runId":"r1","messages":[]}`)})
	for _, e := range openStream() {
		b, err := event.Encode(e)
		require.NoError(t, err)
		frames = append(frames, journal.Record{Kind: journal.KindEvent, Data: b})
	}
	check := func(t *testing.T, v *view.View) {
		run, ok := v.LastRun()
		require.True(t, ok)
		assert.Equal(t, view.RunFailed, run.Status, "the cut run failed")
		require.NotNil(t, run.Error)
		assert.Contains(t, run.Error.Message, "run cut")
		assert.Equal(t, view.Abandoned, v.Invocation("sub-1").Status())
		msgs := v.MessageList()
		require.Len(t, msgs, 1)
		assert.JSONEq(t, `"half a thought"`, string(msgs[0].Content), "text kept")
	}
	for jname, j := range journals(t) {
		t.Run(jname, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			w, err := j.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
			require.NoError(t, err)
			_, err = w.Append(ctx, frames...)
			require.NoError(t, err)

			early, err := client.Attach(ctx, j, "t1", &client.AttachOptions{Poll: 10 * time.Millisecond})
			require.NoError(t, err)
			defer early.Store().Close()
			defer early.Stop()
			run, _ := early.Store().View().LastRun()
			assert.Equal(t, view.RunRunning, run.Status, "running while its writer holds the lease")

			require.NoError(t, w.End(ctx)) // released without an end record: the writer died
			v, err := early.Store().Wait(ctx, func(v *view.View) bool { r, _ := v.LastRun(); return r.Status != view.RunRunning })
			require.NoError(t, err)
			check(t, v)
			late := attachIdle(t, j, "t1")
			check(t, late)
			assert.Equal(t, viewJSON(t, v), viewJSON(t, late), "the same cut, seen live or later")
			assert.True(t, strings.Contains(viewJSON(t, late), "journal"), "the cut names the journal")
		})
	}
}

// TestStopThroughJournal stops a recording run from another handle on the
// journal, as another replica would: the run ends cancelled, and the
// attached view agrees.
func TestStopThroughJournal(t *testing.T) {
	for jname, j := range journals(t) {
		t.Run(jname, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 4, Rounds: 100}), &agenttest.Options{Delay: time.Millisecond})
			defer srv.Close()
			c := client.New(srv.URL(), client.WithJournal(j, nil))
			defer c.Close()
			_, err := c.Store().Wait(ctx, func(*view.View) bool { return true })
			require.NoError(t, err)
			done := make(chan error, 1)
			go func() {
				_, err := c.Run(ctx, &event.RunAgentInput{ThreadID: "t1", RunID: "r1"})
				done <- err
			}()
			_, err = c.Store().Wait(ctx, func(v *view.View) bool { return v.EventCount() > 50 })
			require.NoError(t, err)
			l, err := j.Stop(ctx, "t1")
			require.NoError(t, err)
			assert.Equal(t, "r1", l.RunID)
			err = <-done
			require.ErrorIs(t, err, journal.ErrStopped, "the run was stopped through the journal")
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, view.RunCancelled, lastRunStatus(c.Store().View()))
			got := attachIdle(t, j, "t1")
			assert.Equal(t, viewJSON(t, c.Store().View()), viewJSON(t, got), "the attached view agrees")
		})
	}
}
