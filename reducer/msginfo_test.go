package reducer_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
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
