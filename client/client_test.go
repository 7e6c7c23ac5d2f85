package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func s(v string) *string { return &v }

// openStream is a run that opens a subagent with an open message and a step,
// then stops: what a cut or broken transport leaves behind.
func openStream() []event.Event {
	return []event.Event{
		&event.RunStarted{ThreadID: "t1", RunID: "r1"},
		&event.SubagentStarted{ID: "sub-1", Name: "researcher"},
		&event.TextMessageStart{Attribution: event.By("sub-1"), MessageID: "m1"},
		&event.TextMessageContent{Attribution: event.By("sub-1"), MessageID: "m1", Delta: "half a "},
		&event.StepStarted{Attribution: event.By("sub-1"), StepName: "search"},
		&event.TextMessageContent{Attribution: event.By("sub-1"), MessageID: "m1", Delta: "thought"},
	}
}

func finish(evs []event.Event) []event.Event {
	return append(evs,
		&event.StepFinished{Attribution: event.By("sub-1"), StepName: "search"},
		&event.TextMessageEnd{MessageID: "m1"},
		&event.SubagentFinished{ID: "sub-1"},
		&event.RunFinished{ThreadID: "t1", RunID: "r1"},
	)
}

func transports(srv *agenttest.Server) map[string]func(...client.Option) *client.Client {
	return map[string]func(...client.Option) *client.Client{
		"sse": func(o ...client.Option) *client.Client { return client.New(srv.URL(), o...) },
		"websocket": func(o ...client.Option) *client.Client {
			return client.New(srv.WSURL(), append(o, client.WithWebSocket())...)
		},
	}
}

func TestRunFinishes(t *testing.T) {
	srv := agenttest.NewServer(agenttest.Events(finish(openStream())...), nil)
	defer srv.Close()
	for name, mk := range transports(srv) {
		t.Run(name, func(t *testing.T) {
			c := mk()
			defer c.Close()
			v, err := c.Run(t.Context(), &event.RunAgentInput{ThreadID: "t1", RunID: "r1"})
			require.NoError(t, err)
			run, ok := v.LastRun()
			require.True(t, ok)
			assert.Equal(t, view.RunFinished, run.Status)
			inv := v.Invocation("sub-1")
			require.NotNil(t, inv)
			assert.Equal(t, view.Finished, inv.Status())
			msgs := v.MessageList()
			require.Len(t, msgs, 1)
			assert.JSONEq(t, `"half a thought"`, string(msgs[0].Content))
			assert.Equal(t, v, c.Store().View(), "Run returns the store's latest view")
		})
	}
	inputs := srv.Inputs()
	require.Len(t, inputs, 2)
	for _, in := range inputs {
		assert.Equal(t, "t1", in.ThreadID)
		assert.NotNil(t, in.Messages, "messages are sent as []")
	}
}

// TestCutTransportAbandons: a transport cut mid-run fails the run, abandons
// the open invocation and its open entities, and keeps everything folded (G11).
func TestCutTransportAbandons(t *testing.T) {
	faults := map[string]agenttest.Fault{
		"cut":       agenttest.CutAfter(len(openStream())),
		"garbage":   agenttest.GarbageAfter(len(openStream()), []byte("\x00\x01not json")),
		"oversized": agenttest.OversizeAfter(len(openStream()), 64<<10),
	}
	for fname, fault := range faults {
		srv := agenttest.NewServer(agenttest.Events(finish(openStream())...), &agenttest.Options{Fault: fault})
		for tname, mk := range transports(srv) {
			t.Run(fname+"/"+tname, func(t *testing.T) {
				c := mk(client.WithTransportOptions(&transport.Options{MaxEventBytes: 32 << 10}))
				defer c.Close()
				v, err := c.Run(t.Context(), nil)
				require.Error(t, err)
				var te *transport.Error
				if fname != "garbage" || tname == "sse" {
					// Over WebSocket, garbage is one undecodable message (recorded,
					// the stream goes on) and then the cut; over SSE it breaks framing.
					assert.True(t, errors.As(err, &te), "want a *transport.Error, got %T %v", err, err)
				}
				run, ok := v.LastRun()
				require.True(t, ok)
				assert.Equal(t, view.RunFailed, run.Status, "run status")
				require.NotNil(t, run.Error)
				inv := v.Invocation("sub-1")
				require.NotNil(t, inv)
				assert.Equal(t, view.Abandoned, inv.Status())
				msgs := v.MessageList()
				require.Len(t, msgs, 1, "what was folded before the break is kept")
				assert.JSONEq(t, `"half a thought"`, string(msgs[0].Content))
				for _, st := range inv.Steps() {
					assert.Equal(t, view.EntityAbandoned, st.Status)
				}
			})
		}
		srv.Close()
	}
}

