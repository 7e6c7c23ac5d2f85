package reducer_test

// Tests of the subagent lifecycle: continued invocations, RUN_ERROR after
// RUN_FINISHED, the run an invocation belongs to, and unannounced invocations
// that a RUN_ERROR abandons.

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// A later run continuing a suspended invocation clears the suspended
// segment's outcome and result.
func TestContinuedInvocationClearsOutcome(t *testing.T) {
	suspend := []string{start, saStart,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"sa1","result":{"partial":true},"outcome":{"type":"suspended","interruptIds":["i1"]}}`,
		`{"type":"RUN_FINISHED","threadId":"th","runId":"r1","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"confirmation","subagentRunId":"sa1"}]}}`,
		start2, saStart}
	cases := []struct {
		name    string
		rest    []string
		status  view.Status
		outcome *event.SubagentOutcome
		result  string
	}{
		{"running again", nil, view.Running, nil, ""},
		{"finished again", []string{`{"type":"SUBAGENT_FINISHED","subagentRunId":"sa1","result":"all"}`}, view.Finished, nil, `"all"`},
		{"suspended again", []string{`{"type":"SUBAGENT_FINISHED","subagentRunId":"sa1","outcome":{"type":"suspended"}}`},
			view.Suspended, &event.SubagentOutcome{Type: event.SubagentSuspended}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := mustFold(t, append(append([]string{}, suspend...), tc.rest...)...)
			require.Equal(t, 1, v.InvocationCount(), "the same invocation continues")
			inv := v.Invocation("sa1")
			assert.Equal(t, tc.status, inv.Status())
			assert.Equal(t, tc.outcome, inv.Outcome())
			if tc.result == "" {
				assert.Nil(t, inv.Result())
			} else {
				assert.JSONEq(t, tc.result, string(inv.Result()))
			}
			assert.Equal(t, 0, inv.RunIndex(), "first seen in the first run")
		})
	}
}

// RUN_ERROR after RUN_FINISHED (allowed by V2) leaves the finished run as
// it was and is recorded as a warning.
func TestRunErrorAfterFinish(t *testing.T) {
	interrupted := `{"type":"RUN_FINISHED","threadId":"th","runId":"r1","result":{"ok":1},"outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"confirmation"}]}}`
	cases := []struct {
		name    string
		finish  string
		status  view.RunStatus
		root    view.Status
		pending int
	}{
		{"finished", finish, view.RunFinished, view.Finished, 0},
		{"interrupted", interrupted, view.RunInterrupted, view.Suspended, 1},
		{"cancelled", `{"type":"RUN_FINISHED","threadId":"th","runId":"r1","outcome":{"type":"cancelled"}}`, view.RunCancelled, view.Abandoned, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := mustFold(t, start, tc.finish)
			v, err := reducer.FoldJSON(before, []byte(`{"type":"RUN_ERROR","message":"late failure","code":"E9"}`))
			require.NoError(t, err, "V2: RUN_ERROR may follow RUN_FINISHED")
			assert.Equal(t, before.Runs(), v.Runs(), "the finished run is kept as it was")
			r, _ := v.LastRun()
			assert.Equal(t, tc.status, r.Status)
			assert.Equal(t, 1, r.EndIndex)
			assert.Nil(t, r.Error)
			assert.Equal(t, tc.root, v.Root().Status())
			assert.Len(t, v.PendingInterrupts(), tc.pending)
			w := diagsWith(v, "V2")
			require.Len(t, w, 1)
			assert.Equal(t, view.DiagWarning, w[0].Kind)
			assert.Equal(t, 2, w[0].Index)
			assert.Contains(t, w[0].Message, `"late failure"`)
			assert.Contains(t, w[0].Message, `"E9"`)
			assert.Contains(t, w[0].Message, "after run 'r1' (thread 'th') finished")

			_, err = reducer.FoldJSON(v, []byte(runError))
			var viol *reducer.Violation
			require.ErrorAs(t, err, &viol, "V3: after RUN_ERROR only RUN_STARTED")
			assert.Equal(t, "V3", viol.Rule)
			_, err = reducer.FoldJSON(v, []byte(start2))
			assert.NoError(t, err)
		})
	}
}

