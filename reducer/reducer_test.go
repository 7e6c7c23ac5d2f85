package reducer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// fold folds wire events given as JSON lines with FoldJSON and returns the
// final view and every violation met.
func fold(t testing.TB, lines ...string) (*view.View, []*reducer.Violation) {
	t.Helper()
	v := view.New()
	var viols []*reducer.Violation
	for i, l := range lines {
		next, err := reducer.FoldJSON(v, []byte(l))
		require.NotNil(t, next)
		require.Equal(t, i+1, next.EventCount(), "event %d is counted", i)
		if err != nil {
			var viol *reducer.Violation
			require.ErrorAs(t, err, &viol, "event %d", i)
			viols = append(viols, viol)
		}
		v = next
	}
	return v, viols
}

// mustFold is fold for streams that must be accepted.
func mustFold(t testing.TB, lines ...string) *view.View {
	t.Helper()
	v, viols := fold(t, lines...)
	require.Empty(t, viols, "no event may be refused")
	return v
}

const (
	start  = `{"type":"RUN_STARTED","threadId":"th","runId":"r1"}`
	start2 = `{"type":"RUN_STARTED","threadId":"th","runId":"r2"}`
	finish = `{"type":"RUN_FINISHED","threadId":"th","runId":"r1"}`
)

func ev(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func diagsWith(v *view.View, rule string) []view.Diagnostic {
	var out []view.Diagnostic
	for _, d := range v.Diagnostics() {
		if d.Rule == rule {
			out = append(out, d)
		}
	}
	return out
}

func messagesJSON(t testing.TB, v *view.View) string {
	t.Helper()
	b, err := json.Marshal(v.MessageList())
	require.NoError(t, err)
	return string(b)
}

func TestNewView(t *testing.T) {
	v := view.New()
	assert.Equal(t, 0, v.EventCount())
	assert.Empty(t, v.Runs())
	assert.JSONEq(t, `{}`, string(v.State()))
	assert.Empty(t, v.MessageList())
	assert.Empty(t, v.PendingInterrupts())
	assert.NotNil(t, v.PendingInterrupts(), "pending interrupts are [] not null")
	assert.Empty(t, v.Diagnostics())
	assert.True(t, v.Root().IsRoot())
	assert.Equal(t, view.Unannounced, v.Root().Status())
	assert.Nil(t, v.Invocation("sub-1"))
	assert.Same(t, v.Root(), v.Invocation(""), "Invocation(\"\") is the root when no subagent has id \"\"")
	b, err := json.Marshal(v)
	require.NoError(t, err)
	assert.JSONEq(t, `{"events":0,"messages":[],"state":{},"pendingInterrupts":[],"runs":[],"invocations":[],"diagnostics":[]}`, string(b))
}

func TestReduceRefusedEventLeavesView(t *testing.T) {
	v := mustFold(t, start)
	bad, err := event.Decode([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"nope","delta":"x"}`))
	require.NoError(t, err)
	next, err := reducer.Reduce(v, bad)
	require.Error(t, err)
	assert.Same(t, v, next, "Reduce returns the view itself on a violation (G1)")
	var viol *reducer.Violation
	require.ErrorAs(t, err, &viol)
	assert.Equal(t, "V7", viol.Rule)
	assert.Equal(t, 1, viol.Index)
	assert.Equal(t, event.TypeTextMessageContent, viol.Type)
	assert.Contains(t, viol.Message, "nope")
	assert.Equal(t, "event 1 (TEXT_MESSAGE_CONTENT): V7: "+viol.Message, viol.Error())

	folded, err := reducer.Fold(v, bad)
	require.ErrorAs(t, err, &viol)
	assert.Equal(t, 2, folded.EventCount(), "Fold counts the refused event")
	assert.Equal(t, 1, folded.ViolationCount())
	d := folded.Diagnostics()
	require.Len(t, d, 1)
	assert.Equal(t, view.Diagnostic{Index: 1, Kind: view.DiagViolation, Rule: "V7", Type: event.TypeTextMessageContent, Message: viol.Message}, d[0])
	assert.Equal(t, messagesJSON(t, v), messagesJSON(t, folded), "a refused event folds nothing")
}

func TestReduceNilEvent(t *testing.T) {
	v := view.New()
	next, err := reducer.Reduce(v, nil)
	assert.Same(t, v, next)
	var viol *reducer.Violation
	require.ErrorAs(t, err, &viol)
	assert.Equal(t, "E3", viol.Rule)
}

func TestRefuse(t *testing.T) {
	v := mustFold(t, start)
	cases := []struct {
		name string
		typ  event.Type
		err  error
		kind view.DiagKind
		rule string
	}{
		{"decode error keeps its rule", event.TypeTextMessageStart,
			&event.DecodeError{Type: event.TypeTextMessageStart, Pointer: "/subagentRunId", Rule: "R1", Reason: "null", Offset: -1}, view.DiagViolation, "R1"},
		{"decode error without a rule is E3", "", &event.DecodeError{Reason: "not JSON", Offset: 3}, view.DiagViolation, "E3"},
		{"unknown type is a warning", "", &event.UnknownTypeError{Type: "SPARKLE"}, view.DiagWarning, "G2"},
		{"wrapped unknown type is a warning", "SPARKLE", fmt.Errorf("line 3: %w", &event.UnknownTypeError{Type: "SPARKLE"}), view.DiagWarning, "G2"},
		{"other error is a violation", "", errors.New("frame too large"), view.DiagViolation, "E3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			next := reducer.Refuse(v, tc.typ, tc.err)
			assert.Equal(t, v.EventCount()+1, next.EventCount())
			d := next.Diagnostics()
			require.Len(t, d, 1)
			assert.Equal(t, tc.kind, d[0].Kind)
			assert.Equal(t, tc.rule, d[0].Rule)
			assert.Equal(t, 1, d[0].Index)
			assert.Empty(t, v.Diagnostics(), "the older view is unchanged")
		})
	}
}

func TestFoldJSON(t *testing.T) {
	v := view.New()
	v, err := reducer.FoldJSON(v, []byte(start))
	require.NoError(t, err)
	v, err = reducer.FoldJSON(v, []byte(`{"type":"NOT_A_TYPE"}`))
	require.NoError(t, err, "an unknown type is skipped, not refused")
	v, err = reducer.FoldJSON(v, []byte(`{"type":"TEXT_MESSAGE_START"}`))
	var viol *reducer.Violation
	require.ErrorAs(t, err, &viol, "a missing messageId is refused")
	assert.Equal(t, 2, viol.Index)
	assert.Equal(t, event.TypeTextMessageStart, viol.Type)
	var de *event.DecodeError
	assert.ErrorAs(t, err, &de, "the violation wraps the decode error")
	v, err = reducer.FoldJSON(v, []byte(`not json`))
	require.ErrorAs(t, err, &viol)
	assert.Equal(t, 3, viol.Index)
	assert.Equal(t, 4, v.EventCount())
	kinds := []view.DiagKind{}
	for _, d := range v.Diagnostics() {
		kinds = append(kinds, d.Kind)
	}
	assert.Equal(t, []view.DiagKind{view.DiagWarning, view.DiagViolation, view.DiagViolation}, kinds)
}

func TestEnd(t *testing.T) {
	open := []string{
		start,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"worker"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"s1"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"half"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","subagentRunId":"s1"}`,
		`{"type":"STEP_STARTED","stepName":"plan","subagentRunId":"s1"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","delta":"chunk"}`,
	}
	cases := []struct {
		name      string
		cause     error
		run       view.RunStatus
		inv       view.Status
		entities  view.EntityStatus
		runErr    string
		diagRule  string
		rootState view.Status
	}{
		{"clean end mid-run is incomplete", nil, view.RunIncomplete, view.Running, view.EntityOpen, "", "G12", view.Running},
		{"cancelled", context.Canceled, view.RunCancelled, view.Abandoned, view.EntityAbandoned, "", "G11", view.Abandoned},
		{"deadline", fmt.Errorf("read: %w", context.DeadlineExceeded), view.RunCancelled, view.Abandoned, view.EntityAbandoned, "", "G11", view.Abandoned},
		{"transport broke", errors.New("connection reset"), view.RunFailed, view.Abandoned, view.EntityAbandoned, "connection reset", "G11", view.Errored},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := mustFold(t, open...)
			v := reducer.End(before, tc.cause)
			assert.True(t, v.Ended())
			assert.False(t, before.Ended(), "End does not change its argument")
			assert.Equal(t, before.EventCount(), v.EventCount(), "the end is not an event")
			r, ok := v.LastRun()
			require.True(t, ok)
			assert.Equal(t, tc.run, r.Status)
			if tc.runErr != "" {
				require.NotNil(t, r.Error)
				assert.Equal(t, tc.runErr, r.Error.Message)
			}
			inv := v.Invocation("s1")
			require.NotNil(t, inv)
			assert.Equal(t, tc.inv, inv.Status())
			tcs := inv.ToolCalls()
			require.Len(t, tcs, 1)
			assert.Equal(t, tc.entities, tcs[0].Status)
			steps := inv.Steps()
			require.Len(t, steps, 1)
			assert.Equal(t, tc.entities, steps[0].Status)
			assert.Len(t, diagsWith(v, tc.diagRule), 1, "one %s warning", tc.diagRule)
			assert.Equal(t, tc.rootState, v.Root().Status())
			m, ok := v.Message("m2")
			require.True(t, ok, "a pending chunk stream's message stays")
			assert.JSONEq(t, `"chunk"`, string(m.Content))
			assert.Same(t, v, reducer.End(v, nil), "End on an ended view returns it")
		})
	}
	t.Run("after a finished run", func(t *testing.T) {
		v := reducer.End(mustFold(t, start, finish), nil)
		r, _ := v.LastRun()
		assert.Equal(t, view.RunFinished, r.Status)
		assert.Empty(t, v.Diagnostics())
		v = reducer.End(mustFold(t, start, finish), errors.New("EOF"))
		assert.Len(t, diagsWith(v, "G11"), 1, "a break after the run is a warning")
	})
}

