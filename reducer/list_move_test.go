package reducer_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestListMovedMessages: a listed message that moves to another invocation
// (a replacing ACTIVITY_SNAPSHOT that changes the activity's owner; a
// MESSAGES_SNAPSHOT that re-tags a message, a tool result inserted after
// another among them) keeps its place in the list and reads as it now is;
// a tool result inserted later walks past it; and every view published on
// the way still reads as it did.
func TestListMovedMessages(t *testing.T) {
	p := func(s string) *string { return &s }
	tool, user := event.RoleTool, event.RoleUser
	type step struct {
		e    event.Event
		want []string // the list after e, each id with its subagentRunId (nil: not checked)
	}
	steps := []step{
		{&event.RunStarted{ThreadID: "t", RunID: "r"}, nil},
		{&event.TextMessageStart{MessageID: "a"}, nil},
		{&event.TextMessageEnd{MessageID: "a"}, nil},
		{&event.ActivitySnapshot{MessageID: "act", ActivityType: "PLAN", Content: json.RawMessage(`{"v":1}`)}, []string{"a", "act"}},
		{&event.ToolCallStart{ToolCallID: "tc1", ToolCallName: "f"}, nil},
		{&event.ToolCallEnd{ToolCallID: "tc1"}, nil},
		{&event.TextMessageStart{MessageID: "b"}, []string{"a", "act", "tc1", "b"}},
		{&event.TextMessageEnd{MessageID: "b"}, nil},
		// act moves to s1's node, and back to the parent's.
		{&event.ActivitySnapshot{Attribution: event.Attribution{Subagent: p("s1")}, MessageID: "act", ActivityType: "PLAN", Content: json.RawMessage(`{"v":2}`)},
			[]string{"a", "act@s1", "tc1", "b"}},
		// A result for a call a holds walks past act where it now lives.
		{&event.ToolCallStart{ToolCallID: "tc2", ToolCallName: "g", ParentMessageID: p("a")}, nil},
		{&event.ToolCallEnd{ToolCallID: "tc2"}, nil},
		{&event.ToolCallResult{MessageID: "r2", ToolCallID: "tc2", Content: json.RawMessage(`"2"`)}, []string{"a", "r2", "act@s1", "tc1", "b"}},
		{&event.ToolCallResult{MessageID: "r1", ToolCallID: "tc1", Content: json.RawMessage(`"1"`)}, []string{"a", "r2", "act@s1", "tc1", "r1", "b"}},
		{&event.ActivitySnapshot{MessageID: "act", ActivityType: "PLAN", Content: json.RawMessage(`{"v":3}`)},
			[]string{"a", "r2", "act", "tc1", "r1", "b"}},
		{&event.ActivitySnapshot{Attribution: event.Attribution{Subagent: p("s1")}, MessageID: "act", ActivityType: "PLAN", Content: json.RawMessage(`{"v":4}`)},
			[]string{"a", "r2", "act@s1", "tc1", "r1", "b"}},
		// A snapshot re-tags a, r2 (inserted after a) and b: they move while
		// the list is rebuilt; act, client-only activity, is kept.
		{&event.MessagesSnapshot{Messages: []event.Message{
			{ID: "a", Role: event.RoleAssistant, Subagent: p("s2"), ToolCalls: []event.ToolCall{{ID: "tc2", Type: "function", Function: event.FunctionCall{Name: "g", Arguments: ""}}}},
			{ID: "r2", Role: tool, Subagent: p("s2"), ToolCallID: p("tc2"), Content: json.RawMessage(`"2"`)},
			{ID: "tc1", Role: event.RoleAssistant, ToolCalls: []event.ToolCall{{ID: "tc1", Type: "function", Function: event.FunctionCall{Name: "f", Arguments: ""}}}},
			{ID: "r1", Role: tool, ToolCallID: p("tc1"), Content: json.RawMessage(`"1"`)},
			{ID: "b", Role: user, Subagent: p("s3"), Content: json.RawMessage(`"b"`)},
		}}, []string{"a@s2", "r2@s2", "act@s1", "tc1", "r1", "b@s3"}},
		{&event.ToolCallResult{MessageID: "r3", ToolCallID: "tc2", Content: json.RawMessage(`"3"`)}, []string{"a@s2", "r2@s2", "r3", "act@s1", "tc1", "r1", "b@s3"}},
		{&event.RunFinished{ThreadID: "t", RunID: "r"}, nil},
	}
	v := view.New()
	var views []*view.View
	var jsons []string
	for i, s := range steps {
		next, err := reducer.Reduce(v, s.e)
		require.NoError(t, err, "step %d (%s)", i, s.e.EventType())
		v = next
		require.Empty(t, violations(v), "step %d (%s)", i, s.e.EventType())
		if s.want != nil {
			require.Equal(t, s.want, taggedIDs(v), "step %d (%s)", i, s.e.EventType())
		}
		for m := range v.Messages() {
			got, ok := v.Message(m.ID)
			require.True(t, ok, "step %d: Message(%q)", i, m.ID)
			require.Equal(t, m, got, "step %d: Message(%q) and Messages disagree", i, m.ID)
		}
		b, err := v.MarshalJSON()
		require.NoError(t, err)
		views, jsons = append(views, v), append(jsons, string(b))
	}
	act, _ := v.Message("act")
	require.JSONEq(t, `{"v":4}`, string(act.Content), "the activity reads as its last snapshot made it")
	for i, w := range views {
		b, err := w.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, jsons[i], string(b), "the view published at step %d changed", i)
	}
}

// taggedIDs returns the ids of v's list, each followed by "@" and its
// subagentRunId when it has one.
func taggedIDs(v *view.View) []string {
	var ids []string
	for m := range v.Messages() {
		id := m.ID
		if m.Subagent != nil {
			id += "@" + *m.Subagent
		}
		ids = append(ids, id)
	}
	return ids
}

// violations returns v's violations, each as its rule and message.
func violations(v *view.View) []string {
	var rules []string
	for _, d := range v.Diagnostics() {
		if d.Kind == view.DiagViolation {
			rules = append(rules, d.Rule+": "+d.Message)
		}
	}
	return rules
}
