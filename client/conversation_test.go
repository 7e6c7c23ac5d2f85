package client_test

import (
	"encoding/json"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// TestClientConformanceVectors runs every client history vector
// (testdata/conformance/client) through a Client served by agenttest, over
// SSE and WebSocket: the client starts from the vector's history, and its
// final view, the input the agent received and its next inputs (with and
// without every pending interrupt resolved) must be the reference client's.
func TestClientConformanceVectors(t *testing.T) {
	vecs, err := conformance.LoadClient()
	require.NoError(t, err)
	for _, vec := range vecs {
		t.Run(vec.Name, func(t *testing.T) {
			input, _, err := event.DecodeInput(vec.Input())
			require.NoError(t, err)
			srv := agenttest.NewServer(agenttest.Frames(vec.Events...), nil)
			defer srv.Close()
			for name, mk := range transports(srv) {
				c := mk()
				v, err := c.Run(t.Context(), input)
				c.Close()
				if err != nil {
					// A stream cut before its run finished (a vector of
					// category 01): the view keeps what was folded.
					var te *transport.Error
					require.ErrorAs(t, err, &te, name)
				}
				msgs, err := json.Marshal(v.MessageList())
				require.NoError(t, err)
				pending, err := json.Marshal(v.PendingInterrupts())
				require.NoError(t, err)
				for _, d := range vec.CheckFinal(msgs, v.State(), pending) {
					t.Errorf("%s: %s", name, d)
				}

				ins := srv.Inputs()
				sent, err := json.Marshal(ins[len(ins)-1].Messages)
				require.NoError(t, err)
				assert.JSONEq(t, string(vec.Expect.SentInput.Messages), string(sent), "%s: the agent receives the history", name)

				next := client.NextInput(v, &client.InputOptions{RunID: conformance.ClientNextRunID})
				checkInput(t, name+": nextInput", vec.Expect.NextInput, next)
				resumed := client.NextInput(v, &client.InputOptions{
					RunID: conformance.ClientNextRunID, Answer: client.ResolveAll(json.RawMessage(conformance.ClientPayload)),
				})
				if vec.Resumed() {
					checkInput(t, name+": nextInputResumed", vec.Expect.NextInputResumed, resumed)
					var ie *client.InterruptError
					require.ErrorAs(t, client.CheckResume(v, next, time.Now()), &ie, "%s: the reference refuses a run that leaves interrupts pending", name)
					assert.Len(t, ie.Unanswered, len(v.PendingInterrupts()))
				} else {
					checkInput(t, name+": nextInput with nothing to answer", vec.Expect.NextInput, resumed)
				}
				assert.NoError(t, client.CheckResume(v, resumed, time.Now()), name)
			}
		})
	}
}

func checkInput(t *testing.T, what string, want json.RawMessage, in *event.RunAgentInput) {
	t.Helper()
	got, err := json.Marshal(in)
	require.NoError(t, err)
	for _, d := range conformance.CheckInput(what, want, got) {
		t.Error(d)
	}
}

// TestConversation holds a conversation with the demo swarm through one
// Client: the question is in the view before the agent says anything, the
// interrupt must be answered before the next run is sent, and the answer
// continues the same thread with the history carried over.
func TestConversation(t *testing.T) {
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()

	question := event.Message{ID: "q1", Role: event.RoleUser, Content: json.RawMessage(`"Which vendor?"`)}
	v, err := c.Run(t.Context(), &event.RunAgentInput{ThreadID: "th", Messages: []event.Message{question}})
	require.NoError(t, err)
	first := v.MessageList()
	require.NotEmpty(t, first)
	assert.Equal(t, "q1", first[0].ID, "the user's question comes first")
	run, _ := v.LastRun()
	require.Equal(t, view.RunInterrupted, run.Status)
	pending := v.PendingInterrupts()
	require.Len(t, pending, 1)

	// Continuing without an answer is refused: nothing sent, nothing lost.
	_, err = c.Continue(t.Context(), nil)
	var ie *client.InterruptError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, []string{pending[0].ID}, ie.Unanswered)
	assert.Contains(t, err.Error(), pending[0].ID)
	assert.Len(t, srv.Inputs(), 1)
	assert.Same(t, v, c.Store().View())

	follow := event.Message{ID: "q2", Role: event.RoleUser, Content: json.RawMessage(`"Go ahead."`)}
	v, err = c.Continue(t.Context(), &client.InputOptions{
		Messages: []event.Message{follow},
		Answer:   client.ResolveAll(json.RawMessage(`{"approved":true}`)),
	})
	require.NoError(t, err)
	ins := srv.Inputs()
	require.Len(t, ins, 2)
	assert.Equal(t, "th", ins[1].ThreadID, "the same thread")
	require.Len(t, ins[1].Resume, 1)
	assert.Equal(t, pending[0].ID, ins[1].Resume[0].InterruptID)
	sentIDs := map[string]bool{}
	for _, m := range ins[1].Messages {
		sentIDs[m.ID] = true
		assert.NotEqual(t, event.RoleActivity, m.Role, "activity is never sent")
	}
	assert.True(t, sentIDs["q1"] && sentIDs["q2"], "the history and the new message are sent")

	runs := v.Runs()
	require.Len(t, runs, 2)
	assert.Equal(t, view.RunFinished, runs[1].Status)
	assert.Empty(t, v.PendingInterrupts())
	assert.Zero(t, v.ViolationCount(), "%v", v.Diagnostics())
	// The first run's messages keep their order (the second run's tool
	// results go in after the calls they answer), and the follow-up comes
	// after all of them.
	pos := map[string]int{}
	for i, m := range v.MessageList() {
		pos[m.ID] = i
	}
	for i, m := range first {
		require.Contains(t, pos, m.ID)
		if i > 0 {
			assert.Less(t, pos[first[i-1].ID], pos[m.ID], "%s stays after %s", m.ID, first[i-1].ID)
		}
		assert.Less(t, pos[m.ID], pos["q2"], "the follow-up comes after %s", m.ID)
	}
	assert.Equal(t, "researcher", v.Invocation(*pending[0].Subagent).Name())
	assert.Equal(t, view.Finished, v.Invocation(*pending[0].Subagent).Status(), "the suspended researcher continued")
}

