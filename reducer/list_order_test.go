package reducer_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

func listIDs(v *view.View) []string {
	var ids []string
	for m := range v.Messages() {
		ids = append(ids, m.ID)
	}
	return ids
}

// TestListOrderToolResultChains: tool results go right after the message
// holding their call, after the tool messages already there; a result
// whose role is assistant can hold calls in turn, and their results follow
// it; a snapshot restating the list keeps its order and drops what it
// leaves out; Input continuing the conversation and Input taking the
// snapshot path agree on the order, and the views published on the way
// never change.
func TestListOrderToolResultChains(t *testing.T) {
	assistant := event.RoleAssistant
	p := func(s string) *string { return &s }
	var v = view.New()
	type step struct {
		e    event.Event
		want []string // the list after e (nil: not checked)
	}
	steps := []step{
		{&event.RunStarted{ThreadID: "t", RunID: "r1"}, nil},
		{&event.ToolCallStart{ToolCallID: "tc1", ToolCallName: "f"}, []string{"tc1"}},
		{&event.ToolCallEnd{ToolCallID: "tc1"}, nil},
		{&event.TextMessageStart{MessageID: "a"}, []string{"tc1", "a"}},
		{&event.TextMessageContent{MessageID: "a", Delta: "hello"}, nil},
		{&event.TextMessageEnd{MessageID: "a"}, nil},
		{&event.ToolCallResult{MessageID: "r1", ToolCallID: "tc1", Content: json.RawMessage(`"1"`)}, []string{"tc1", "r1", "a"}},
		{&event.ToolCallResult{MessageID: "r2", ToolCallID: "tc1", Content: json.RawMessage(`"2"`)}, []string{"tc1", "r1", "r2", "a"}},
		// An assistant-role result: inserted after the tool messages, then holding a call itself.
		{&event.ToolCallResult{MessageID: "r3", ToolCallID: "tc1", Role: &assistant, Content: json.RawMessage(`"3"`)}, []string{"tc1", "r1", "r2", "r3", "a"}},
		{&event.ToolCallStart{ToolCallID: "tc2", ToolCallName: "g", ParentMessageID: p("r3")}, nil},
		{&event.ToolCallEnd{ToolCallID: "tc2"}, nil},
		{&event.ToolCallResult{MessageID: "r4", ToolCallID: "tc2", Content: json.RawMessage(`"4"`)}, []string{"tc1", "r1", "r2", "r3", "r4", "a"}},
		// tc1 again: its last result r3 is not a tool message, so the walk starts at tc1.
		{&event.ToolCallResult{MessageID: "r5", ToolCallID: "tc1", Content: json.RawMessage(`"5"`)}, []string{"tc1", "r1", "r2", "r5", "r3", "r4", "a"}},
		{&event.ToolCallResult{MessageID: "r6", ToolCallID: "tc2", Content: json.RawMessage(`"6"`)}, []string{"tc1", "r1", "r2", "r5", "r3", "r4", "r6", "a"}},
		// A call held by the last message: its results are appended.
		{&event.ToolCallStart{ToolCallID: "tc3", ToolCallName: "h", ParentMessageID: p("a")}, nil},
		{&event.ToolCallEnd{ToolCallID: "tc3"}, nil},
		{&event.ToolCallResult{MessageID: "r7", ToolCallID: "tc3", Content: json.RawMessage(`"7"`)}, []string{"tc1", "r1", "r2", "r5", "r3", "r4", "r6", "a", "r7"}},
		{&event.TextMessageStart{MessageID: "b"}, nil},
		{&event.TextMessageEnd{MessageID: "b"}, nil},
		{&event.ToolCallResult{MessageID: "r8", ToolCallID: "tc3", Content: json.RawMessage(`"8"`)}, []string{"tc1", "r1", "r2", "r5", "r3", "r4", "r6", "a", "r7", "r8", "b"}},
		{&event.RunFinished{ThreadID: "t", RunID: "r1"}, nil},
	}
	var views []*view.View
	var jsons []string
	publish := func(w *view.View) {
		b, err := w.MarshalJSON()
		require.NoError(t, err)
		views, jsons = append(views, w), append(jsons, string(b))
	}
	for i, s := range steps {
		next, err := reducer.Reduce(v, s.e)
		require.NoError(t, err, "step %d (%s)", i, s.e.EventType())
		v = next
		publish(v)
		if s.want != nil {
			require.Equal(t, s.want, listIDs(v), "step %d (%s)", i, s.e.EventType())
		}
		for _, id := range listIDs(v) {
			_, ok := v.Message(id)
			require.True(t, ok, "step %d: Message(%q)", i, id)
		}
		require.Equal(t, len(listIDs(v)), v.MessageCount(), "step %d", i)
	}
	before := listIDs(v)

	// Continuing the conversation: the same order, one message more, by
	// either path.
	in := &event.RunAgentInput{ThreadID: "t", RunID: "r2",
		Messages: append(v.MessageList(), event.Message{ID: "u", Role: event.RoleUser, Content: json.RawMessage(`"next"`)})}
	cont, err := reducer.Input(v, in)
	require.NoError(t, err)
	snap, err := reducer.InputBySnapshot(v, in)
	require.NoError(t, err)
	want := append(append([]string(nil), before...), "u")
	require.Equal(t, want, listIDs(cont))
	require.Equal(t, want, listIDs(snap))
	require.Equal(t, snap.MessageList(), cont.MessageList())
	publish(cont)

	// A snapshot restating the list without r2 and r6, then new results for
	// tc1 and tc2: the chains were flattened, and the results still go
	// after the tool messages following their holders.
	v, err = reducer.Reduce(cont, &event.RunStarted{ThreadID: "t", RunID: "r2"})
	require.NoError(t, err)
	var keep []event.Message
	for _, m := range cont.MessageList() {
		if m.ID != "r2" && m.ID != "r6" {
			keep = append(keep, m)
		}
	}
	keep = append(keep, event.Message{ID: "n", Role: event.RoleUser, Content: json.RawMessage(`"new"`)})
	v, err = reducer.Reduce(v, &event.MessagesSnapshot{Messages: keep})
	require.NoError(t, err)
	publish(v)
	want = []string{"tc1", "r1", "r5", "r3", "r4", "a", "r7", "r8", "b", "u", "n"}
	require.Equal(t, want, listIDs(v))
	for _, id := range []string{"r2", "r6"} {
		_, ok := v.Message(id)
		require.False(t, ok, "%s left the list", id)
	}
	v, err = reducer.Reduce(v, &event.ToolCallResult{MessageID: "r9", ToolCallID: "tc1", Content: json.RawMessage(`"9"`)})
	require.NoError(t, err)
	v, err = reducer.Reduce(v, &event.ToolCallResult{MessageID: "r10", ToolCallID: "tc2", Content: json.RawMessage(`"10"`)})
	require.NoError(t, err)
	v, err = reducer.Reduce(v, &event.ToolCallResult{MessageID: "r11", ToolCallID: "tc1", Content: json.RawMessage(`"11"`)})
	require.NoError(t, err)
	publish(v)
	require.Equal(t, []string{"tc1", "r1", "r5", "r9", "r11", "r3", "r4", "r10", "a", "r7", "r8", "b", "u", "n"}, listIDs(v))

	for i, w := range views {
		b, err := w.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, jsons[i], string(b), "view %d changed after it was published", i)
	}
}

