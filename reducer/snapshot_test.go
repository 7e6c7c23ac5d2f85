package reducer_test

// Tests of MESSAGES_SNAPSHOT and history: owners and open entities a
// snapshot re-owns, tool call links history keeps.

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/view"
)

// MESSAGES_SNAPSHOT overwrites owners (R25), and continuations of entities
// still open are checked against the snapshot's owner, not the opener's
// .
func TestSnapshotReownsOpenEntities(t *testing.T) {
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
// a tool message in history answers the call it names.
func TestHistoryKeepsCallLinks(t *testing.T) {
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
