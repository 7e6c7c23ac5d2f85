package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// fold folds wire events (JSON lines) into a view, requiring each to be
// accepted.
func fold(t *testing.T, lines ...string) *view.View {
	t.Helper()
	v := view.New()
	for i, l := range lines {
		var err error
		v, err = reducer.FoldJSON(v, []byte(l))
		require.NoError(t, err, "event %d: %s", i, l)
	}
	return v
}

// paneStream has a parent agent that spawns a researcher through a tool
// call, a researcher that streams text, reasons, calls a tool and spawns a
// nested summarizer, a summarizer answering the researcher's call, a plan
// activity and a second subagent that errors.
var paneStream = []string{
	`{"type":"RUN_STARTED","threadId":"th","runId":"r1"}`,
	`{"type":"TEXT_MESSAGE_START","messageId":"u1","role":"user"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"u1","delta":"Plan a trip"}`,
	`{"type":"TEXT_MESSAGE_END","messageId":"u1"}`,
	`{"type":"ACTIVITY_SNAPSHOT","messageId":"plan","activityType":"PLAN","content":{"tasks":[{"topic":"trains","status":"running"}]}}`,
	`{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"delegate","parentMessageId":"m0"}`,
	`{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"{\"topic\":\"trains\"}"}`,
	`{"type":"TOOL_CALL_END","toolCallId":"tc1"}`,
	`{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"researcher","description":"Finds trains","parentToolCallId":"tc1","parentMessageId":"m0"}`,
	`{"type":"STEP_STARTED","stepName":"search","subagentRunId":"sa1"}`,
	`{"type":"REASONING_MESSAGE_START","messageId":"think1","role":"reasoning","subagentRunId":"sa1"}`,
	`{"type":"REASONING_MESSAGE_CONTENT","messageId":"think1","delta":"hmm","subagentRunId":"sa1"}`,
	`{"type":"REASONING_MESSAGE_END","messageId":"think1","subagentRunId":"sa1"}`,
	`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Looking","subagentRunId":"sa1"}`,
	`{"type":"TOOL_CALL_START","toolCallId":"tc2","toolCallName":"summarize","parentMessageId":"m2","subagentRunId":"sa1"}`,
	`{"type":"TOOL_CALL_ARGS","toolCallId":"tc2","delta":"{\"n\":","subagentRunId":"sa1"}`,
	`{"type":"SUBAGENT_STARTED","subagentRunId":"sa2","name":"summarizer","parentSubagentRunId":"sa1","parentToolCallId":"tc2"}`,
	`{"type":"TOOL_CALL_RESULT","messageId":"res2","toolCallId":"tc2","content":"short","subagentRunId":"sa2"}`,
	`{"type":"SUBAGENT_FINISHED","subagentRunId":"sa2"}`,
	`{"type":"SUBAGENT_STARTED","subagentRunId":"sa3","name":"booker"}`,
	`{"type":"SUBAGENT_ERROR","subagentRunId":"sa3","message":"no seats","code":"full"}`,
}

