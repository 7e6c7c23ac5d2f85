package store_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/store"
)

// TestStoreInput: a run's input folds into the store and is published to
// subscribers; a refused input changes nothing; a closed store refuses.
func TestStoreInput(t *testing.T) {
	s := store.New(nil)
	changed := s.Changed()
	q := event.Message{ID: "q1", Role: event.RoleUser, Content: json.RawMessage(`"hi"`)}
	require.NoError(t, s.Input(&event.RunAgentInput{ThreadID: "th", Messages: []event.Message{q}}))
	<-changed
	v := s.View()
	assert.Equal(t, "th", v.Thread())
	assert.Equal(t, 1, v.MessageCount())
	assert.Zero(t, v.EventCount(), "an input is not an event")

	require.NoError(t, s.Dispatch(&event.RunStarted{ThreadID: "th", RunID: "r1"}))
	var ie *reducer.InputError
	require.ErrorAs(t, s.Input(&event.RunAgentInput{Messages: []event.Message{q, q}}), &ie)
	assert.Equal(t, "q1", ie.MessageID)
	assert.Equal(t, 1, s.View().EventCount(), "a refused input changes nothing")

	s.Close()
	assert.ErrorIs(t, s.Input(&event.RunAgentInput{}), store.ErrClosed)
}