func TestServerErrorStatus(t *testing.T) {
	srv := agenttest.NewServer(agenttest.Events(finish(openStream())...), &agenttest.Options{Fault: agenttest.Status(500, "model overloaded")})
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()
	_, err := c.Run(t.Context(), nil)
	var te *transport.Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, 500, te.Status)
	assert.Contains(t, te.Body, "model overloaded")
}

// TestCancelMarksCancelled: cancelling the context closes the request and
// marks the run cancelled, never finished.
func TestCancelMarksCancelled(t *testing.T) {
	srv := agenttest.NewServer(agenttest.Events(finish(openStream())...), &agenttest.Options{Delay: 50e6})
	defer srv.Close()
	for name, mk := range transports(srv) {
		t.Run(name, func(t *testing.T) {
			c := mk()
			defer c.Close()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan struct{})
			unsub := c.Store().Subscribe(func(v *view.View) {
				if v.Invocation("sub-1") != nil {
					select {
					case <-done:
					default:
						close(done)
						cancel()
					}
				}
			})
			defer unsub()
			v, err := c.Run(ctx, nil)
			require.ErrorIs(t, err, context.Canceled)
			run, ok := v.LastRun()
			require.True(t, ok)
			assert.Equal(t, view.RunCancelled, run.Status)
			assert.NotEqual(t, view.Finished, v.Invocation("sub-1").Status())
		})
	}
}

func TestStopOnViolation(t *testing.T) {
	evs := []event.Event{
		&event.RunStarted{ThreadID: "t1", RunID: "r1"},
		&event.TextMessageStart{Attribution: event.By("a"), MessageID: "m1"},
		&event.TextMessageContent{Attribution: event.By("b"), MessageID: "m1", Delta: "hijack"},
		&event.TextMessageEnd{MessageID: "m1"},
		&event.RunFinished{ThreadID: "t1", RunID: "r1"},
	}
	srv := agenttest.NewServer(agenttest.Events(evs...), nil)
	defer srv.Close()

	c := client.New(srv.URL())
	v, err := c.Run(t.Context(), nil)
	c.Close()
	require.NoError(t, err, "by default a violation is recorded and the run goes on")
	assert.Equal(t, 1, v.ViolationCount())
	run, _ := v.LastRun()
	assert.Equal(t, view.RunFinished, run.Status)

	c = client.New(srv.URL(), client.WithStopOnViolation())
	defer c.Close()
	v, err = c.Run(t.Context(), nil)
	var viol *reducer.Violation
	require.ErrorAs(t, err, &viol)
	assert.Equal(t, "R15", viol.Rule)
	assert.Equal(t, 2, viol.Index)
	run, _ = v.LastRun()
	assert.Equal(t, view.RunFailed, run.Status)
	assert.Equal(t, 3, v.EventCount(), "nothing after the violation is read")
}

// TestConformanceVectorsOverClient replays every vector through the client
// over SSE and WebSocket and compares with folding the same frames in memory.
func TestConformanceVectorsOverClient(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	for _, vec := range vecs {
		want := view.New()
		for _, raw := range vec.Events {
			want, _ = reducer.FoldJSON(want, raw)
		}
		srv := agenttest.NewServer(agenttest.Frames(vec.Events...), nil)
		for name, mk := range transports(srv) {
			c := mk()
			got, _ := c.Run(t.Context(), nil)
			c.Close()
			assert.Equal(t, want.EventCount(), got.EventCount(), "%s over %s: events", vec.Name, name)
			assert.Equal(t, want.ViolationCount(), got.ViolationCount(), "%s over %s: violations", vec.Name, name)
			wm, _ := json.Marshal(want.MessageList())
			gm, _ := json.Marshal(got.MessageList())
			assert.JSONEq(t, string(wm), string(gm), "%s over %s: messages", vec.Name, name)
			assert.JSONEq(t, string(want.State()), string(got.State()), "%s over %s: state", vec.Name, name)
		}
		srv.Close()
	}
}