func TestCheckResume(t *testing.T) {
	past, future := "2000-01-01T00:00:00Z", "2999-01-01T00:00:00Z"
	evs := []event.Event{
		&event.RunStarted{ThreadID: "th", RunID: "r1"},
		&event.RunFinished{ThreadID: "th", RunID: "r1", Outcome: &event.RunFinishedOutcome{Type: event.OutcomeInterrupt,
			Interrupts: []event.Interrupt{{ID: "a", Reason: "confirmation"}, {ID: "old", Reason: "confirmation", ExpiresAt: &past},
				{ID: "later", Reason: "confirmation", ExpiresAt: &future}}}},
	}
	v, err := reducer.Input(view.New(), &event.RunAgentInput{ThreadID: "th"})
	require.NoError(t, err)
	for _, e := range evs {
		v, err = reducer.Reduce(v, e)
		require.NoError(t, err)
	}
	v = reducer.End(v, nil)
	res := func(id, status string) event.ResumeEntry { return event.ResumeEntry{InterruptID: id, Status: status} }
	all := func(extra ...event.ResumeEntry) []event.ResumeEntry {
		return append([]event.ResumeEntry{res("a", "resolved"), res("old", "cancelled"), res("later", "resolved")}, extra...)
	}
	tests := []struct {
		name   string
		thread string
		resume []event.ResumeEntry
		want   *client.InterruptError
	}{
		{"all answered, the expired one cancelled", "th", all(), nil},
		{"none answered", "th", nil, &client.InterruptError{Unanswered: []string{"a", "old", "later"}}},
		{"expired resolved", "th", []event.ResumeEntry{res("a", "resolved"), res("old", "resolved"), res("later", "cancelled")},
			&client.InterruptError{Expired: []string{"old"}}},
		{"not pending", "th", all(res("zzz", "resolved")), &client.InterruptError{NotPending: []string{"zzz"}}},
		{"answered twice", "th", all(res("a", "cancelled")), &client.InterruptError{Repeated: []string{"a"}}},
		{"bad status", "th", []event.ResumeEntry{res("a", "maybe"), res("old", "cancelled"), res("later", "resolved")},
			&client.InterruptError{BadStatus: []string{"a"}}},
		{"another thread: its interrupts are not these", "other", []event.ResumeEntry{res("zzz", "resolved")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := client.CheckResume(v, &event.RunAgentInput{ThreadID: tc.thread, Resume: tc.resume}, time.Now())
			if tc.want == nil {
				assert.NoError(t, err)
				return
			}
			var ie *client.InterruptError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tc.want, ie)
			for _, ids := range [][]string{tc.want.Unanswered, tc.want.Expired, tc.want.NotPending, tc.want.Repeated, tc.want.BadStatus} {
				for _, id := range ids {
					assert.Contains(t, err.Error(), id)
				}
			}
		})
	}

	// A nil input (Run's new thread) answers nothing: on a view of a
	// thread with nothing pending, nothing is missing.
	assert.NoError(t, client.CheckResume(view.New(), nil, time.Now()))

	// A client that has seen no run of the thread cannot know what is
	// pending: it checks only the statuses.
	assert.NoError(t, client.CheckResume(view.New(), &event.RunAgentInput{ThreadID: "th", Resume: []event.ResumeEntry{res("x", "resolved")}}, time.Now()))
}