func TestRunStatuses(t *testing.T) {
	cases := []struct {
		name   string
		lines  []string
		status view.RunStatus
		root   view.Status
	}{
		{"running", []string{start}, view.RunRunning, view.Running},
		{"finished", []string{start, finish}, view.RunFinished, view.Finished},
		{"finished with result", []string{start, `{"type":"RUN_FINISHED","threadId":"th","runId":"r1","result":{"ok":1}}`}, view.RunFinished, view.Finished},
		{"interrupted", []string{start, `{"type":"RUN_FINISHED","threadId":"th","runId":"r1","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"confirmation"}]}}`}, view.RunInterrupted, view.Suspended},
		{"cancelled outcome", []string{start, `{"type":"RUN_FINISHED","threadId":"th","runId":"r1","outcome":{"type":"cancelled"}}`}, view.RunCancelled, view.Abandoned},
		{"errored", []string{start, `{"type":"RUN_ERROR","message":"boom","code":"E1"}`}, view.RunErrored, view.Errored},
		{"error as first event", []string{`{"type":"RUN_ERROR","message":"auth"}`}, view.RunErrored, view.Errored},
		{"error after finish keeps the finished run", []string{start, finish, `{"type":"RUN_ERROR","message":"late"}`}, view.RunFinished, view.Finished},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := mustFold(t, tc.lines...)
			runs := v.Runs()
			require.Len(t, runs, 1)
			assert.Equal(t, tc.status, runs[0].Status)
			assert.Equal(t, tc.root, v.Root().Status())
		})
	}
	v := mustFold(t, start, `{"type":"RUN_FINISHED","threadId":"th","runId":"r1","result":{"ok":1},"outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"confirmation","subagentRunId":"s9"}]}}`)
	r := v.Runs()[0]
	assert.JSONEq(t, `{"ok":1}`, string(r.Result))
	require.NotNil(t, r.Outcome)
	require.Len(t, r.Interrupts, 1)
	require.NotNil(t, r.Interrupts[0].Subagent)
	assert.Equal(t, "s9", *r.Interrupts[0].Subagent, "interrupts keep their owners")
	assert.Equal(t, "th", r.ThreadID)
	assert.Equal(t, "r1", r.RunID)
	assert.Equal(t, 0, r.StartIndex)
	assert.Equal(t, 1, r.EndIndex)
	r.Interrupts[0].ID = "changed"
	assert.Equal(t, "i1", v.Runs()[0].Interrupts[0].ID, "Runs returns copies")

	v = mustFold(t, `{"type":"RUN_ERROR","message":"auth","code":"401"}`)
	r = v.Runs()[0]
	assert.Equal(t, "", r.RunID)
	require.NotNil(t, r.Error)
	assert.Equal(t, "auth", r.Error.Message)
	require.NotNil(t, r.Error.Code)
	assert.Equal(t, "401", *r.Error.Code)
}

