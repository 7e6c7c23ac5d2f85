package integration_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
	"github.com/agview/agview/viewtest"
)

// Every test closes its agent and its client: nothing may be left running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// script is the agent under test: a supervisor (the parent agent) that
// delegates to a researcher through a tool call; the researcher has a
// fact-checker of its own; both write to the run state.
func script() agenttest.Script {
	by := event.By
	return agenttest.Events(
		&event.RunStarted{ThreadID: "thread-1", RunID: "run-1"},
		&event.StateSnapshot{Snapshot: json.RawMessage(`{"phase":"planning","findings":[]}`)},

		// The supervisor plans and calls its delegate tool.
		&event.TextMessageStart{MessageID: "plan", Role: event.Ptr(event.RoleAssistant)},
		&event.TextMessageContent{MessageID: "plan", Delta: "I'll ask a researcher "},
		&event.TextMessageContent{MessageID: "plan", Delta: "about winter range."},
		&event.TextMessageEnd{MessageID: "plan"},
		&event.ToolCallStart{ToolCallID: "call-1", ToolCallName: "delegate", ParentMessageID: event.Ptr("plan")},
		&event.ToolCallArgs{ToolCallID: "call-1", Delta: `{"topic":"winter range"}`},
		&event.ToolCallEnd{ToolCallID: "call-1"},

		// The tool call spawns the researcher.
		&event.SubagentStarted{ID: "researcher-1", Name: "researcher", Description: event.Ptr("Looks things up"),
			ParentToolCallID: event.Ptr("call-1"), ParentMessageID: event.Ptr("plan")},
		&event.StepStarted{Attribution: by("researcher-1"), StepName: "search"},
		&event.TextMessageStart{Attribution: by("researcher-1"), MessageID: "notes"},
		&event.TextMessageContent{Attribution: by("researcher-1"), MessageID: "notes", Delta: "Buses lose about a third of their range in winter."},
		&event.TextMessageEnd{Attribution: by("researcher-1"), MessageID: "notes"},
		&event.StepFinished{Attribution: by("researcher-1"), StepName: "search"},
		&event.StateDelta{Attribution: by("researcher-1"),
			Delta: json.RawMessage(`[{"op":"add","path":"/findings/-","value":"winter range -33%"}]`)},

		// The researcher's own subagent, nested under it.
		&event.SubagentStarted{ID: "checker-1", Name: "fact-checker", ParentSubagentRunID: event.Ptr("researcher-1")},
		&event.TextMessageStart{Attribution: by("checker-1"), MessageID: "check"},
		&event.TextMessageContent{Attribution: by("checker-1"), MessageID: "check", Delta: "Confirmed by two operators."},
		&event.TextMessageEnd{Attribution: by("checker-1"), MessageID: "check"},
		&event.SubagentFinished{ID: "checker-1"},
		&event.SubagentFinished{ID: "researcher-1", Result: json.RawMessage(`{"finding":"winter range -33%"}`)},

		// The supervisor gets the tool result and answers.
		&event.ToolCallResult{MessageID: "result-1", ToolCallID: "call-1", Content: json.RawMessage(`"winter range -33%"`)},
		&event.StateDelta{Delta: json.RawMessage(`[{"op":"replace","path":"/phase","value":"done"}]`)},
		&event.TextMessageStart{MessageID: "answer", Role: event.Ptr(event.RoleAssistant)},
		&event.TextMessageContent{MessageID: "answer", Delta: "Plan for a third more buses in winter."},
		&event.TextMessageEnd{MessageID: "answer"},
		&event.RunFinished{ThreadID: "thread-1", RunID: "run-1"},
	)
}

