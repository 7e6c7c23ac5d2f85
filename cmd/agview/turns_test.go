package main

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/tui"
	"github.com/agview/agview/view"
)

// TestConversationTurns holds the demo's conversation through the TUI's
// Conversation as watch wires it: each turn sends the next input the client
// builds from its view (history, state, the user's message, the answers),
// and the runs fold into the one store.
func TestConversationTurns(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 2}), nil)
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()
	conv := &conversation{c: c}
	var _ tui.Conversation = conv

	require.NoError(t, conv.run(t.Context(), agenttest.SwarmInput(nil)))
	pending := c.Store().View().PendingInterrupts()
	require.Len(t, pending, 1)

	// A message while the approval is pending is refused before anything
	// is sent, and the run's outcome stands.
	err := conv.Continue(t.Context(), tui.Turn{Message: "Anything new?"})
	var refused *client.InterruptError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, []string{pending[0].ID}, refused.Unanswered)
	assert.NoError(t, conv.lastErr(), "a refused turn is not a failed run")
	assert.Len(t, srv.Inputs(), 1, "nothing was sent")

	answer := event.ResumeEntry{InterruptID: pending[0].ID, Status: event.ResumeResolved, Payload: json.RawMessage(`{"approved":false}`)}
	require.NoError(t, conv.Continue(t.Context(), tui.Turn{Answers: []event.ResumeEntry{answer}}))
	require.NoError(t, conv.Continue(t.Context(), tui.Turn{Message: "What would change your mind?"}))
	assert.NoError(t, conv.lastErr())

	inputs := srv.Inputs()
	require.Len(t, inputs, 3)
	assert.Equal(t, []event.ResumeEntry{answer}, inputs[1].Resume, "the answer as given")
	assert.Equal(t, inputs[0].ThreadID, inputs[1].ThreadID, "the same thread")
	assert.Equal(t, inputs[0].ThreadID, inputs[2].ThreadID, "the same thread")
	assert.Empty(t, inputs[2].Resume, "nothing left to answer")
	msgs := inputs[2].Messages
	require.NotEmpty(t, msgs)
	last := msgs[len(msgs)-1]
	assert.Equal(t, event.RoleUser, last.Role)
	assert.JSONEq(t, `"What would change your mind?"`, string(last.Content))
	assert.Equal(t, "user-1", msgs[0].ID, "the history comes first, the question that opened the thread at its head")

	v := c.Store().View()
	runs := v.Runs()
	require.Len(t, runs, 3)
	for _, r := range runs[1:] {
		assert.Equal(t, view.RunFinished, r.Status)
	}
	assert.Zero(t, v.ViolationCount())
	assert.Equal(t, exitOK, (&env{stderr: io.Discard}).runExit(v, conv.lastErr()))
}