func TestLifecycleViolations(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		rule  string
		want  string // a fragment of the message
	}{
		{"V1 first event", []string{`{"type":"STEP_STARTED","stepName":"x"}`}, "V1", "first event"},
		{"V2 after finish", []string{start, finish, `{"type":"STEP_STARTED","stepName":"x"}`}, "V2", "finished"},
		{"V3 after error", []string{start, `{"type":"RUN_ERROR","message":"x"}`, `{"type":"RUN_ERROR","message":"y"}`}, "V3", "error"},
		{"V4 start while running", []string{start, start2}, "V4", "still running"},
		{"V10 step twice", []string{start, `{"type":"STEP_STARTED","stepName":"a","subagentRunId":"s"}`, `{"type":"STEP_STARTED","stepName":"a","subagentRunId":"s"}`}, "V10", "subagent 's'"},
		{"V11 never started", []string{start, `{"type":"STEP_FINISHED","stepName":"a"}`}, "V11", `"a"`},
		{"R17 other owner", []string{start, `{"type":"STEP_STARTED","stepName":"a"}`, `{"type":"STEP_FINISHED","stepName":"a","subagentRunId":"s"}`}, "R17", "the parent agent"},
		{"V12 span twice", []string{start, `{"type":"REASONING_START","messageId":"r"}`, `{"type":"REASONING_START","messageId":"r"}`}, "V12", "'r'"},
		{"V12 end without span", []string{start, `{"type":"REASONING_END","messageId":"r"}`}, "V12", "'r'"},
		{"V13 content without start", []string{start, `{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"x"}`}, "V13", "'r'"},
		{"V14 open reasoning message", []string{start, `{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}`, finish}, "V14", "reasoning messages"},
		{"V14 open span", []string{start, `{"type":"REASONING_START","messageId":"r"}`, finish}, "V14", "reasoning spans"},
		{"R8 active twice", []string{start, `{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}`, `{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}`}, "R8", "already active"},
		{"R9 error unknown", []string{start, `{"type":"SUBAGENT_ERROR","subagentRunId":"s","message":"x"}`}, "R9", "'s'"},
		{"A1 duplicate snapshot ids", []string{start, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"user","content":"x"},{"id":"a","role":"user","content":"y"}]}`}, "A1", "'a'"},
		{"A1 text on reasoning", []string{start, `{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}`, `{"type":"REASONING_MESSAGE_END","messageId":"r"}`, `{"type":"TEXT_MESSAGE_START","messageId":"r"}`}, "A1", "reasoning message"},
		{"A1 reasoning on text", []string{start, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`, `{"type":"REASONING_MESSAGE_START","messageId":"m","role":"reasoning"}`}, "A1", "text message"},
		{"G9 tool chunk without name", []string{start, `{"type":"TOOL_CALL_CHUNK","toolCallId":"c"}`}, "G9", "toolCallName"},
		{"G9 tool chunk without id", []string{start, `{"type":"TOOL_CALL_CHUNK","toolCallName":"f"}`}, "G9", "toolCallId"},
		{"G9 reasoning chunk without id", []string{start, `{"type":"REASONING_MESSAGE_CHUNK","delta":"x"}`}, "G9", "messageId"},
		{"G9 chunk role change", []string{start, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}`, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"user","delta":"b"}`}, "G9", "role"},
		{"G9 chunk tool name change", []string{start, `{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f"}`, `{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"g"}`}, "G9", "toolCallName"},
		{"chunk expansion refused by the verifier", []string{start, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","subagentRunId":"s","delta":"x"}`}, "V6", "expanded from TEXT_MESSAGE_CHUNK"},
		{"thinking end without start", []string{start, `{"type":"THINKING_END"}`}, "V12", "THINKING_END"},
		{"thinking content without start", []string{start, `{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"x"}`}, "V13", "THINKING_TEXT_MESSAGE_CONTENT"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, viols := fold(t, tc.lines...)
			require.NotEmpty(t, viols, "want a %s violation", tc.rule)
			assert.Equal(t, tc.rule, viols[0].Rule, "%v", viols[0])
			assert.Equal(t, len(tc.lines)-1, viols[0].Index, "the last event is refused")
			assert.Contains(t, viols[0].Message, tc.want)
		})
	}
}