// cutStream ends the run with RUN_ERROR while the parent agent streams a
// text message and a subagent a reasoning message, after a text message that
// ended normally.
var cutStream = []string{
	`{"type":"RUN_STARTED","threadId":"th","runId":"r1"}`,
	`{"type":"TEXT_MESSAGE_START","messageId":"m1"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Done."}`,
	`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
	`{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"thinker"}`,
	`{"type":"REASONING_MESSAGE_START","messageId":"think1","role":"reasoning","subagentRunId":"sa1"}`,
	`{"type":"REASONING_MESSAGE_CONTENT","messageId":"think1","delta":"so","subagentRunId":"sa1"}`,
	`{"type":"TEXT_MESSAGE_START","messageId":"m2"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"Half a sen"}`,
	`{"type":"RUN_ERROR","message":"agent crashed"}`,
}

func TestPaneOf(t *testing.T) {
	v := fold(t, paneStream...)
	cut := fold(t, cutStream...)
	cases := []struct {
		name string
		v    *view.View
		inv  *view.Invocation
		want Pane
	}{{
		name: "root",
		v:    v,
		inv:  v.Root(),
		want: Pane{
			Key: RootKey, Root: true, Status: view.Running, Children: []string{"sub:sa1", "sub:sa3"}, Steps: []PaneStep{},
			Items: []PaneItem{
				{Kind: ItemText, ID: "u1", Role: "user", Text: "Plan a trip", Status: view.EntityClosed},
				{Kind: ItemActivity, ID: "plan", ActivityType: "PLAN", Content: json.RawMessage(`{"tasks":[{"topic":"trains","status":"running"}]}`)},
				{Kind: ItemTool, ID: "tc1", Name: "delegate", Args: `{"topic":"trains"}`, Status: view.EntityClosed, Subagents: []string{"sub:sa1"}},
			},
		},
	}, {
		name: "subagent with streaming text, a tool call and a nested subagent",
		v:    v,
		inv:  v.Invocation("sa1"),
		want: Pane{
			Key: "sub:sa1", ID: ptr("sa1"), Parent: ptr(RootKey), Name: "researcher", Description: "Finds trains",
			Status: view.Running, ParentToolCallID: "tc1", Children: []string{"sub:sa2"},
			Steps: []PaneStep{{Name: "search", Status: view.EntityOpen}},
			Items: []PaneItem{
				{Kind: ItemReasoning, ID: "think1", Text: "hmm", Status: view.EntityClosed},
				{Kind: ItemText, ID: "m1", Role: "assistant", Text: "Looking", Open: true, Status: view.EntityOpen},
				{Kind: ItemTool, ID: "tc2", Name: "summarize", Args: `{"n":`, Status: view.EntityOpen, Result: json.RawMessage(`"short"`), Subagents: []string{"sub:sa2"}},
			},
		},
	}, {
		name: "nested subagent answering its parent's call",
		v:    v,
		inv:  v.Invocation("sa2"),
		want: Pane{
			Key: "sub:sa2", ID: ptr("sa2"), Parent: ptr("sub:sa1"), Name: "summarizer", Status: view.Finished,
			ParentToolCallID: "tc2", Children: []string{}, Steps: []PaneStep{},
			Items: []PaneItem{{Kind: ItemResult, ID: "res2", ToolCallID: "tc2", Result: json.RawMessage(`"short"`)}},
		},
	}, {
		name: "errored subagent",
		v:    v,
		inv:  v.Invocation("sa3"),
		want: Pane{
			Key: "sub:sa3", ID: ptr("sa3"), Parent: ptr(RootKey), Name: "booker", Status: view.Errored,
			Children: []string{}, Steps: []PaneStep{}, Items: []PaneItem{},
			Error: &ErrorReport{Message: "no seats", Code: ptr("full")},
		},
	}, {
		name: "text message cut off by RUN_ERROR, after one that ended",
		v:    cut,
		inv:  cut.Root(),
		want: Pane{
			Key: RootKey, Root: true, Status: view.Errored, Children: []string{"sub:sa1"}, Steps: []PaneStep{},
			Items: []PaneItem{
				{Kind: ItemText, ID: "m1", Role: "assistant", Text: "Done.", Status: view.EntityClosed},
				{Kind: ItemText, ID: "m2", Role: "assistant", Text: "Half a sen", Status: view.EntityAbandoned},
			},
		},
	}, {
		name: "reasoning message cut off by RUN_ERROR",
		v:    cut,
		inv:  cut.Invocation("sa1"),
		want: Pane{
			Key: "sub:sa1", ID: ptr("sa1"), Parent: ptr(RootKey), Name: "thinker", Status: view.Abandoned,
			Children: []string{}, Steps: []PaneStep{},
			Items: []PaneItem{{Kind: ItemReasoning, ID: "think1", Text: "so", Status: view.EntityAbandoned}},
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.NotNil(t, c.inv)
			got := PaneOf(c.inv, c.v)
			c.want.Version = c.inv.Version()
			assert.Equal(t, c.want, got)
			data, err := marshal(got)
			require.NoError(t, err)
			var back Pane
			require.NoError(t, json.Unmarshal(data, &back), "a pane's JSON decodes back")
			assert.Equal(t, c.want.Key, back.Key)
			assert.Equal(t, c.want.Items, back.Items, "the items, statuses included, decode back")
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestPaneKeysNeverCollide(t *testing.T) {
	v := fold(t,
		`{"type":"RUN_STARTED","threadId":"th","runId":"r1"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"root","name":"tricky"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"","name":"empty"}`,
	)
	keys := map[string]bool{PaneKey(v.Root()): true}
	for inv := range v.Invocations() {
		k := PaneKey(inv)
		assert.False(t, keys[k], "key %q is unique", k)
		keys[k] = true
	}
	assert.Len(t, keys, 3)
}

func TestContentText(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"absent", ``, ""},
		{"string", `"hello\nworld"`, "hello\nworld"},
		{"text parts", `[{"type":"text","text":"a"},{"type":"image","source":{"type":"url","value":"x"}},{"type":"text","text":"b"}]`, "a\nb"},
		{"object", `{"k":1}`, `{"k":1}`},
		{"number", ` 42 `, `42`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, ContentText(json.RawMessage(c.content)))
		})
	}
}

func TestHeaderOf(t *testing.T) {
	v := fold(t, paneStream...)
	var err error
	v, err = reducer.FoldJSON(v, []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"nope","delta":"x"}`))
	require.Error(t, err, "a refused event")
	h := HeaderOf("run-1", "http://agent", v, true, "")
	assert.Equal(t, "run-1", h.ID)
	assert.True(t, h.Active)
	assert.Equal(t, 3, h.Invocations)
	assert.Equal(t, 1, h.Violations)
	require.Len(t, h.Diagnostics, 1)
	assert.Equal(t, view.DiagViolation, h.Diagnostics[0].Kind)
	require.Len(t, h.Runs, 1)
	assert.Equal(t, view.RunRunning, h.Runs[0].Status)
	assert.NotNil(t, h.PendingInterrupts, "encodes as []")

	for range MaxHeaderDiagnostics + 5 {
		v, _ = reducer.FoldJSON(v, []byte(`{"type":"TEXT_MESSAGE_END","messageId":"nope"}`))
	}
	h = HeaderOf("run-1", "http://agent", v, false, "boom")
	assert.Len(t, h.Diagnostics, MaxHeaderDiagnostics, "the header keeps the latest diagnostics")
	assert.Equal(t, v.Diagnostics()[len(v.Diagnostics())-1].Index, h.Diagnostics[MaxHeaderDiagnostics-1].Index)
	assert.Equal(t, "boom", h.Error)
}

