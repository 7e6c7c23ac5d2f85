package agenttest_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// foldAll folds events onto v, requiring each to be accepted.
func foldAll(t *testing.T, v *view.View, events []event.Event) *view.View {
	t.Helper()
	for i, e := range events {
		var err error
		v, err = reducer.Fold(v, e)
		require.NoError(t, err, "event %d (%s) is accepted", i, e.EventType())
	}
	return v
}

// nextInput is the input a client sends to continue v with a user message:
// the history (activity left out, as the reference client does) and text.
func nextInput(v *view.View, runID, text string) *event.RunAgentInput {
	in := &event.RunAgentInput{ThreadID: "thread-demo", RunID: runID, State: v.State()}
	for m := range v.Messages() {
		if m.Role != event.RoleActivity {
			in.Messages = append(in.Messages, m)
		}
	}
	content, _ := json.Marshal(text)
	in.Messages = append(in.Messages, event.Message{ID: "user-" + runID, Role: event.RoleUser, Content: content})
	return in
}

// TestSwarmFollowUp holds a conversation with the swarm: the first run, its
// approval answered, then two follow-up questions. Every run folds into one
// view without a diagnostic, each follow-up answers its question after it,
// and a follow-up while the approval is unanswered ends with RUN_ERROR.
func TestSwarmFollowUp(t *testing.T) {
	t.Parallel()
	for _, tc := range swarmConfigs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := tc.cfg
			v := foldAll(t, view.New(), agenttest.SwarmEvents(cfg))

			t.Run("interrupt still pending", func(t *testing.T) {
				evs := agenttest.SwarmFollowUpEvents(cfg, nextInput(v, "r-early", "Any news?"))
				require.Len(t, evs, 2, "RUN_STARTED and RUN_ERROR")
				runErr, ok := evs[1].(*event.RunError)
				require.True(t, ok, "the run errors, got %T", evs[1])
				assert.Contains(t, runErr.Message, "pending interrupt")
				assert.Contains(t, runErr.Message, v.PendingInterrupts()[0].ID, "the error names the interrupt")
			})

			v = foldAll(t, v, agenttest.SwarmResumeEvents(cfg, true))
			for i, q := range []string{"What about the winters?", "And the grid?"} {
				in := nextInput(v, fmt.Sprintf("r-follow-%d", i), q)
				evs := agenttest.SwarmFollowUpEvents(cfg, in)
				require.NotEmpty(t, evs, "a follow-up after the report")
				v = foldAll(t, v, evs)
				assert.Empty(t, v.Diagnostics(), "no violation and no warning")
				r, ok := v.LastRun()
				require.True(t, ok)
				assert.Equal(t, view.RunFinished, r.Status)
				if cfg == nil || cfg.RunID == "" {
					assert.Equal(t, in.RunID, r.RunID, "the run takes the input's id")
				}

				msgs := v.MessageList()
				last := msgs[len(msgs)-1]
				require.GreaterOrEqual(t, len(msgs), 2)
				assert.Equal(t, event.RoleAssistant, last.Role, "the answer comes last")
				assert.Contains(t, string(last.Content), q, "the answer quotes the question")
				var userAt int
				for j, m := range msgs {
					if m.ID == "user-"+in.RunID {
						userAt = j
					}
				}
				assert.Greater(t, len(msgs)-1, userAt, "the question is in the view, before its answer")
				assert.Nil(t, msgs[userAt].Subagent, "the parent agent's thread holds the question")
				tokens := r.Tokens()
				assert.True(t, tokens.Reported, "the follow-up reports its usage")
				assert.Positive(t, tokens.Input)
				assert.Positive(t, tokens.Output)
				assert.Equal(t, tokens.Input+tokens.Output, tokens.Total)
				var state map[string]any
				require.NoError(t, json.Unmarshal(v.State(), &state))
				assert.Equal(t, q, state["lastQuestion"])
			}
			assert.Len(t, v.Runs(), 4)
		})
	}
}

// TestSwarmScriptFollowsUp serves the swarm and checks which run each input
// gets: a follow-up only when the history holds the report and ends with a
// user message.
func TestSwarmScriptFollowsUp(t *testing.T) {
	t.Parallel()
	cfg := &agenttest.SwarmConfig{Seed: 1}
	first := foldAll(t, view.New(), agenttest.SwarmEvents(cfg))
	done := foldAll(t, first, agenttest.SwarmResumeEvents(cfg, false))
	withAnswer := nextInput(done, "r-3", "Thanks!")
	noUserLast := nextInput(done, "r-4", "x")
	noUserLast.Messages = noUserLast.Messages[:len(noUserLast.Messages)-1]
	cases := []struct {
		name  string
		input *event.RunAgentInput
		last  event.Type
		n     int // events; 0: as many as the first run
	}{
		{"a follow-up", withAnswer, event.TypeRunFinished, len(agenttest.SwarmFollowUpEvents(cfg, withAnswer))},
		{"history without a new question", noUserLast, event.TypeRunFinished, 0},
		{"a question without the report", agenttest.SwarmInput(cfg), event.TypeRunFinished, 0},
		{"a question while the approval is pending", nextInput(first, "r-5", "?"), event.TypeRunError, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []event.Event
			for f := range agenttest.Swarm(cfg).Frames(tc.input) {
				e, err := event.Decode(f)
				require.NoError(t, err)
				got = append(got, e)
			}
			n := tc.n
			if n == 0 {
				n = len(agenttest.SwarmEvents(cfg))
			}
			require.Len(t, got, n)
			assert.Equal(t, tc.last, got[len(got)-1].EventType())
		})
	}
	assert.Nil(t, agenttest.SwarmFollowUpEvents(cfg, noUserLast), "not a follow-up")
	assert.Nil(t, agenttest.SwarmFollowUpEvents(cfg, nil), "no input")
}

// TestSwarmInput checks the input the swarm starts from: its ids and the
// question the first run echoes.
func TestSwarmInput(t *testing.T) {
	t.Parallel()
	in := agenttest.SwarmInput(&agenttest.SwarmConfig{Seed: 2, ThreadID: "th", RunID: "r"})
	assert.Equal(t, "th", in.ThreadID)
	assert.Equal(t, "r", in.RunID)
	require.Len(t, in.Messages, 1)
	start, ok := agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 2})[0].(*event.RunStarted)
	require.True(t, ok)
	require.NotNil(t, start.Input)
	assert.Equal(t, start.Input.Messages, in.Messages, "the first run echoes the question the input holds")
	assert.Equal(t, "thread-demo", agenttest.SwarmInput(nil).ThreadID, "the default thread")
}