func TestInvocationTree(t *testing.T) {
	v := mustFold(t,
		start,
		`{"type":"TEXT_MESSAGE_START","messageId":"m0"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m0"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"delegate","parentMessageId":"m0"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"{\"who\":\"r\"}"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"tc1"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"r","name":"researcher","description":"finds","parentToolCallId":"tc1","parentMessageId":"m0"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"c","name":"checker","parentSubagentRunId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"c"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"ok"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
		`{"type":"STEP_STARTED","stepName":"check","subagentRunId":"c"}`,
		`{"type":"STEP_FINISHED","stepName":"check","subagentRunId":"c"}`,
		`{"type":"REASONING_START","messageId":"rs","subagentRunId":"c"}`,
		`{"type":"REASONING_MESSAGE_START","messageId":"rm","role":"reasoning","subagentRunId":"c"}`,
		`{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm","delta":"hm"}`,
		`{"type":"REASONING_MESSAGE_END","messageId":"rm"}`,
		`{"type":"REASONING_END","messageId":"rs"}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"PLAN","content":{"steps":[]},"subagentRunId":"c"}`,
		`{"type":"ACTIVITY_DELTA","messageId":"a1","activityType":"PLAN","patch":[{"op":"add","path":"/steps/-","value":"x"}]}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"c","result":{"ok":true}}`,
		`{"type":"SUBAGENT_ERROR","subagentRunId":"r","message":"gave up","code":"E"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"g1","subagentRunId":"ghost"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"g1"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"res1","toolCallId":"tc1","content":"done"}`,
		finish,
	)
	root := v.Root()
	assert.Equal(t, []string{"r"}, root.Children())
	assert.Equal(t, []string{"m0", "res1"}, root.MessageIDs())
	tcs := root.ToolCalls()
	require.Len(t, tcs, 1)
	assert.Equal(t, view.ToolCall{ID: "tc1", Name: "delegate", Arguments: `{"who":"r"}`, MessageID: "m0", Status: view.EntityClosed,
		ResultMessageID: "res1", Result: json.RawMessage(`"done"`), Subagents: []string{"r"}}, tcs[0])
	tc, ok := v.ToolCall("tc1")
	require.True(t, ok)
	assert.Equal(t, tcs[0], tc)

	r := v.Invocation("r")
	require.NotNil(t, r)
	assert.Equal(t, "researcher", r.Name())
	assert.Equal(t, "finds", r.Description())
	assert.Equal(t, "", r.Parent())
	assert.Equal(t, "tc1", r.ParentToolCallID())
	assert.Equal(t, "m0", r.ParentMessageID())
	assert.Equal(t, view.Errored, r.Status())
	require.NotNil(t, r.Error())
	assert.Equal(t, "gave up", r.Error().Message)
	assert.Equal(t, []string{"c"}, r.Children())
	assert.True(t, r.Announced())

	c := v.Invocation("c")
	require.NotNil(t, c)
	assert.Equal(t, "r", c.Parent())
	p, ok := c.ParentSubagentRunID()
	assert.True(t, ok)
	assert.Equal(t, "r", p)
	assert.Equal(t, view.Finished, c.Status())
	assert.JSONEq(t, `{"ok":true}`, string(c.Result()))
	assert.Nil(t, c.Outcome())
	assert.Equal(t, []string{"m1", "rm", "a1"}, c.MessageIDs())
	assert.Empty(t, c.OpenMessageIDs())
	steps := c.Steps()
	require.Len(t, steps, 1)
	assert.Equal(t, view.Step{Name: "check", Status: view.EntityClosed, RunIndex: 0, StartIndex: 11, EndIndex: 12}, steps[0])
	assert.Equal(t, []view.Reasoning{{MessageID: "rm", Content: "hm", Status: view.EntityClosed}}, c.Reasoning())
	assert.Equal(t, []view.Span{{ID: "rs", Status: view.EntityClosed, StartIndex: 13, EndIndex: 17}}, c.Spans())
	acts := c.Activity()
	require.Len(t, acts, 1)
	assert.Equal(t, "PLAN", acts[0].ActivityType)
	assert.JSONEq(t, `{"steps":["x"]}`, string(acts[0].Content))

	g := v.Invocation("ghost")
	require.NotNil(t, g)
	assert.Equal(t, view.Unannounced, g.Status())
	assert.Equal(t, "ghost", g.Name(), "the name falls back to the id")
	assert.False(t, g.Announced())

	var ids []string
	for inv := range v.Invocations() {
		ids = append(ids, inv.ID())
	}
	assert.Equal(t, []string{"r", "c", "ghost"}, ids, "first-seen order")
	assert.Equal(t, 3, v.InvocationCount())

	var form struct {
		Invocations []map[string]any `json:"invocations"`
		Runs        []map[string]any `json:"runs"`
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &form))
	require.Len(t, form.Invocations, 3)
	assert.Equal(t, map[string]any{
		"subagentRunId": "c", "run": float64(0), "name": "checker", "description": nil, "status": "finished",
		"parentSubagentRunId": "r", "parentToolCallId": nil, "parentMessageId": nil,
		"children": []any{}, "messageIds": []any{"m1", "rm", "a1"}, "toolCallIds": []any{},
		"steps":   []any{map[string]any{"name": "check", "status": "closed"}},
		"outcome": nil, "result": map[string]any{"ok": true}, "error": nil,
	}, form.Invocations[1])
	assert.Equal(t, map[string]any{"threadId": "th", "runId": "r1", "status": "finished", "outcome": nil, "result": nil, "error": nil}, form.Runs[0])
}