// TestScriptedRun runs the script over SSE and asserts the final view: its
// parts with viewtest's assertions, then the whole against a golden file.
func TestScriptedRun(t *testing.T) {
	t.Parallel()
	agent := agenttest.NewServer(script(), nil)
	defer agent.Close()
	v := viewtest.Run(t, agent.URL(), &event.RunAgentInput{ThreadID: "thread-1", RunID: "run-1"})

	// The run.
	run, ok := v.LastRun()
	require.True(t, ok)
	assert.Equal(t, view.RunFinished, run.Status)
	viewtest.ExpectNoViolation(t, v)

	// The invocation tree: root → researcher-1 → checker-1.
	assert.Equal(t, []string{"researcher-1"}, v.Root().Children())
	researcher := viewtest.RequireInvocation(t, v, "researcher")
	assert.Equal(t, view.Finished, researcher.Status())
	assert.Equal(t, "call-1", researcher.ParentToolCallID(), "spawned by the supervisor's tool call")
	assert.JSONEq(t, `{"finding":"winter range -33%"}`, string(researcher.Result()))
	assert.Equal(t, []string{"search"}, viewtest.Steps(researcher))
	assert.Equal(t, []string{"Buses lose about a third of their range in winter."}, viewtest.Texts(researcher))
	checker := viewtest.RequireInvocation(t, v, "fact-checker")
	assert.Equal(t, "researcher-1", checker.Parent())
	viewtest.ExpectStatus(t, v, "fact-checker", view.Finished)
	viewtest.ExpectText(t, v, "fact-checker", "two operators")

	// The supervisor's tool call links to the subagent it spawned and holds
	// its result.
	call, err := viewtest.CallNamed(v.Root(), "delegate")
	require.NoError(t, err)
	assert.JSONEq(t, `{"topic":"winter range"}`, call.Arguments)
	assert.Equal(t, "winter range -33%", call.Result)
	tc, _ := v.ToolCall(call.ID)
	assert.Equal(t, []string{"researcher-1"}, tc.Subagents)

	// The run-scoped state, changed by the supervisor and the researcher.
	viewtest.ExpectState(t, v, "", `{"phase":"done","findings":["winter range -33%"]}`)
	viewtest.ExpectState(t, v, "/findings/0", `"winter range -33%"`)

	// Everything at once, against the golden file (go test -update rewrites it).
	viewtest.Golden(t, v, "final-view.golden.json", viewtest.KeepRunIDs())
}

// TestDemoSwarmShape asserts only the shape of the demo swarm's tree and
// its statuses: the test to write when the agent's words may change.
func TestDemoSwarmShape(t *testing.T) {
	t.Parallel()
	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer agent.Close()
	v := viewtest.Run(t, agent.URL(), nil) // the client mints the thread and run ids

	viewtest.ExpectNoViolation(t, v)
	run, _ := v.LastRun()
	assert.Equal(t, view.RunInterrupted, run.Status, "the swarm waits for an approval")
	statuses := map[string][]view.Status{}
	for inv := range v.Invocations() {
		statuses[inv.Name()] = append(statuses[inv.Name()], inv.Status())
	}
	assert.ElementsMatch(t, []view.Status{view.Suspended, view.Finished, view.Finished, view.Errored}, statuses["researcher"])
	summarizer := viewtest.RequireInvocation(t, v, "summarizer")
	assert.Equal(t, view.Finished, summarizer.Status())
	parent, err := viewtest.Find(v, summarizer.Parent())
	require.NoError(t, err)
	assert.Equal(t, "researcher", parent.Name(), "a summarizer is nested under its researcher")
	pending := v.PendingInterrupts()
	require.Len(t, pending, 1)
	require.NotNil(t, pending[0].Subagent)
	viewtest.ExpectStatus(t, v, *pending[0].Subagent, view.Suspended)
	viewtest.ExpectState(t, v, "/phase", `"awaiting-approval"`)
}

// TestDemoSwarmGolden compares the demo swarm's whole final view with a
// golden file; the ids the client mints are normalised, so the same agent
// gives the same file every run.
func TestDemoSwarmGolden(t *testing.T) {
	t.Parallel()
	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer agent.Close()
	viewtest.Golden(t, viewtest.Run(t, agent.URL(), nil), "swarm-final-view.golden.json")
}

// TestMultiTurn holds a conversation with the demo swarm on one thread: the
// first run ends on an approval interrupt, the second answers it (with the
// history and the state, as client.NextInput builds it) and the suspended
// researcher continues and finishes; the final view is asserted against a
// golden file.
func TestMultiTurn(t *testing.T) {
	t.Parallel()
	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer agent.Close()
	c := client.New(agent.URL())
	defer c.Close()

	v, err := c.Run(t.Context(), nil)
	require.NoError(t, err)
	pending := v.PendingInterrupts()
	require.Len(t, pending, 1)
	suspended := *pending[0].Subagent

	// Approve, and run on the same thread.
	next := client.NextInput(v, &client.InputOptions{Answer: func(event.Interrupt) *event.ResumeEntry {
		return &event.ResumeEntry{Status: event.ResumeResolved, Payload: json.RawMessage(`{"approved":true}`)}
	}})
	first, _ := v.LastRun()
	assert.Equal(t, first.ThreadID, next.ThreadID, "the next run continues the thread")
	v, err = c.Run(t.Context(), next)
	require.NoError(t, err)

	runs := v.Runs()
	require.Len(t, runs, 2)
	assert.Equal(t, view.RunFinished, runs[1].Status)
	viewtest.ExpectStatus(t, v, suspended, view.Finished)
	assert.Empty(t, v.PendingInterrupts())
	viewtest.ExpectNoViolation(t, v)
	viewtest.Golden(t, v, "multi-turn-final-view.golden.json")
}
