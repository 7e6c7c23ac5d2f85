package journal

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/patch"
)

// TestLineAtTheNestingLimit (docs/protocol.md G21; issue 34 N4): the input
// line of a run whose state nests patch.MaxNesting levels, the deepest a
// fold accepts, and an event line carrying such a state, are JSON that
// encoding/json (and the event decoder) read back, so that a thread holding
// that state can be recorded, replayed and continued.
func TestLineAtTheNestingLimit(t *testing.T) {
	t.Parallel()
	state := json.RawMessage(`{"s":` + strings.Repeat("[", patch.MaxNesting-1) + strings.Repeat("]", patch.MaxNesting-1) + `}`)
	in, err := json.Marshal(&event.RunAgentInput{ThreadID: "t", RunID: "r", State: state})
	require.NoError(t, err)
	snap, err := event.Encode(&event.StateSnapshot{Snapshot: state})
	require.NoError(t, err)
	for _, r := range []*Record{{Kind: KindInput, Data: in}, {Kind: KindEvent, Data: snap}} {
		line := appendLine(nil, r)
		require.True(t, json.Valid(line), "the %v line is JSON encoding/json reads", r.Kind)
		var x any
		require.NoError(t, json.Unmarshal(line, &x))
		back := ParseLine(line[:len(line)-1])
		assert.Equal(t, r.Kind, back.Kind)
		switch r.Kind {
		case KindInput:
			got, _, err := event.DecodeInput(back.Data)
			require.NoError(t, err)
			assert.JSONEq(t, string(state), string(got.State))
		default:
			e, err := event.Decode(back.Data)
			require.NoError(t, err)
			assert.JSONEq(t, string(state), string(e.(*event.StateSnapshot).Snapshot))
		}
	}
}