// TestHeaderTokens: a run's reported token usage, summed over its entries,
// is in the header as tokens in, out and total; a run that reported none
// has no usage.
func TestHeaderTokens(t *testing.T) {
	v := fold(t,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r1"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r1","usage":[{"model":"a","inputTokens":100,"outputTokens":20},{"model":"b","inputTokens":5,"outputTokens":1,"totalTokens":7}]}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r2"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r2"}`,
	)
	h := HeaderOf("t", "http://agent", v, false, "")
	require.Len(t, h.Runs, 2)
	assert.Equal(t, &RunUsage{Input: 105, Output: 21, Total: 127}, h.Runs[0].Usage)
	assert.Nil(t, h.Runs[1].Usage, "no usage reported")
	data, err := marshal(h)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"usage":{"input":105,"output":21,"total":127}`)
	assert.Equal(t, 1, strings.Count(string(data), `"usage"`), "absent when not reported")
}

func TestStateOf(t *testing.T) {
	v := fold(t,
		`{"type":"RUN_STARTED","threadId":"th","runId":"r1"}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}`,
	)
	assert.Equal(t, State{State: json.RawMessage(`{"n":1}`)}, StateOf(v))
	v = fold(t,
		`{"type":"RUN_STARTED","threadId":"th","runId":"r1"}`,
		`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/n","value":2}],"subagentRunId":"sa1"}`,
	)
	assert.Equal(t, State{State: json.RawMessage(`{"n":2}`), ChangedBy: ptr("sa1")}, StateOf(v))
}

// TestSwarmSnapshotGolden pins the JSON the browser receives for the final
// view of the demo swarm (seed 1): the snapshot event's data. -update
// rewrites it.
func TestSwarmSnapshotGolden(t *testing.T) {
	v := view.New()
	for _, e := range agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 1}) {
		var err error
		v, err = reducer.Fold(v, e)
		require.NoError(t, err)
	}
	h := newHub("run-golden", "http://agent.example", v, false, nil)
	f := h.latest()
	data := f.snapshot().json()
	var pretty bytes.Buffer
	require.NoError(t, json.Indent(&pretty, data, "", "  "))
	pretty.WriteByte('\n')

	path := filepath.Join("testdata", "swarm-snapshot.golden.json")
	if *update {
		require.NoError(t, os.WriteFile(path, pretty.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run TestSwarmSnapshotGolden -args -update to create it")
	assert.Equal(t, string(want), pretty.String(), "the snapshot JSON changed; if on purpose, rerun with -args -update")
}