// TestRunRefusesBadHistory: a history holding one id twice is refused before
// anything is sent, with an error naming the message.
func TestRunRefusesBadHistory(t *testing.T) {
	srv := agenttest.NewServer(agenttest.Events(finish(openStream())...), nil)
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()
	before := c.Store().View()
	m := event.Message{ID: "dup", Role: event.RoleUser, Content: json.RawMessage(`"x"`)}
	_, err := c.Run(t.Context(), &event.RunAgentInput{Messages: []event.Message{m, m}})
	var ie *reducer.InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "dup", ie.MessageID)
	assert.True(t, strings.Contains(err.Error(), "'dup'"), err.Error())
	assert.Empty(t, srv.Inputs(), "nothing was sent")
	assert.Same(t, before, c.Store().View())
}

func TestRunUsage(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	srv := agenttest.NewServer(agenttest.Events(
		&event.RunStarted{ThreadID: "th", RunID: "r1"},
		&event.RunFinished{ThreadID: "th", RunID: "r1", Usage: []event.TokenUsage{
			{Model: s("a"), InputTokens: n(10), OutputTokens: n(5), TotalTokens: n(15)},
			{Model: s("b"), InputTokens: n(1), OutputTokens: n(2), ReasoningTokens: n(1)},
		}},
	), nil)
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()
	v, err := c.Run(t.Context(), nil)
	require.NoError(t, err)
	run, _ := v.LastRun()
	require.Len(t, run.Usage, 2)
	assert.Equal(t, view.Tokens{Reported: true, Input: 11, Output: 7, Total: 18, Reasoning: 1}, run.Tokens())
	b, err := json.Marshal(v)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"usage":[{"model":"a","inputTokens":10,"outputTokens":5,"totalTokens":15},{"model":"b","inputTokens":1,"outputTokens":2,"reasoningTokens":1}]`)
}

// TestClientOutlivesABrokenRun: a run cut before it finished does not stop
// the Client: the next run on the thread starts a new stream from the
// history, and ends as its own stream says.
func TestClientOutlivesABrokenRun(t *testing.T) {
	srv := agenttest.NewServer(agenttest.ScriptFunc(func(in *event.RunAgentInput) iter.Seq[json.RawMessage] {
		frames := []json.RawMessage{
			json.RawMessage(`{"type":"RUN_STARTED","threadId":"th","runId":"` + in.RunID + `"}`),
			json.RawMessage(`{"type":"TEXT_MESSAGE_START","messageId":"m-` + in.RunID + `","role":"assistant"}`),
		}
		if in.RunID == "r2" {
			frames = append(frames,
				json.RawMessage(`{"type":"TEXT_MESSAGE_END","messageId":"m-r2"}`),
				json.RawMessage(`{"type":"RUN_FINISHED","threadId":"th","runId":"r2"}`))
		}
		return agenttest.Frames(frames...).Frames(in)
	}), nil)
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()
	q := event.Message{ID: "q1", Role: event.RoleUser, Content: json.RawMessage(`"hi"`)}
	v, err := c.Run(t.Context(), &event.RunAgentInput{ThreadID: "th", RunID: "r1", Messages: []event.Message{q}})
	var te *transport.Error
	require.ErrorAs(t, err, &te, "the first stream is cut")
	run, _ := v.LastRun()
	require.Equal(t, view.RunFailed, run.Status)

	v, err = c.Continue(t.Context(), &client.InputOptions{RunID: "r2"})
	require.NoError(t, err)
	runs := v.Runs()
	require.Len(t, runs, 2)
	assert.Equal(t, view.RunFailed, runs[0].Status)
	assert.Equal(t, view.RunFinished, runs[1].Status)
	assert.Equal(t, []string{"q1", "m-r1", "m-r2"}, messageIDs(v))
	assert.Zero(t, v.ViolationCount(), "%v", v.Diagnostics())
	st, _ := v.MessageStatus("m-r2")
	assert.Equal(t, view.EntityClosed, st)
}

func messageIDs(v *view.View) []string {
	var out []string
	for m := range v.Messages() {
		out = append(out, m.ID)
	}
	return out
}

func TestUserMessage(t *testing.T) {
	a, b := client.UserMessage(`say "hi" <now>`), client.UserMessage("")
	assert.Equal(t, event.RoleUser, a.Role)
	assert.JSONEq(t, `"say \"hi\" <now>"`, string(a.Content))
	assert.JSONEq(t, `""`, string(b.Content))
	assert.NotEqual(t, a.ID, b.ID, "each message has an id of its own")
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, a.ID)
}

// TestNextInputSharesNothing: NextInput's doc says the input shares nothing
// with opts; a front end that reuses its buffers after building the input
// must not change what is sent.
func TestNextInputSharesNothing(t *testing.T) {
	opts := &client.InputOptions{
		Messages: []event.Message{{ID: "u1", Role: event.RoleUser, Content: json.RawMessage(`"hello"`),
			Name: event.Ptr("ann"), Metadata: json.RawMessage(`{"k":1}`)},
			{ID: "a1", Role: event.RoleAssistant, ToolCalls: []event.ToolCall{{ID: "c1", Type: "function",
				Function: event.FunctionCall{Name: "f", Arguments: "{}"}, Metadata: json.RawMessage(`{"m":2}`)}}}},
		Tools: []event.Tool{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}},
	}
	in := client.NextInput(view.New(), opts)
	before, err := json.Marshal(in)
	require.NoError(t, err)
	// The caller reuses everything it passed.
	opts.Messages[0].Content[1] = 'j'
	*opts.Messages[0].Name = "bob"
	opts.Messages[0].Metadata[2] = 'x'
	opts.Messages[1].ToolCalls[0].ID = "c2"
	opts.Messages[1].ToolCalls[0].Metadata[2] = 'x'
	opts.Tools[0].Parameters[2] = 'x'
	after, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after))
}