func TestRunErrorAbandons(t *testing.T) {
	v := mustFold(t,
		start,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"a","name":"a"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"b","name":"b"}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"b","outcome":{"type":"suspended","interruptIds":["i"]}}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"a"}`,
		`{"type":"REASONING_START","messageId":"rs","subagentRunId":"a"}`,
		`{"type":"STEP_STARTED","stepName":"s","subagentRunId":"a"}`,
		`{"type":"RUN_ERROR","message":"crash"}`,
	)
	a := v.Invocation("a")
	assert.Equal(t, view.Abandoned, a.Status(), "RUN_ERROR abandons running invocations (G11)")
	assert.Equal(t, view.Suspended, v.Invocation("b").Status(), "a suspended invocation stays suspended")
	assert.Empty(t, a.OpenMessageIDs())
	assert.Equal(t, view.EntityAbandoned, a.Steps()[0].Status)
	assert.Equal(t, view.EntityAbandoned, a.Spans()[0].Status)
	// The next run may start; the abandoned id is a new invocation (G10).
	v2 := mustFold(t,
		start,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"a","name":"a"}`,
		`{"type":"RUN_ERROR","message":"crash"}`,
		start2,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"a","name":"a2"}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"a"}`,
		`{"type":"RUN_FINISHED","threadId":"th","runId":"r2"}`,
	)
	assert.Equal(t, 2, v2.InvocationCount(), "a reused id makes a new node")
	assert.Len(t, diagsWith(v2, "G10"), 1)
	assert.Equal(t, "a2", v2.Invocation("a").Name(), "Invocation returns the latest node")
	var statuses []view.Status
	for inv := range v2.Invocations() {
		statuses = append(statuses, inv.Status())
	}
	assert.Equal(t, []view.Status{view.Abandoned, view.Finished}, statuses)
}

func TestSuspendedContinuesAcrossRuns(t *testing.T) {
	v := mustFold(t,
		start,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"mailer"}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"suspended","interruptIds":["i1"]}}`,
		`{"type":"RUN_FINISHED","threadId":"th","runId":"r1","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"confirmation","subagentRunId":"s"}]}}`,
	)
	s1 := v.Invocation("s")
	assert.Equal(t, view.Suspended, s1.Status())
	require.NotNil(t, s1.Outcome())
	assert.Equal(t, []string{"i1"}, s1.Outcome().InterruptIDs)
	pending := v.PendingInterrupts()
	require.Len(t, pending, 1)
	require.NotNil(t, pending[0].Subagent)
	assert.Equal(t, "s", *pending[0].Subagent)

	v2 := v
	for _, l := range []string{start2, `{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"mailer"}`} {
		var err error
		v2, err = reducer.FoldJSON(v2, []byte(l))
		require.NoError(t, err)
	}
	s2 := v2.Invocation("s")
	assert.Equal(t, view.Running, s2.Status(), "a later run continues a suspended invocation (G10)")
	assert.Equal(t, 1, v2.InvocationCount(), "same node, no new invocation")
	assert.Equal(t, []string{"s"}, v2.Root().Children(), "not added twice")
	assert.Len(t, v2.PendingInterrupts(), 1, "pending interrupts stay until a run finishes")
	assert.Equal(t, view.Suspended, s1.Status(), "the older view is unchanged")
}

func TestInvocationIdentity(t *testing.T) {
	v := mustFold(t,
		start,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"a","name":"a"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"b","name":"b"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"ma","subagentRunId":"a"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"mb","subagentRunId":"b"}`,
	)
	step := func(v *view.View, l string) *view.View {
		next, err := reducer.FoldJSON(v, []byte(l))
		require.NoError(t, err)
		return next
	}
	a0, b0, r0 := v.Invocation("a"), v.Invocation("b"), v.Root()
	v1 := step(v, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"ma","delta":"x"}`)
	assert.NotSame(t, a0, v1.Invocation("a"), "a changed")
	assert.Greater(t, v1.Invocation("a").Version(), a0.Version())
	assert.Same(t, b0, v1.Invocation("b"), "b is unchanged: same pointer")
	assert.Same(t, r0, v1.Root(), "the root is unchanged")
	v2 := step(v1, `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/x","value":1}],"subagentRunId":"b"}`)
	assert.Same(t, b0, v2.Invocation("b"), "state is run-scoped: b's node does not change")
	v3 := step(v2, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"mb","delta":"y"}`)
	assert.NotSame(t, b0, v3.Invocation("b"))
	assert.Same(t, v2.Invocation("a"), v3.Invocation("a"))
	// Many interleaved invocations (more than the hot-node cache holds).
	lines := []string{start}
	for i := range 20 {
		lines = append(lines,
			ev(`{"type":"SUBAGENT_STARTED","subagentRunId":"s%d","name":"n"}`, i),
			ev(`{"type":"TEXT_MESSAGE_START","messageId":"m%d","subagentRunId":"s%d"}`, i, i))
	}
	w := mustFold(t, lines...)
	for round := range 3 {
		for i := range 20 {
			before := w
			w = step(w, ev(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m%d","delta":"%d"}`, i, round))
			for j := range 20 {
				if j == i {
					assert.NotSame(t, before.Invocation(ev("s%d", j)), w.Invocation(ev("s%d", j)))
				} else {
					assert.Same(t, before.Invocation(ev("s%d", j)), w.Invocation(ev("s%d", j)), "s%d unchanged when s%d streams", j, i)
				}
			}
		}
	}
	for i := range 20 {
		m, ok := w.Message(ev("m%d", i))
		require.True(t, ok)
		assert.JSONEq(t, `"012"`, string(m.Content))
		ids := w.Invocation(ev("s%d", i)).MessageIDs()
		assert.Equal(t, []string{ev("m%d", i)}, ids)
	}
}

