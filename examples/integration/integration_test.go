package integration_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

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

// TestScriptedRun runs the script over SSE and asserts the final view.
func TestScriptedRun(t *testing.T) {
	t.Parallel()
	agent := agenttest.NewServer(script(), nil)
	defer agent.Close()
	c := client.New(agent.URL())
	defer c.Close()

	v, err := c.Run(t.Context(), &event.RunAgentInput{ThreadID: "thread-1", RunID: "run-1"})
	require.NoError(t, err)

	// The run.
	run, ok := v.LastRun()
	require.True(t, ok)
	assert.Equal(t, view.RunFinished, run.Status)
	assert.Empty(t, v.Diagnostics(), "every event was accepted")

	// The invocation tree: root → researcher-1 → checker-1.
	assert.Equal(t, []string{"researcher-1"}, v.Root().Children())
	researcher := v.Invocation("researcher-1")
	require.NotNil(t, researcher)
	assert.Equal(t, "researcher", researcher.Name())
	assert.Equal(t, view.Finished, researcher.Status())
	assert.Equal(t, "call-1", researcher.ParentToolCallID(), "spawned by the supervisor's tool call")
	assert.Equal(t, []string{"checker-1"}, researcher.Children())
	assert.JSONEq(t, `{"finding":"winter range -33%"}`, string(researcher.Result()))
	steps := researcher.Steps()
	require.Len(t, steps, 1)
	assert.Equal(t, "search", steps[0].Name)
	assert.Equal(t, view.EntityClosed, steps[0].Status)
	checker := v.Invocation("checker-1")
	require.NotNil(t, checker)
	parent, nested := checker.ParentSubagentRunID()
	assert.True(t, nested)
	assert.Equal(t, "researcher-1", parent)
	assert.Equal(t, view.Finished, checker.Status())

	// The tool call links to the subagent it spawned and holds its result.
	call, ok := v.ToolCall("call-1")
	require.True(t, ok)
	assert.Equal(t, `{"topic":"winter range"}`, call.Arguments)
	assert.Equal(t, []string{"researcher-1"}, call.Subagents)
	assert.JSONEq(t, `"winter range -33%"`, string(call.Result))

	// The messages, in protocol order, each with its owner.
	type msg struct{ ID, Role, By, Content string }
	var got []msg
	for m := range v.Messages() {
		by, _ := m.SubagentRunID()
		got = append(got, msg{m.ID, string(m.Role), by, string(m.Content)})
	}
	assert.Equal(t, []msg{
		{"plan", "assistant", "", `"I'll ask a researcher about winter range."`},
		{"result-1", "tool", "", `"winter range -33%"`},
		{"notes", "assistant", "researcher-1", `"Buses lose about a third of their range in winter."`},
		{"check", "assistant", "checker-1", `"Confirmed by two operators."`},
		{"answer", "assistant", "", `"Plan for a third more buses in winter."`},
	}, got)

	// The run-scoped state, changed by the supervisor and the researcher.
	assert.JSONEq(t, `{"phase":"done","findings":["winter range -33%"]}`, string(v.State()))

	// Everything at once, against the golden file.
	golden(t, "final-view.golden.json", v)
}

// TestDemoSwarm runs agenttest's demo swarm (a supervisor, researchers in
// parallel, a nested summarizer, one failure, one approval interrupt), then
// answers the interrupt with the next run's input built from the view.
func TestDemoSwarm(t *testing.T) {
	t.Parallel()
	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer agent.Close()
	c := client.New(agent.URL())
	defer c.Close()

	v, err := c.Run(t.Context(), &event.RunAgentInput{ThreadID: "thread-demo", RunID: "run-demo"})
	require.NoError(t, err)
	golden(t, "swarm-final-view.golden.json", v)

	run, _ := v.LastRun()
	assert.Equal(t, view.RunInterrupted, run.Status, "the swarm waits for an approval")
	statuses := map[string][]view.Status{}
	for inv := range v.Invocations() {
		statuses[inv.Name()] = append(statuses[inv.Name()], inv.Status())
		if inv.Name() == "summarizer" {
			_, nested := inv.ParentSubagentRunID()
			assert.True(t, nested, "a summarizer is nested under its researcher")
		}
	}
	assert.ElementsMatch(t, []view.Status{view.Suspended, view.Finished, view.Finished, view.Errored}, statuses["researcher"])
	assert.Equal(t, []view.Status{view.Finished}, statuses["summarizer"])
	pending := v.PendingInterrupts()
	require.Len(t, pending, 1)
	require.NotNil(t, pending[0].Subagent)
	assert.Equal(t, view.Suspended, v.Invocation(*pending[0].Subagent).Status(), "raised by the suspended researcher")
	var state struct{ Phase string }
	require.NoError(t, json.Unmarshal(v.State(), &state))
	assert.Equal(t, "awaiting-approval", state.Phase)

	// Approve, and run on: the suspended researcher continues and finishes.
	next := client.NextInput(v, &client.InputOptions{RunID: "run-demo-resumed", Answer: func(event.Interrupt) *event.ResumeEntry {
		return &event.ResumeEntry{Status: event.ResumeResolved, Payload: json.RawMessage(`{"approved":true}`)}
	}})
	v, err = c.Run(t.Context(), next)
	require.NoError(t, err)
	runs := v.Runs()
	require.Len(t, runs, 2)
	assert.Equal(t, view.RunFinished, runs[1].Status)
	assert.Equal(t, view.Finished, v.Invocation(*pending[0].Subagent).Status())
	assert.Empty(t, v.PendingInterrupts())
	assert.Zero(t, v.ViolationCount())
}

// golden compares the view's JSON form with testdata/name; -update
// rewrites the file.
func golden(t *testing.T, name string, v *view.View) {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var got bytes.Buffer
	require.NoError(t, json.Indent(&got, data, "", "  "))
	got.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file: run go test -args -update")
	assert.Equal(t, string(want), got.String(), "the final view differs from %s (go test -args -update rewrites it)", path)
}
