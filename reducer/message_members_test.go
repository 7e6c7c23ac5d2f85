package reducer_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
)

// TestHistoryMessagesKeepRareMembers: a history message (RUN_STARTED's
// input, a MESSAGES_SNAPSHOT) whose only member beyond its id, role and
// content is an error, metadata, an encrypted value, an activity type or
// content parts, or that has all of them, reads back from the view exactly
// as it was sent; the members live in the info's MsgExtra, which a message
// with none of them does not have.
func TestHistoryMessagesKeepRareMembers(t *testing.T) {
	s := func(v string) *string { return &v }
	msgs := []event.Message{
		{ID: "plain", Role: event.RoleUser, Content: json.RawMessage(`"hello"`)},
		{ID: "err", Role: event.RoleTool, ToolCallID: s("c1"), Content: json.RawMessage(`"failed"`), Error: s("boom")},
		{ID: "meta", Role: event.RoleUser, Content: json.RawMessage(`"hi"`), Metadata: json.RawMessage(`{"k":1}`)},
		{ID: "enc", Role: event.RoleReasoning, Content: json.RawMessage(`"thinking"`), EncryptedValue: s("E")},
		{ID: "act", Role: event.RoleActivity, ActivityType: s("PLAN"), Content: json.RawMessage(`{"steps":[1]}`)},
		{ID: "parts", Role: event.RoleUser, Content: json.RawMessage(`[{"type":"text","text":"hi"}]`)},
		{ID: "all", Role: event.RoleTool, ToolCallID: s("c2"), Content: json.RawMessage(`[{"type":"text","text":"x"}]`),
			Error: s("e"), EncryptedValue: s("E2"), Metadata: json.RawMessage(`{"m":true}`), Name: s("n"), Subagent: s("s1")},
	}
	for _, tc := range []struct {
		name string
		evs  []event.Event
	}{
		{"RUN_STARTED input", []event.Event{
			&event.RunStarted{ThreadID: "t", RunID: "r", Input: &event.RunAgentInput{ThreadID: "t", RunID: "r", Messages: msgs}},
		}},
		{"MESSAGES_SNAPSHOT", []event.Event{
			&event.RunStarted{ThreadID: "t", RunID: "r"},
			&event.MessagesSnapshot{Messages: msgs},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			views, jsons := foldPublished(t, tc.evs)
			v := views[len(views)-1]
			var got []event.Message
			for m := range v.Messages() {
				got = append(got, m)
			}
			want, err := json.Marshal(msgs)
			require.NoError(t, err)
			have, err := json.Marshal(got)
			require.NoError(t, err)
			require.JSONEq(t, string(want), string(have))
			requireUnchanged(t, views, jsons)
		})
	}
}

// TestDeltaIntoContentPartsKeepsMetadata: a text delta into a message whose
// content is content parts replaces them with its text (G16) and merges its
// metadata into the message's, as any delta does; the view published before
// keeps the parts and the metadata it had.
func TestDeltaIntoContentPartsKeepsMetadata(t *testing.T) {
	evs := []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r", Input: &event.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []event.Message{
			{ID: "u1", Role: event.RoleUser, Content: json.RawMessage(`[{"type":"text","text":"hi"}]`), Metadata: json.RawMessage(`{"a":1}`)},
		}}},
		&event.TextMessageStart{MessageID: "u1"},
		&event.TextMessageContent{MessageID: "u1", Delta: "x", Base: event.Base{Metadata: json.RawMessage(`{"b":2}`)}},
		&event.TextMessageContent{MessageID: "u1", Delta: "y"},
		&event.TextMessageEnd{MessageID: "u1"},
	}
	views, jsons := foldPublished(t, evs)
	m, ok := views[len(views)-1].Message("u1")
	require.True(t, ok)
	require.Equal(t, `"xy"`, string(m.Content))
	require.JSONEq(t, `{"a":1,"b":2}`, string(m.Metadata))
	before, _ := views[1].Message("u1")
	require.JSONEq(t, `[{"type":"text","text":"hi"}]`, string(before.Content))
	require.JSONEq(t, `{"a":1}`, string(before.Metadata))
	requireUnchanged(t, views, jsons)
}

// TestReplacingActivitySnapshotKeepsMetadata: a replacing ACTIVITY_SNAPSHOT
// replaces the activity's content and type and merges its metadata into
// the activity's; a snapshot that does not replace merges its metadata
// alone. Views published before read as they did.
func TestReplacingActivitySnapshotKeepsMetadata(t *testing.T) {
	no := false
	evs := []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r"},
		&event.ActivitySnapshot{MessageID: "act", ActivityType: "PLAN", Content: json.RawMessage(`{"v":1}`), Base: event.Base{Metadata: json.RawMessage(`{"a":1}`)}},
		&event.ActivitySnapshot{MessageID: "act", ActivityType: "SEARCH", Content: json.RawMessage(`{"v":2}`), Base: event.Base{Metadata: json.RawMessage(`{"b":2}`)}},
		&event.ActivitySnapshot{MessageID: "act", ActivityType: "SEARCH", Content: json.RawMessage(`{"v":3}`), Replace: &no, Base: event.Base{Metadata: json.RawMessage(`{"c":3}`)}},
	}
	views, jsons := foldPublished(t, evs)
	for i, want := range []struct{ typ, content, meta string }{
		{"PLAN", `{"v":1}`, `{"a":1}`},
		{"SEARCH", `{"v":2}`, `{"a":1,"b":2}`},
		{"SEARCH", `{"v":2}`, `{"a":1,"b":2,"c":3}`},
	} {
		m, ok := views[i+1].Message("act")
		require.True(t, ok)
		require.Equal(t, want.typ, *m.ActivityType, "view %d", i+1)
		require.JSONEq(t, want.content, string(m.Content), "view %d", i+1)
		require.JSONEq(t, want.meta, string(m.Metadata), "view %d", i+1)
	}
	requireUnchanged(t, views, jsons)
}