// A reused id (G10) gives two invocations with the same subagentRunId: the
// JSON form tells them apart by "run", the run each was first seen in
// .
func TestInvocationRunKey(t *testing.T) {
	spawnIn := func(run string) []string {
		return []string{
			`{"type":"RUN_STARTED","threadId":"th","runId":"` + run + `"}`,
			`{"type":"SUBAGENT_STARTED","subagentRunId":"boss","name":"b"}`,
			`{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"n","parentSubagentRunId":"boss"}`,
			saFinish,
			`{"type":"SUBAGENT_FINISHED","subagentRunId":"boss","outcome":{"type":"suspended"}}`,
			`{"type":"RUN_FINISHED","threadId":"th","runId":"` + run + `"}`,
		}
	}
	type inv struct {
		ID       string   `json:"subagentRunId"`
		Run      *int     `json:"run"`
		Status   string   `json:"status"`
		Children []string `json:"children"`
	}
	cases := []struct {
		name   string
		events []string
		want   []inv
	}{
		{"reuse after finishing makes a new node in the later run", append(spawnIn("r1"), spawnIn("r2")...),
			[]inv{
				{"boss", ptr(0), "suspended", []string{"sa1", "sa1"}},
				{"sa1", ptr(0), "finished", []string{}},
				{"sa1", ptr(1), "finished", []string{}},
			}},
		{"attribution in an earlier run, announced in a later one", []string{start,
			`{"type":"CUSTOM","name":"x","value":1,"subagentRunId":"sa1"}`, finish,
			start2, saStart, saFinish, finish},
			[]inv{{"sa1", ptr(0), "finished", []string{}}}},
		{"history in the second run", []string{start, finish,
			`{"type":"RUN_STARTED","threadId":"th","runId":"r2","input":{"threadId":"th","runId":"r2","messages":[{"id":"u1","role":"user","content":"hi","subagentRunId":"sa1"}]}}`},
			[]inv{{"sa1", ptr(1), "unannounced", []string{}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := mustFold(t, tc.events...)
			b, err := json.Marshal(v)
			require.NoError(t, err)
			var form struct {
				Invocations []inv `json:"invocations"`
			}
			require.NoError(t, json.Unmarshal(b, &form))
			assert.Equal(t, tc.want, form.Invocations)
			i := 0
			for n := range v.Invocations() {
				assert.Equal(t, *tc.want[i].Run, n.RunIndex(), "RunIndex of invocation %d", i)
				i++
			}
		})
	}
}

// An invocation seen only through attribution reads abandoned when a
// RUN_ERROR (or a broken transport) abandons something it had open, and
// stays unannounced otherwise.
func TestUnannouncedAbandoned(t *testing.T) {
	cases := []struct {
		name   string
		events []string
		end    error // End(v, end) when non-nil, else the stream ends with RUN_ERROR
		want   view.Status
	}{
		{"open message", []string{start, `{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`}, nil, view.Abandoned},
		{"open tool call", []string{start, `{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"f","subagentRunId":"sa1"}`}, nil, view.Abandoned},
		{"open step", []string{start, `{"type":"STEP_STARTED","stepName":"s","subagentRunId":"sa1"}`}, nil, view.Abandoned},
		{"open reasoning span", []string{start, `{"type":"REASONING_START","messageId":"rs","subagentRunId":"sa1"}`}, nil, view.Abandoned},
		{"open chunk stream", []string{start, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"x","subagentRunId":"sa1"}`}, nil, view.Abandoned},
		{"open message, broken transport", []string{start, `{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`}, errors.New("EOF"), view.Abandoned},
		{"nothing open", []string{start,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
			`{"type":"STATE_SNAPSHOT","snapshot":{},"subagentRunId":"sa1"}`}, nil, view.Unannounced},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := mustFold(t, tc.events...)
			if tc.end != nil {
				v = reducer.End(v, tc.end)
			} else {
				v = mustFoldOn(t, v, runError)
			}
			inv := v.Invocation("sa1")
			require.NotNil(t, inv)
			assert.Equal(t, tc.want, inv.Status())
			assert.False(t, inv.Announced())
		})
	}

	abandoned := []string{start, `{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`, runError}
	t.Run("attributed again in a later run it reads unannounced", func(t *testing.T) {
		v := mustFold(t, append(append([]string{}, abandoned...), start2, `{"type":"CUSTOM","name":"x","value":1,"subagentRunId":"sa1"}`)...)
		assert.Equal(t, view.Unannounced, v.Invocation("sa1").Status())
		assert.Equal(t, 1, v.InvocationCount())
	})
	t.Run("announced in a later run it is the same invocation, running", func(t *testing.T) {
		v := mustFold(t, append(append([]string{}, abandoned...), start2, saStart)...)
		require.Equal(t, 1, v.InvocationCount())
		inv := v.Invocation("sa1")
		assert.Equal(t, view.Running, inv.Status())
		assert.True(t, inv.Announced())
		assert.Equal(t, []string{"m1"}, inv.MessageIDs())
		assert.Empty(t, diagsWith(v, "G10"), "announcing an unannounced invocation reuses nothing")
	})
}
