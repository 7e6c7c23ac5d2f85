package event

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/wire"
	"github.com/agview/agview/patch"
)

// TestProtoDeepValues (G21; issue 34 N4): a value nested deeper than
// wire.MaxDepth is carried whole by the protobuf form, up to the deepest a
// fold accepts (patch.MaxNesting): AppendProto once left out a member it
// could not skip, so a deep state came back as "required field is missing"
// and a RUN_STARTED lost its input without a word.
func TestProtoDeepValues(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{wire.MaxDepth, wire.MaxDepth + 1, 5000, patch.MaxNesting} {
		doc := json.RawMessage(`{"a":[1,"x",` + strings.Repeat("[", depth-3) + `{"k":true}` + strings.Repeat("]", depth-3) + `]}`)
		for _, e := range []Event{
			&StateSnapshot{Snapshot: doc},
			&ActivitySnapshot{MessageID: "m", ActivityType: "PLAN", Content: doc},
			&RunStarted{ThreadID: "t", RunID: "r", Input: &RunAgentInput{ThreadID: "t", RunID: "r", State: doc}},
			&MessagesSnapshot{Messages: []Message{{ID: "m", Role: RoleActivity, ActivityType: Ptr("PLAN"), Content: doc}}},
		} {
			want, err := Encode(e)
			require.NoError(t, err)
			for name, enc := range map[string]func() ([]byte, error){
				"AppendProto":     func() ([]byte, error) { return AppendProto(nil, e) },
				"AppendProtoJSON": func() ([]byte, error) { return AppendProtoJSON(nil, want) },
			} {
				pb, err := enc()
				require.NoError(t, err, "%s %s at %d levels", name, e.EventType(), depth)
				back, err := DecodeProto(pb)
				require.NoError(t, err, "%s %s at %d levels", name, e.EventType(), depth)
				got, err := Encode(back)
				require.NoError(t, err)
				assert.Equal(t, string(want), string(got), "%s %s at %d levels", name, e.EventType(), depth)
			}
		}
	}
}
