package reducer_test

// Regression tests for the defects an adversarial review of the reducer
// found, one test per defect (and per decision taken on the doubtful
// points). The streams are the reviewer's, written inline.

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

// refusal is a violation expected at an event index.
type refusal struct {
	index int
	rule  string
}

// refusals returns the index and rule of each violation.
func refusals(viols []*reducer.Violation) []refusal {
	out := []refusal{}
	for _, v := range viols {
		out = append(out, refusal{v.Index, v.Rule})
	}
	return out
}

const (
	saStart  = `{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"n"}`
	saFinish = `{"type":"SUBAGENT_FINISHED","subagentRunId":"sa1"}`
	runError = `{"type":"RUN_ERROR","message":"give up"}`
)

// A chunk stream whose entity an untagged explicit END closed goes stale.
// The first event that closes or continues it is refused, as the reference
// refuses it (the END it synthesizes finds nothing open), and only that one:
// the stale stream never wedges the stream afterwards (review defect 1).
func TestReviewStaleChunkLane(t *testing.T) {
	kinds := []struct {
		name  string
		chunk string // a chunk in sa1's lane
		end   string // the untagged explicit END of the same entity
		rule  string // the rule the synthesized END breaks
		kind  string
		next  string // an id-less continuation chunk in sa1's lane
	}{
		{"text", `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"hi","subagentRunId":"sa1"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`, "V7", "text message 'm1'",
			`{"type":"TEXT_MESSAGE_CHUNK","delta":"more","subagentRunId":"sa1"}`},
		{"tool call", `{"type":"TOOL_CALL_CHUNK","toolCallId":"tc1","toolCallName":"f","delta":"{","subagentRunId":"sa1"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"tc1"}`, "V9", "tool call 'tc1'",
			`{"type":"TOOL_CALL_CHUNK","delta":"}","subagentRunId":"sa1"}`},
		{"reasoning", `{"type":"REASONING_MESSAGE_CHUNK","messageId":"rm1","delta":"hm","subagentRunId":"sa1"}`,
			`{"type":"REASONING_MESSAGE_END","messageId":"rm1"}`, "V13", "reasoning message 'rm1'",
			`{"type":"REASONING_MESSAGE_CHUNK","delta":"m","subagentRunId":"sa1"}`},
	}
	for _, k := range kinds {
		prefix := []string{start, saStart, k.chunk, k.end} // events 0–3, all accepted
		cases := []struct {
			name     string
			rest     []string
			want     []refusal
			stale    int // index of the refusal naming the stale stream, -1: none
			verb     string
			runs     []view.RunStatus
			sa1      view.Status
			warnings int // G9 warnings
		}{
			{"the reviewer's stream: SUBAGENT_FINISHED meets it, then RUN_FINISHED lacks the finish, RUN_ERROR ends the run",
				[]string{saFinish, finish, runError, start2},
				[]refusal{{4, k.rule}, {5, "R10"}}, 4, "closes",
				[]view.RunStatus{view.RunErrored, view.RunRunning}, view.Abandoned, 0},
			{"refused once, the same event is accepted again",
				[]string{saFinish, saFinish, finish, start2},
				[]refusal{{4, k.rule}}, 4, "closes",
				[]view.RunStatus{view.RunFinished, view.RunRunning}, view.Finished, 0},
			{"RUN_ERROR meeting it is accepted with a warning (V15)",
				[]string{runError, start2},
				[]refusal{}, -1, "",
				[]view.RunStatus{view.RunErrored, view.RunRunning}, view.Abandoned, 1},
			{"RUN_FINISHED meeting it is refused once",
				[]string{finish, saFinish, finish},
				[]refusal{{4, k.rule}}, 4, "closes",
				[]view.RunStatus{view.RunFinished}, view.Finished, 0},
			{"MESSAGES_SNAPSHOT meeting it is refused once",
				[]string{`{"type":"MESSAGES_SNAPSHOT","messages":[]}`, `{"type":"MESSAGES_SNAPSHOT","messages":[]}`, saFinish, finish},
				[]refusal{{4, k.rule}}, 4, "closes",
				[]view.RunStatus{view.RunFinished}, view.Finished, 0},
			{"a continuation chunk meeting it is refused once",
				[]string{k.next, saFinish, finish},
				[]refusal{{4, k.rule}}, 4, "continues",
				[]view.RunStatus{view.RunFinished}, view.Finished, 0},
		}
		for _, tc := range cases {
			t.Run(k.name+"/"+tc.name, func(t *testing.T) {
				v, viols := fold(t, append(prefix, tc.rest...)...)
				assert.Equal(t, tc.want, refusals(viols))
				if tc.stale >= 0 {
					require.NotEmpty(t, viols)
					msg := viols[0].Message
					assert.Contains(t, msg, tc.verb+" the pending chunk stream in the lane of subagent 'sa1', which was streaming "+k.kind)
					assert.Contains(t, msg, "already ended")
					assert.Contains(t, msg, "discarded")
					assert.NotContains(t, msg, "expanded from", "nothing was expanded from the refused event")
				}
				var statuses []view.RunStatus
				for _, r := range v.Runs() {
					statuses = append(statuses, r.Status)
				}
				assert.Equal(t, tc.runs, statuses)
				inv := v.Invocation("sa1")
				require.NotNil(t, inv)
				assert.Equal(t, tc.sa1, inv.Status())
				assert.Len(t, diagsWith(v, "G9"), tc.warnings)
			})
		}
	}

	t.Run("Reduce refuses the same event again: only Fold drops the stale stream", func(t *testing.T) {
		v := mustFold(t, start, saStart, kinds[0].chunk, kinds[0].end)
		e, err := event.Decode([]byte(saFinish))
		require.NoError(t, err)
		next, err := reducer.Reduce(v, e)
		require.Error(t, err)
		assert.Same(t, v, next, "G1: Reduce returns the view itself")
		_, err = reducer.Reduce(v, e)
		assert.Error(t, err, "v still holds the stale stream")
		folded, err := reducer.Fold(v, e)
		require.Error(t, err)
		_, err = reducer.Reduce(folded, e)
		assert.NoError(t, err, "the view Fold recorded the refusal in no longer holds it")
	})

	t.Run("an explicit untagged END agreeing with a live stream's message leaves the stream alone", func(t *testing.T) {
		// The parent lane's stream m2 is unrelated: the untagged END of sa1's
		// m1 closes it first (its own lane), and m2 ends closed.
		v, viols := fold(t, start,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","delta":"p"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
			finish)
		assert.Empty(t, viols)
		assert.Empty(t, v.Root().OpenMessageIDs())
	})
}

