package reducer_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestPlainTaggedMessagesShareNothingVisible: a subagent's messages that
// carry only its tag share one info; a change to one of them (metadata,
// an encrypted value, a name) must reach that message alone, in the view
// folded and in none published before, and a message read from a view
// must own its memory.
func TestPlainTaggedMessagesShareNothingVisible(t *testing.T) {
	for _, sub := range []string{"s1", ""} {
		by := event.By(sub)
		evs := []event.Event{
			&event.RunStarted{ThreadID: "t", RunID: "r"},
			&event.SubagentStarted{ID: sub, Name: "w"},
			&event.TextMessageStart{Attribution: by, MessageID: "a"},
			&event.TextMessageEnd{Attribution: by, MessageID: "a"},
			&event.ReasoningMessageStart{Attribution: by, MessageID: "b", Role: event.RoleReasoning},
			&event.ReasoningMessageEnd{Attribution: by, MessageID: "b"},
			&event.ToolCallStart{Attribution: by, ToolCallID: "c", ToolCallName: "f"},
			&event.ToolCallEnd{Attribution: by, ToolCallID: "c"},
			&event.TextMessageStart{Attribution: by, MessageID: "d"},
			&event.TextMessageEnd{Attribution: by, MessageID: "d", Base: event.Base{Metadata: json.RawMessage(`{"k":1}`)}},
			&event.ReasoningEncryptedValue{Attribution: by, Subtype: event.EncryptedMessage, EntityID: "a", EncryptedValue: "E"},
			&event.TextMessageStart{Attribution: by, MessageID: "a", Base: event.Base{Metadata: json.RawMessage(`{"again":true}`)}},
			&event.TextMessageEnd{Attribution: by, MessageID: "a"},
			&event.TextMessageStart{Attribution: by, MessageID: "e"},
			&event.TextMessageEnd{Attribution: by, MessageID: "e"},
			&event.SubagentFinished{ID: sub},
			&event.RunFinished{ThreadID: "t", RunID: "r"},
		}
		views, jsons := foldPublished(t, evs)
		v := views[len(views)-1]
		got := map[string]event.Message{}
		for m := range v.Messages() {
			got[m.ID] = m
			require.NotNil(t, m.Subagent, "%q: message %s lost its tag", sub, m.ID)
			require.Equal(t, sub, *m.Subagent, "%q: message %s", sub, m.ID)
		}
		require.Len(t, got, 5)
		require.Equal(t, "E", *got["a"].EncryptedValue)
		require.JSONEq(t, `{"again":true}`, string(got["a"].Metadata))
		require.JSONEq(t, `{"k":1}`, string(got["d"].Metadata))
		for _, id := range []string{"b", "c", "e"} {
			require.Nil(t, got[id].EncryptedValue, "%q: %s", sub, id)
			require.Nil(t, got[id].Metadata, "%q: %s", sub, id)
			require.Nil(t, got[id].Name, "%q: %s", sub, id)
		}
		// A message read from the view owns its memory.
		m := got["b"]
		*m.Subagent = "scribbled"
		for m := range v.Messages() {
			require.Equal(t, sub, *m.Subagent, "%q: writing a read message's tag changed the view", sub)
		}
		requireUnchanged(t, views, jsons)
	}
}