func TestNextInput(t *testing.T) {
	evs := []event.Event{
		&event.RunStarted{ThreadID: "t1", RunID: "r1"},
		&event.StateSnapshot{Snapshot: json.RawMessage(`{"n":1}`)},
		&event.SubagentStarted{ID: "sub-1", Name: "approver"},
		&event.TextMessageStart{Attribution: event.By("sub-1"), MessageID: "m1"},
		&event.TextMessageContent{MessageID: "m1", Delta: "may I?"},
		&event.TextMessageEnd{MessageID: "m1"},
		&event.ActivitySnapshot{Attribution: event.By("sub-1"), MessageID: "a1", ActivityType: "progress", Content: json.RawMessage(`{"p":1}`)},
		&event.SubagentFinished{ID: "sub-1", Outcome: &event.SubagentOutcome{Type: event.SubagentSuspended, InterruptIDs: []string{"int-1"}}},
		&event.RunFinished{ThreadID: "t1", RunID: "r1", Outcome: &event.RunFinishedOutcome{Type: event.OutcomeInterrupt,
			Interrupts: []event.Interrupt{{ID: "int-1", Reason: "confirmation", Subagent: s("sub-1")}, {ID: "int-2", Reason: "input_required"}}}},
	}
	srv := agenttest.NewServer(agenttest.Events(evs...), nil)
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()
	v, err := c.Run(t.Context(), &event.RunAgentInput{ThreadID: "client-thread"})
	require.NoError(t, err)

	in := client.NextInput(v, &client.InputOptions{
		RunID:    "r2",
		Messages: []event.Message{{ID: "u2", Role: event.RoleUser, Content: json.RawMessage(`"yes"`)}},
		Answer: func(it event.Interrupt) *event.ResumeEntry {
			if it.ID == "int-1" {
				return &event.ResumeEntry{Status: event.ResumeResolved, Payload: json.RawMessage(`{"ok":true}`)}
			}
			return nil
		},
	})
	assert.Equal(t, "client-thread", in.ThreadID, "the client's own thread, not the stream's")
	assert.Equal(t, "r2", in.RunID)
	require.NotNil(t, in.ProtocolVersion)
	assert.Equal(t, "1.0", *in.ProtocolVersion)
	assert.JSONEq(t, `{}`, string(in.ForwardedProps))
	assert.JSONEq(t, `{"n":1}`, string(in.State))
	require.Len(t, in.Messages, 2, "history without the activity message, then the new message")
	assert.Equal(t, "m1", in.Messages[0].ID)
	require.NotNil(t, in.Messages[0].Subagent)
	assert.Equal(t, "sub-1", *in.Messages[0].Subagent, "history keeps its attribution")
	assert.Equal(t, "u2", in.Messages[1].ID)
	require.Len(t, in.Resume, 1, "int-2 is left unanswered")
	assert.Equal(t, event.ResumeEntry{InterruptID: "int-1", Status: event.ResumeResolved, Payload: json.RawMessage(`{"ok":true}`)}, in.Resume[0])

	// An input that leaves int-2 unanswered is refused before it is sent.
	_, err = c.Run(t.Context(), in)
	var ie *client.InterruptError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, []string{"int-2"}, ie.Unanswered)
	assert.Len(t, srv.Inputs(), 1, "nothing was sent")
	assert.Same(t, v, c.Store().View(), "the view is unchanged")

	in.Resume = append(in.Resume, event.ResumeEntry{InterruptID: "int-2", Status: event.ResumeCancelled})
	// The input encodes as the wire form, and the next run through the client
	// carries it to the agent.
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"subagentRunId":"sub-1"`)
	_, err = c.Run(t.Context(), in)
	require.NoError(t, err)
	got := srv.Inputs()
	require.Len(t, got, 2)
	assert.Equal(t, "r2", got[1].RunID)
	assert.Len(t, got[1].Resume, 2)
}