// MESSAGES_SNAPSHOT overwrites owners (R25), and continuations of entities
// still open are checked against the snapshot's owner, not the opener's
// (review defect 2).
func TestReviewSnapshotReownsOpenEntities(t *testing.T) {
	cases := []struct {
		name   string
		events []string
		want   []refusal
		check  func(t *testing.T, v *view.View)
	}{
		{"text message re-tagged", []string{start,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"assistant","content":"x","subagentRunId":"sa2"}]}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":" old","subagentRunId":"sa1"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":" new","subagentRunId":"sa2"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1","subagentRunId":"sa2"}`,
			finish},
			[]refusal{{3, "R15"}},
			func(t *testing.T, v *view.View) {
				m, ok := v.Message("m1")
				require.True(t, ok)
				assert.JSONEq(t, `"x new"`, string(m.Content))
				assert.Equal(t, []string{"m1"}, v.Invocation("sa2").MessageIDs(), "the message lives with its new owner")
			}},
		{"text message re-tagged to the parent", []string{start,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"assistant","content":"x"}]}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1","subagentRunId":"sa1"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
			finish},
			[]refusal{{3, "R15"}}, nil},
		{"tool call whose message is re-tagged", []string{start,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"f","parentMessageId":"m1"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"assistant","subagentRunId":"sa2","toolCalls":[{"id":"tc1","type":"function","function":{"name":"f","arguments":""}}]}]}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"{}","subagentRunId":"sa2"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"x","subagentRunId":"sa1"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"tc1","subagentRunId":"sa2"}`,
			finish},
			[]refusal{{6, "R15"}},
			func(t *testing.T, v *view.View) {
				tc, ok := v.ToolCall("tc1")
				require.True(t, ok)
				assert.Equal(t, "{}", tc.Arguments)
				assert.Equal(t, view.EntityClosed, tc.Status)
			}},
		{"parent's tool call refused after re-tagging", []string{start,
			`{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"f","parentMessageId":"m1","subagentRunId":"sa1"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"assistant","toolCalls":[{"id":"tc1","type":"function","function":{"name":"f","arguments":""}}]}]}`,
			`{"type":"TOOL_CALL_END","toolCallId":"tc1","subagentRunId":"sa1"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"tc1"}`,
			finish},
			[]refusal{{3, "R15"}}, nil},
		{"reasoning message and its span re-tagged", []string{start,
			`{"type":"REASONING_START","messageId":"rm1","subagentRunId":"sa1"}`,
			`{"type":"REASONING_MESSAGE_START","messageId":"rm1","role":"reasoning","subagentRunId":"sa1"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"rm1","role":"reasoning","content":"a","subagentRunId":"sa2"}]}`,
			`{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm1","delta":"x","subagentRunId":"sa1"}`,
			`{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm1","delta":"b","subagentRunId":"sa2"}`,
			`{"type":"REASONING_MESSAGE_END","messageId":"rm1","subagentRunId":"sa1"}`,
			`{"type":"REASONING_MESSAGE_END","messageId":"rm1","subagentRunId":"sa2"}`,
			`{"type":"REASONING_END","messageId":"rm1","subagentRunId":"sa1"}`,
			`{"type":"REASONING_END","messageId":"rm1","subagentRunId":"sa2"}`,
			finish},
			[]refusal{{4, "R15"}, {6, "R15"}, {8, "R15"}},
			func(t *testing.T, v *view.View) {
				r := v.Invocation("sa2").Reasoning()
				require.Len(t, r, 1)
				assert.Equal(t, view.Reasoning{MessageID: "rm1", Content: "ab", Status: view.EntityClosed}, r[0])
			}},
		{"an open message the snapshot restates keeps reading open", []string{start,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[]}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"assistant","content":"x"}]}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"y"}`},
			[]refusal{},
			func(t *testing.T, v *view.View) {
				assert.Equal(t, []string{"m1"}, v.Root().OpenMessageIDs())
				m, _ := v.Message("m1")
				assert.JSONEq(t, `"xy"`, string(m.Content))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, viols := fold(t, tc.events...)
			assert.Equal(t, tc.want, refusals(viols))
			if tc.check != nil {
				tc.check(t, v)
			}
		})
	}
}

// A snapshot restating an assistant message keeps what it cannot say about
// the message's tool calls — the subagents they spawned, their results — and
// a tool message in history answers the call it names (review defect 3).
func TestReviewHistoryKeepsCallLinks(t *testing.T) {
	spawn := []string{start,
		`{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"delegate","parentMessageId":"a1"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"tc1"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"n","parentToolCallId":"tc1"}`,
		saFinish,
		`{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"tc1","content":"done"}`,
	}
	a1 := `{"id":"a1","role":"assistant","toolCalls":[{"id":"tc1","type":"function","function":{"name":"delegate","arguments":""}}]}`
	cases := []struct {
		name     string
		events   []string
		result   string // the call's result message id, "" for none
		content  string // its content JSON
		spawned  []string
		status   view.EntityStatus
		messages int
	}{
		{"snapshot restating the call and its result", append(append([]string{}, spawn...),
			`{"type":"MESSAGES_SNAPSHOT","messages":[`+a1+`,{"id":"r1","role":"tool","toolCallId":"tc1","content":"done"}]}`, finish),
			"r1", `"done"`, []string{"sa1"}, view.EntityClosed, 2},
		{"snapshot restating the call without its result carries the result over", append(append([]string{}, spawn...),
			`{"type":"MESSAGES_SNAPSHOT","messages":[`+a1+`]}`, finish),
			"r1", `"done"`, []string{"sa1"}, view.EntityClosed, 1},
		{"snapshot giving the call another result", append(append([]string{}, spawn...),
			`{"type":"MESSAGES_SNAPSHOT","messages":[`+a1+`,{"id":"r2","role":"tool","toolCallId":"tc1","content":[{"type":"text","text":"redone"}]}]}`, finish),
			"r2", `[{"type":"text","text":"redone"}]`, []string{"sa1"}, view.EntityClosed, 2},
		{"snapshot answering a call no TOOL_CALL_RESULT answered", []string{start,
			`{"type":"MESSAGES_SNAPSHOT","messages":[` + a1 + `,{"id":"t1","role":"tool","toolCallId":"tc1","content":"42"}]}`, finish},
			"t1", `"42"`, nil, view.EntityClosed, 2},
		{"snapshot restating a call still streaming keeps it open", []string{start,
			`{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"delegate","parentMessageId":"a1"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[` + a1 + `]}`},
			"", "", nil, view.EntityOpen, 1},
		{"RUN_STARTED.input history answering its calls", []string{
			`{"type":"RUN_STARTED","threadId":"th","runId":"r1","input":{"threadId":"th","runId":"r1","messages":[` + a1 + `,{"id":"t1","role":"tool","toolCallId":"tc1","content":"42"}]}}`, finish},
			"t1", `"42"`, nil, view.EntityClosed, 2},
		{"RUN_STARTED.input history does not re-answer an answered call", append(append([]string{}, spawn...), finish,
			`{"type":"RUN_STARTED","threadId":"th","runId":"r2","input":{"threadId":"th","runId":"r2","messages":[`+a1+`,{"id":"t9","role":"tool","toolCallId":"tc1","content":"other"}]}}`),
			"r1", `"done"`, []string{"sa1"}, view.EntityClosed, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := mustFold(t, tc.events...)
			call, ok := v.ToolCall("tc1")
			require.True(t, ok, "a message holds tc1")
			assert.Equal(t, tc.result, call.ResultMessageID)
			if tc.content == "" {
				assert.Nil(t, call.Result)
			} else {
				assert.JSONEq(t, tc.content, string(call.Result))
			}
			assert.Equal(t, tc.spawned, call.Subagents)
			assert.Equal(t, tc.status, call.Status)
			assert.Equal(t, tc.messages, v.MessageCount())
		})
	}
}

// A later run continuing a suspended invocation clears the suspended
// segment's outcome and result (review defect 4).
func TestReviewContinuedInvocationClearsOutcome(t *testing.T) {
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

// Refusals caused by a chunk stream that the refused event itself closed say
// so, instead of claiming the entity was never started (review defect 5).
func TestReviewChunkRefusalMessages(t *testing.T) {
	cases := []struct {
		name   string
		events []string
		index  int
		rule   string
		want   []string
	}{
		{"text content after chunks", []string{start,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
			2, "V7", []string{
				"TEXT_MESSAGE_CONTENT first closes the pending chunk stream in the lane of the parent agent, which was streaming text message 'm1'",
				"the TEXT_MESSAGE_END that stream owes ends text message 'm1'",
				"no open text message to continue"}},
		{"text end after chunks", []string{start,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`},
			2, "V7", []string{"TEXT_MESSAGE_END first closes", "no open text message to end"}},
		{"tool args after chunks in a subagent's lane", []string{start,
			`{"type":"TOOL_CALL_CHUNK","toolCallId":"tc1","toolCallName":"f","delta":"{","subagentRunId":"sa1"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"}","subagentRunId":"sa1"}`},
			2, "V9", []string{"TOOL_CALL_ARGS first closes the pending chunk stream in the lane of subagent 'sa1', which was streaming tool call 'tc1'",
				"no open tool call to continue"}},
		{"reasoning end after chunks", []string{start,
			`{"type":"REASONING_MESSAGE_CHUNK","messageId":"rm1","delta":"a"}`,
			`{"type":"REASONING_MESSAGE_END","messageId":"rm1"}`},
			2, "V13", []string{"REASONING_MESSAGE_END first closes", "reasoning message 'rm1'", "no open reasoning message to end"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, viols := fold(t, tc.events...)
			require.Len(t, viols, 1)
			assert.Equal(t, refusal{tc.index, tc.rule}, refusals(viols)[0])
			for _, w := range tc.want {
				assert.Contains(t, viols[0].Message, w)
			}
			assert.NotContains(t, viols[0].Message, "is in progress", "the message is not claimed never to have started")
			assert.NotContains(t, viols[0].Message, "expanded from")
		})
	}
	t.Run("an id the stream was not streaming keeps the plain message", func(t *testing.T) {
		_, viols := fold(t, start,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"b"}`)
		require.Len(t, viols, 1)
		assert.Equal(t, "no text message 'm2' is in progress; send TEXT_MESSAGE_START first", viols[0].Message)
	})
}

// RUN_ERROR abandons what chunk streams were streaming, as it abandons
// everything else (G11), instead of closing it (review defect 6).
func TestReviewRunErrorAbandonsChunkStreams(t *testing.T) {
	stream := []string{start,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"tc1","toolCallName":"f","delta":"{"}`,
		`{"type":"REASONING_MESSAGE_CHUNK","messageId":"rm1","delta":"hm","subagentRunId":"sa1"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"hi","subagentRunId":"sa2"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"tc2","toolCallName":"g","subagentRunId":"sa3"}`}
	cases := []struct {
		name string
		end  func(*view.View) *view.View
	}{
		{"RUN_ERROR", func(v *view.View) *view.View {
			next, err := reducer.FoldJSON(v, []byte(`{"type":"RUN_ERROR","message":"x"}`))
			require.NoError(t, err)
			return next
		}},
		{"a broken transport", func(v *view.View) *view.View { return reducer.End(v, errors.New("EOF")) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.end(mustFold(t, stream...))
			for _, id := range []string{"tc1", "tc2"} {
				c, ok := v.ToolCall(id)
				require.True(t, ok)
				assert.Equal(t, view.EntityAbandoned, c.Status, "tool call %s", id)
			}
			r := v.Invocation("sa1").Reasoning()
			require.Len(t, r, 1)
			assert.Equal(t, view.EntityAbandoned, r[0].Status)
			assert.Empty(t, v.Invocation("sa2").OpenMessageIDs())
			assert.Empty(t, diagsWith(v, "G9"), "no stream was stale")
		})
	}
}

// RUN_ERROR after RUN_FINISHED (allowed by V2) leaves the finished run as
// it was and is recorded as a warning (review decision 7).
func TestReviewRunErrorAfterFinish(t *testing.T) {
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
// (review decision 8).
func TestReviewInvocationRunKey(t *testing.T) {
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

func ptr(i int) *int { return &i }

// An invocation seen only through attribution reads abandoned when a
// RUN_ERROR (or a broken transport) abandons something it had open, and
// stays unannounced otherwise (review decision 9).
func TestReviewUnannouncedAbandoned(t *testing.T) {
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

// mustFoldOn folds more wire events onto v; all must be accepted.
func mustFoldOn(t testing.TB, v *view.View, lines ...string) *view.View {
	t.Helper()
	for _, l := range lines {
		next, err := reducer.FoldJSON(v, []byte(l))
		require.NoError(t, err, "event %s", l)
		v = next
	}
	return v
}