func TestWarnings(t *testing.T) {
	v := mustFold(t,
		start,
		`{"type":"STATE_SNAPSHOT","snapshot":{"a":1}}`,
		`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/nope","value":1}]}`,
		`{"type":"STATE_DELTA","delta":[{"op":"increment","path":"/a"},{"op":"add","path":"/b","value":2}]}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"P","content":{}}`,
		`{"type":"ACTIVITY_DELTA","messageId":"a1","activityType":"P","patch":[{"op":"remove","path":"/gone"}]}`,
		`{"type":"THINKING_START","title":"t"}`,
		`{"type":"THINKING_TEXT_MESSAGE_START"}`,
		`{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hmm"}`,
		`{"type":"THINKING_TEXT_MESSAGE_END"}`,
		`{"type":"THINKING_END"}`,
		`{"type":"RUN_FINISHED","threadId":"th","runId":"r1","subagentRunId":"s"}`,
	)
	g8 := diagsWith(v, "G8")
	require.Len(t, g8, 2, "a failed state patch and a failed activity patch")
	assert.Equal(t, 2, g8[0].Index)
	assert.Equal(t, event.TypeStateDelta, g8[0].Type)
	assert.Contains(t, g8[0].Message, "/nope")
	assert.Equal(t, event.TypeActivityDelta, g8[1].Type)
	assert.JSONEq(t, `{"a":1,"b":2}`, string(v.State()))
	var g2 []string
	for _, d := range diagsWith(v, "G2") {
		g2 = append(g2, string(d.Type))
	}
	assert.Contains(t, g2, "STATE_DELTA", "the unknown op is reported")
	assert.Contains(t, g2, "THINKING_START")
	assert.NotEmpty(t, diagsWith(v, "G3"), "the tag dropped from RUN_FINISHED is reported")
	msgs := v.MessageList()
	require.Len(t, msgs, 2)
	assert.Equal(t, event.RoleReasoning, msgs[1].Role)
	assert.JSONEq(t, `"hmm"`, string(msgs[1].Content))
	assert.True(t, strings.HasPrefix(msgs[1].ID, "agview-thinking-"), "minted id %q", msgs[1].ID)
	assert.Zero(t, v.ViolationCount())
}

func TestMessagesSnapshotPreservation(t *testing.T) {
	local := []string{
		start,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"PLAN","content":{"n":1}}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a2","activityType":"SEARCH","content":{"n":2}}`,
		`{"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"}`,
		`{"type":"REASONING_MESSAGE_END","messageId":"r1"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"t1"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"t1"}`,
	}
	ids := func(v *view.View) []string {
		var out []string
		for m := range v.Messages() {
			out = append(out, m.ID)
		}
		return out
	}
	cases := []struct {
		name string
		snap string
		want []string
	}{
		{"no activity, no reasoning in the snapshot: both preserved",
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"hi"}]}`,
			[]string{"a1", "a2", "r1", "u"}},
		{"activity in the snapshot: local activity dropped",
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a9","role":"activity","activityType":"PLAN","content":{}},{"id":"r9","role":"reasoning","content":"x"}]}`,
			[]string{"a9", "r9"}},
		{"declared authority keeps other types",
			`{"type":"MESSAGES_SNAPSHOT","messages":[],"metadata":{"@ag-ui/client":{"authoritativeActivityTypes":["PLAN"]}}}`,
			[]string{"a2", "r1"}},
		{"null authority owns every type",
			`{"type":"MESSAGES_SNAPSHOT","messages":[],"metadata":{"@ag-ui/client":{"authoritativeActivityTypes":null}}}`,
			[]string{"r1"}},
		{"invalid authority owns none",
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a9","role":"activity","activityType":"PLAN","content":{}}],"metadata":{"@ag-ui/client":{"authoritativeActivityTypes":"oops"}}}`,
			[]string{"a1", "a2", "r1", "a9"}},
		{"named messages are replaced in place",
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"new","role":"user","content":"n"},{"id":"t1","role":"assistant","content":"replaced"}]}`,
			[]string{"a1", "a2", "r1", "t1", "new"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := mustFold(t, append(append([]string{}, local...), tc.snap)...)
			assert.Equal(t, tc.want, ids(v))
		})
	}
	v := mustFold(t, append(append([]string{}, local...),
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"t1","role":"assistant","content":"replaced","subagentRunId":"s"}]}`)...)
	m, _ := v.Message("t1")
	assert.JSONEq(t, `"replaced"`, string(m.Content))
	assert.Equal(t, []string{"t1"}, v.Invocation("s").MessageIDs(), "a re-tagged message moves to its invocation")
	assert.NotContains(t, v.Root().MessageIDs(), "t1")
}