// TestListEmptyID: "" is a message id like any other. A message with an
// empty id is in the list, and a tool result answering a call it holds goes
// right after it and is linked to the call (the list once dropped it, and
// the result went to the end, unlinked). A TOOL_CALL_START whose
// parentMessageId is "" reads it as absent (§7): its call goes to a message
// of the call's id, not to the message "".
func TestListEmptyID(t *testing.T) {
	lines := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":""}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"","delta":"hi"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":""}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"b"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"b"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"g","parentMessageId":""}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c2"}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"","role":"assistant","content":"hi","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":""}}]},{"id":"b","role":"assistant"},{"id":"c2","role":"assistant","toolCalls":[{"id":"c2","type":"function","function":{"name":"g","arguments":""}}]}]}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"res","toolCallId":"c1","content":"done"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
	}
	v, bv := foldBoth(t, lines, func(i int, v, bv *view.View) {
		if i == 7 {
			require.Equal(t, []string{"", "b", "c2"}, listIDs(v), "parentMessageId \"\" reads as absent")
			require.Equal(t, []string{"", "b", "c2"}, listIDs(bv), "parentMessageId \"\" reads as absent")
		}
	})
	require.Equal(t, []string{"", "res", "b", "c2"}, listIDs(v))
	require.Equal(t, []string{"", "res", "b", "c2"}, listIDs(bv))
	m, ok := v.Message("")
	require.True(t, ok)
	require.JSONEq(t, `"hi"`, string(m.Content))
	require.Len(t, m.ToolCalls, 1)
	for _, w := range []*view.View{v, bv} {
		c, ok := w.ToolCall("c1")
		require.True(t, ok)
		require.Equal(t, "res", c.ResultMessageID, "the result is linked to the call")
		require.JSONEq(t, `"done"`, string(c.Result))
	}
}
