package transform_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/transform"
)

// subagentInfo lists where e still carries subagent information, for the
// types StripSubagents handles: its own tag, and the tags of the messages
// and interrupts it carries.
func subagentInfo(e event.Event) []string {
	var where []string
	if _, ok := e.SubagentRunID(); ok {
		where = append(where, "/subagentRunId")
	}
	switch e := e.(type) {
	case *event.RunStarted:
		if e.Input != nil {
			for _, m := range e.Input.Messages {
				if m.Subagent != nil {
					where = append(where, "/input/messages["+m.ID+"]")
				}
			}
		}
	case *event.MessagesSnapshot:
		for _, m := range e.Messages {
			if m.Subagent != nil {
				where = append(where, "/messages["+m.ID+"]")
			}
		}
	case *event.RunFinished:
		if e.Outcome != nil {
			for _, in := range e.Outcome.Interrupts {
				if in.Subagent != nil {
					where = append(where, "/outcome/interrupts["+in.ID+"]")
				}
			}
		}
	}
	return where
}

// checkStrip checks StripSubagents on one decoded event and returns the
// encoded input and output (nil when dropped).
func checkStrip(t *testing.T, e event.Event) (in, out []byte) {
	t.Helper()
	before, err := event.Encode(e)
	require.NoError(t, err)
	stripped, keep := transform.Strip(e)
	after, err := event.Encode(e)
	require.NoError(t, err)
	require.Equal(t, string(before), string(after), "StripSubagents modified its input %s", before)

	if e.EventType().Lifecycle() {
		require.False(t, keep, "a lifecycle event is dropped")
		require.Nil(t, stripped)
		return before, nil
	}
	require.True(t, keep, "only lifecycle events are dropped")
	require.Empty(t, subagentInfo(stripped), "subagent information left in %s", before)
	if len(subagentInfo(e)) == 0 {
		require.Same(t, e, stripped, "an event without subagent information is returned as it is")
	}
	b, err := event.Encode(stripped)
	require.NoError(t, err, "the stripped event encodes")
	_, err = event.Decode(b)
	require.NoError(t, err, "the stripped event decodes: %s", b)
	return before, b
}

// TestStripSubagentsConformanceVectors strips every event of every
// conformance vector: nothing but attribution changes.
func TestStripSubagentsConformanceVectors(t *testing.T) {
	t.Parallel()
	vectors, err := conformance.Load()
	require.NoError(t, err)
	stripped := 0
	for _, v := range vectors {
		for i, raw := range v.Events {
			e, err := event.Decode(raw)
			if err != nil {
				continue // not an event: nothing to strip
			}
			in, out := checkStrip(t, e)
			if out == nil {
				continue
			}
			var want, got map[string]any
			require.NoError(t, json.Unmarshal(in, &want))
			require.NoError(t, json.Unmarshal(out, &got))
			if !assert.Equal(t, withoutTags(want), got, "%s event %d: only subagentRunId keys are removed", v.Name, i) {
				continue
			}
			if string(in) != string(out) {
				stripped++
			}
		}
	}
	assert.Greater(t, stripped, 50, "the vectors exercise stripping")
}

// FuzzStripSubagents: for any event that decodes, StripSubagents never
// modifies it, leaves no subagent information and gives an event that
// encodes and decodes.
func FuzzStripSubagents(f *testing.F) {
	for _, e := range taggedEvents() {
		b, err := event.Encode(e)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	vectors, err := conformance.Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, v := range vectors {
		for _, raw := range v.Events {
			f.Add([]byte(raw))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := event.Decode(data)
		if err != nil {
			return
		}
		checkStrip(t, e)
	})
}
