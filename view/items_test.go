package view_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// ChangedMessageIDs yields the new messages, the one streaming and the one
// that got a tool call, and none of the others.
func TestChangedMessageIDs(t *testing.T) {
	v := view.New()
	fold := func(s string) {
		var err error
		v, err = reducer.FoldJSON(v, []byte(s))
		require.NoError(t, err, s)
	}
	fold(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)
	fold(`{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}`)
	fold(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x"}`)
	fold(`{"type":"TEXT_MESSAGE_END","messageId":"a"}`)
	fold(`{"type":"TEXT_MESSAGE_START","messageId":"b","role":"assistant"}`)
	fold(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"b","delta":"y"}`)
	first := v.Root()
	assert.Equal(t, []string{"a", "b"}, slices.Collect(first.ChangedMessageIDs(nil)), "nil: every message")

	fold(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"b","delta":"z"}`)
	assert.Equal(t, []string{"b"}, slices.Collect(v.Root().ChangedMessageIDs(first)), "the streaming one")
	fold(`{"type":"TEXT_MESSAGE_END","messageId":"b"}`)
	second := v.Root()
	fold(`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"a"}`)
	assert.Equal(t, []string{"a"}, slices.Collect(v.Root().ChangedMessageIDs(second)), "the message that got a call")
	third := v.Root()
	fold(`{"type":"TEXT_MESSAGE_START","messageId":"c","role":"assistant"}`)
	assert.Contains(t, slices.Collect(v.Root().ChangedMessageIDs(third)), "c", "a new message")
	assert.Empty(t, slices.Collect(v.Root().ChangedMessageIDs(v.Root())), "nothing against itself")
}