func TestToolResultOrder(t *testing.T) {
	v := mustFold(t,
		start,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"a","toolCallName":"f","parentMessageId":"m1"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"a"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"b","toolCallName":"f","parentMessageId":"m1"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"b"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m2"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m2"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"rb","toolCallId":"b","content":"B"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"ra","toolCallId":"a","content":"A","subagentRunId":"exec"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"rx","toolCallId":"unknown","content":"X"}`,
		finish,
	)
	var ids []string
	for m := range v.Messages() {
		ids = append(ids, m.ID)
	}
	assert.Equal(t, []string{"m1", "rb", "ra", "m2", "rx"}, ids, "results follow the holder, after the tool messages already there")
	assert.Equal(t, []string{"ra"}, v.Invocation("exec").MessageIDs(), "a result is attributed on its own (R26)")
}

func TestMetadataMerge(t *testing.T) {
	v := mustFold(t,
		start,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"a":1,"b":1}}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","metadata":{"b":2,"c":null}}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"d":"z"}}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"m","metadata":{"k":1}}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{}","metadata":{"k":2}}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c"}`,
		`{"type":"STEP_STARTED","stepName":"s","metadata":{"ignored":true}}`,
		`{"type":"STEP_FINISHED","stepName":"s"}`,
		finish,
	)
	m, ok := v.Message("m")
	require.True(t, ok)
	assert.JSONEq(t, `{"a":1,"b":2,"c":null,"d":"z"}`, string(m.Metadata), "shallow merge, last write wins")
	require.Len(t, m.ToolCalls, 1)
	assert.JSONEq(t, `{"k":2}`, string(m.ToolCalls[0].Metadata), "tool call events merge into the call")
}

func TestInputEcho(t *testing.T) {
	v := mustFold(t,
		`{"type":"RUN_STARTED","threadId":"th","runId":"r1","input":{"threadId":"th","runId":"r1","messages":[
			{"id":"u","role":"user","content":[{"type":"text","text":"hi"}]},
			{"id":"h","role":"assistant","subagentRunId":"s","toolCalls":[{"id":"tc","type":"function","function":{"name":"f","arguments":"{}"}}]}]}}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"tr","toolCallId":"tc","content":"r"}`,
		finish,
		start2,
		`{"type":"TOOL_CALL_START","toolCallId":"tc","toolCallName":"f","subagentRunId":"s"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"tc"}`,
		`{"type":"RUN_FINISHED","threadId":"th","runId":"r2"}`,
	)
	msgs := v.MessageList()
	require.Len(t, msgs, 3)
	assert.Equal(t, "u", msgs[0].ID)
	assert.JSONEq(t, `[{"type":"text","text":"hi"}]`, string(msgs[0].Content), "array content is kept")
	assert.Equal(t, "tr", msgs[2].ID, "the result follows the history message holding the call")
	require.Len(t, msgs[1].ToolCalls, 1, "reopening a held call adds no duplicate")
	_, viols := fold(t,
		`{"type":"RUN_STARTED","threadId":"th","runId":"r1","input":{"threadId":"th","runId":"r1","messages":[{"id":"h","role":"assistant","content":"x","subagentRunId":"s","toolCalls":[{"id":"tc","type":"function","function":{"name":"f","arguments":"{}"}}]}]}}`,
		`{"type":"TOOL_CALL_START","toolCallId":"tc","toolCallName":"f","subagentRunId":"other"}`,
	)
	require.Len(t, viols, 1)
	assert.Equal(t, "R16", viols[0].Rule, "history tool calls belong to their message's owner (R25)")
}

func TestStateProvenance(t *testing.T) {
	v := mustFold(t, start)
	_, ok := v.StateChangedBy()
	assert.False(t, ok)
	v = mustFold(t, start, `{"type":"STATE_SNAPSHOT","snapshot":{"n":1},"subagentRunId":"s"}`)
	by, ok := v.StateChangedBy()
	assert.True(t, ok)
	assert.Equal(t, "s", by)
	v = mustFold(t, start, `{"type":"STATE_SNAPSHOT","snapshot":null}`)
	assert.Equal(t, "null", string(v.State()), "a null snapshot is a legal state")
}