// TestOtherRolesKept: decoding refuses a role that is none of the seven, but
// a Go program may fold an event value with any role; the view gives it back
// exactly, through every change the message goes through, on messages that
// share their info with others (a subagent's plain messages) as on the
// rest, in the views published before as in the last. Both folds, Reduce
// and a Builder, agree.
func TestOtherRolesKept(t *testing.T) {
	narrator, function := event.Role("narrator"), event.Role("function")
	x := "x"
	for _, sub := range []string{"", "s1"} {
		by := event.By(sub)
		evs := []event.Event{
			&event.RunStarted{ThreadID: "t", RunID: "r"},
			&event.SubagentStarted{ID: sub, Name: "w"},
			&event.TextMessageStart{Attribution: by, MessageID: "plain"},
			&event.TextMessageEnd{Attribution: by, MessageID: "plain"},
			&event.TextMessageStart{Attribution: by, MessageID: "n", Role: &narrator},
			&event.TextMessageContent{Attribution: by, MessageID: "n", Delta: "once "},
			&event.TextMessageContent{Attribution: by, MessageID: "n", Delta: "upon", Base: event.Base{Metadata: json.RawMessage(`{"k":1}`)}},
			&event.TextMessageEnd{Attribution: by, MessageID: "n", Base: event.Base{Metadata: json.RawMessage(`{"end":true}`)}},
			&event.TextMessageStart{Attribution: by, MessageID: "x", Role: &narrator},
			&event.ToolCallStart{Attribution: by, ToolCallID: "c", ToolCallName: "f", ParentMessageID: &x},
			&event.ToolCallArgs{Attribution: by, ToolCallID: "c", Delta: `{"a":`},
			&event.ToolCallArgs{Attribution: by, ToolCallID: "c", Delta: `1}`},
			&event.ToolCallEnd{Attribution: by, ToolCallID: "c"},
			&event.TextMessageEnd{Attribution: by, MessageID: "x"},
			&event.ToolCallResult{Attribution: by, MessageID: "res", ToolCallID: "c", Content: json.RawMessage(`"ok"`), Role: &function},
			&event.ReasoningEncryptedValue{Attribution: by, Subtype: event.EncryptedMessage, EntityID: "n", EncryptedValue: "E"},
			&event.TextMessageStart{Attribution: by, MessageID: "plain2"},
			&event.TextMessageEnd{Attribution: by, MessageID: "plain2"},
			&event.SubagentFinished{ID: sub},
			&event.MessagesSnapshot{Messages: []event.Message{
				{ID: "n", Role: narrator, Content: json.RawMessage(`"retold"`)},
				{ID: "h", Role: "critic", Content: json.RawMessage(`"meh"`), ToolCalls: []event.ToolCall{
					{ID: "hc", Type: "function", Function: event.FunctionCall{Name: "g", Arguments: "{}"}},
				}},
				{ID: "plain", Role: event.RoleAssistant},
			}},
			&event.RunFinished{ThreadID: "t", RunID: "r"},
		}
		want := map[string]event.Role{"plain": event.RoleAssistant, "n": narrator, "x": narrator, "c": event.RoleAssistant,
			"res": function, "plain2": event.RoleAssistant, "h": "critic"}
		v := view.New()
		b := reducer.NewBuilder(view.New())
		var views []*view.View
		var jsons []string
		for i, e := range evs {
			var err error
			v, err = reducer.Reduce(v, e)
			require.NoError(t, err, "%q: event %d (%s)", sub, i, e.EventType())
			require.NoError(t, b.Fold(e), "%q: event %d (%s)", sub, i, e.EventType())
			js, err := v.MarshalJSON()
			require.NoError(t, err)
			views, jsons = append(views, v), append(jsons, string(js))
			bs, err := b.View().MarshalJSON()
			require.NoError(t, err)
			require.Equal(t, string(js), string(bs), "%q: event %d (%s): Reduce and a Builder differ", sub, i, e.EventType())
			if i == len(evs)-3 { // before the snapshot
				for id, r := range want {
					if m, ok := v.Message(id); ok {
						require.Equal(t, r, m.Role, "%q: message %s", sub, id)
					}
				}
				m, _ := v.Message("n")
				require.Equal(t, `"once upon"`, string(m.Content))
				require.JSONEq(t, `{"k":1,"end":true}`, string(m.Metadata))
				require.Equal(t, "E", *m.EncryptedValue)
				tc, ok := v.ToolCall("c")
				require.True(t, ok)
				require.Equal(t, `{"a":1}`, tc.Arguments)
			}
		}
		got := map[string]event.Role{}
		for m := range v.Messages() {
			got[m.ID] = m.Role
		}
		require.Equal(t, map[string]event.Role{"n": narrator, "h": "critic", "plain": event.RoleAssistant}, got, "%q: after the snapshot", sub)
		requireUnchanged(t, views, jsons)
	}
}