func TestGettersReturnCopies(t *testing.T) {
	v := mustFold(t,
		start,
		`{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","name":"bob"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
	)
	s := v.State()
	s[1] = 'X'
	assert.JSONEq(t, `{"n":1}`, string(v.State()))
	msgs := v.MessageList()
	*msgs[0].Name = "eve"
	msgs[0].Content[1] = 'X'
	m, _ := v.Message("m")
	assert.Equal(t, "bob", *m.Name)
	assert.JSONEq(t, `"hi"`, string(m.Content))
}

func TestEventsAreNotRetained(t *testing.T) {
	e := &event.RunFinished{ThreadID: "th", RunID: "r1", Result: json.RawMessage(`{"a":1}`),
		Outcome: &event.RunFinishedOutcome{Type: event.OutcomeInterrupt, Interrupts: []event.Interrupt{{ID: "i", Reason: "r"}}}}
	v := mustFold(t, start)
	v, err := reducer.Reduce(v, e)
	require.NoError(t, err)
	e.Result[2] = 'X'
	e.Outcome.Interrupts[0].ID = "changed"
	assert.JSONEq(t, `{"a":1}`, string(v.Runs()[0].Result))
	assert.Equal(t, "i", v.PendingInterrupts()[0].ID)
	assert.Equal(t, "i", v.Runs()[0].Interrupts[0].ID)
}

func TestEmptySubagentID(t *testing.T) {
	// "" is a legal subagentRunId, distinct from an absent one (the parent).
	v := mustFold(t,
		start,
		`{"type":"TEXT_MESSAGE_START","messageId":"p"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"e","subagentRunId":""}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"e","delta":"x"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"e"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"p"}`,
	)
	inv := v.Invocation("")
	require.NotNil(t, inv)
	assert.False(t, inv.IsRoot(), "Invocation(\"\") is the subagent whose id is \"\"")
	assert.Equal(t, []string{"e"}, inv.MessageIDs())
	assert.Equal(t, []string{"p"}, v.Root().MessageIDs())
	m, _ := v.Message("e")
	require.NotNil(t, m.Subagent)
	assert.Equal(t, "", *m.Subagent)
	_, viols := fold(t, start,
		`{"type":"TEXT_MESSAGE_START","messageId":"p"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"p","delta":"x","subagentRunId":""}`)
	require.Len(t, viols, 1)
	assert.Equal(t, "R15", viols[0].Rule, "a \"\" tag disagrees with the parent")
}

// TestRetainedMemory guards against views keeping earlier views (or earlier
// versions of their parts) alive: the heap a final view holds must stay a
// small multiple of what it shows.
func TestRetainedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const subagents, deltas = 16, 1500
	evs := []event.Event{&event.RunStarted{ThreadID: "t", RunID: "r"}}
	for s := range subagents {
		id := fmt.Sprintf("s%d", s)
		evs = append(evs,
			&event.SubagentStarted{ID: id, Name: "worker"},
			&event.TextMessageStart{Attribution: event.By(id), MessageID: "m" + id})
	}
	for d := range deltas {
		for s := range subagents {
			id := fmt.Sprintf("s%d", s)
			evs = append(evs, &event.TextMessageContent{MessageID: "m" + id, Delta: fmt.Sprintf("%09d ", d)})
			if d%10 == 0 {
				// Node changes that leave the streamed message alone.
				evs = append(evs,
					&event.StepStarted{Attribution: event.By(id), StepName: "s"},
					&event.StepFinished{Attribution: event.By(id), StepName: "s"})
			}
			if d%100 == 0 {
				evs = append(evs, &event.StateDelta{Attribution: event.By(id), Delta: json.RawMessage(fmt.Sprintf(`[{"op":"add","path":"/%s","value":%d}]`, id, d))})
			}
		}
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	v := view.New()
	for _, e := range evs {
		var err error
		v, err = reducer.Reduce(v, e)
		require.NoError(t, err)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	held := float64(int64(m1.HeapAlloc) - int64(m0.HeapAlloc))
	content := float64(subagents * deltas * 10)
	t.Logf("held %.0f bytes for %.0f bytes of streamed text (%.2f×)", held, content, held/content)
	assert.Less(t, held/content, 3.0, "the final view holds too much: earlier views or versions are kept alive")
	runtime.KeepAlive(v)
	runtime.KeepAlive(evs)
}

func TestActivity(t *testing.T) {
	v := mustFold(t,
		start,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN","content":{"n":1},"subagentRunId":"s1","metadata":{"k":1}}`,
		`{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"PLAN2","patch":[{"op":"replace","path":"/n","value":2}],"subagentRunId":"s1"}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN","content":{"n":9},"replace":false,"subagentRunId":"s2","metadata":{"j":2}}`,
	)
	m, _ := v.Message("a")
	assert.JSONEq(t, `{"n":2}`, string(m.Content), "replace:false leaves the content")
	assert.Equal(t, "PLAN2", *m.ActivityType, "a delta updates the activity type")
	assert.JSONEq(t, `{"k":1,"j":2}`, string(m.Metadata), "but its metadata still merges")
	require.NotNil(t, m.Subagent)
	assert.Equal(t, "s1", *m.Subagent)

	// R27: a replacing snapshot re-mints and re-owns, even from another owner.
	v = mustFold(t,
		start,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN","content":{"n":1},"subagentRunId":"s1","metadata":{"k":1}}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"DONE","content":{"n":3}}`,
		`{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"DONE","patch":[{"op":"add","path":"/m","value":1}]}`,
	)
	m, _ = v.Message("a")
	assert.JSONEq(t, `{"n":3,"m":1}`, string(m.Content))
	assert.Nil(t, m.Subagent, "the replacing snapshot's (absent) tag")
	assert.JSONEq(t, `{"k":1}`, string(m.Metadata), "metadata is kept")
	assert.Empty(t, v.Invocation("s1").MessageIDs(), "the activity moved to its new owner")
	assert.Equal(t, []string{"a"}, v.Root().MessageIDs())
	_, viols := fold(t,
		start,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"P","content":{}}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"P","content":{},"subagentRunId":"s2"}`,
		`{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"P","patch":[],"subagentRunId":"s1"}`,
	)
	require.Len(t, viols, 1)
	assert.Equal(t, "R15", viols[0].Rule, "the delta must agree with the re-owned activity")
	v = mustFold(t,
		start,
		`{"type":"TEXT_MESSAGE_START","messageId":"t"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"t"}`,
		`{"type":"ACTIVITY_DELTA","messageId":"t","activityType":"P","patch":[]}`,
	)
	assert.Len(t, diagsWith(v, "G14"), 1, "a delta for a non-activity message is ignored with a warning")
}

func TestSnapshotWhileStreaming(t *testing.T) {
	v := mustFold(t,
		start,
		`{"type":"TEXT_MESSAGE_START","messageId":"keep","subagentRunId":"s"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"keep","delta":"a"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"drop"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"drop"}`,
		`{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}`,
		// keep is replaced (and moves to the root), drop and its call leave the list,
		// the open reasoning message stays (the snapshot has no reasoning).
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"keep","role":"assistant","content":"A"}]}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"keep","delta":"b"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"drop","delta":"x"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{}"}`,
		`{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"hm"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"keep"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"drop"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c"}`,
		`{"type":"REASONING_MESSAGE_END","messageId":"r"}`,
		finish,
	)
	assert.JSONEq(t, `[{"id":"keep","role":"assistant","content":"Ab"},{"id":"r","role":"reasoning","content":"hm"}]`, messagesJSON(t, v),
		"replaced in place, then the preserved reasoning")
	assert.Len(t, diagsWith(v, "G14"), 2, "the dropped message's delta and the dropped call's arguments")
	assert.Equal(t, []string{"r", "keep"}, v.Root().MessageIDs(), "creation order within the invocation: keep moved in last")
	assert.Empty(t, v.Invocation("s").MessageIDs())
	assert.Empty(t, v.Root().OpenMessageIDs())
}
