package reducer_test

import (
	"encoding/json"
	"errors"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// foldVector folds a vector's events with FoldJSON and returns the final view
// and the violations met, in order.
func foldVector(t testing.TB, vec *conformance.Vector) (*view.View, []*reducer.Violation) {
	t.Helper()
	v := view.New()
	var viols []*reducer.Violation
	for i, raw := range vec.Events {
		next, err := reducer.FoldJSON(v, raw)
		require.NotNil(t, next, "event %d: FoldJSON returned a nil view", i)
		require.Equal(t, i+1, next.EventCount(), "event %d: the view must count every wire event", i)
		if err != nil {
			var viol *reducer.Violation
			require.True(t, errors.As(err, &viol), "event %d: error %v is not a *reducer.Violation", i, err)
			assert.Equal(t, i, viol.Index, "event %d: violation index", i)
			viols = append(viols, viol)
		}
		v = next
	}
	return v, viols
}

var minted = regexp.MustCompile(`^<minted-uuid-\d+>$`)

// normalizeMinted replaces the ids of actual messages standing where the
// expected list has a <minted-uuid-N> placeholder, so that those messages
// compare by role and content; one placeholder must map to one id.
func normalizeMinted(t *testing.T, expected, actual []map[string]any) {
	t.Helper()
	seen := map[string]any{}
	for i := range expected {
		id, _ := expected[i]["id"].(string)
		if !minted.MatchString(id) || i >= len(actual) {
			continue
		}
		if prev, ok := seen[id]; ok {
			assert.Equal(t, prev, actual[i]["id"], "placeholder %s must stand for one id", id)
		}
		seen[id] = actual[i]["id"]
		actual[i]["id"] = id
	}
}

func asJSONValue(t *testing.T, what string, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err, "marshal %s", what)
	var out any
	require.NoError(t, json.Unmarshal(b, &out), "unmarshal %s", what)
	return out
}

func TestConformanceVectors(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	require.Len(t, vecs, 178, "the conformance suite has 178 vectors")
	for _, vec := range vecs {
		t.Run(vec.Name, func(t *testing.T) {
			t.Parallel()
			v, viols := foldVector(t, vec)
			if !vec.Accept() {
				require.NotEmpty(t, viols, "verdict: want reject at %v, got accept", vec.Expect.RejectAt)
				require.NotNil(t, vec.Expect.RejectAt)
				assert.Equal(t, *vec.Expect.RejectAt, viols[0].Index, "rejectAt (first violation: %v)", viols[0])
				if vec.Expect.Rule != "" {
					assert.Equal(t, vec.Expect.Rule, viols[0].Rule, "rule of the first violation: %v", viols[0])
				}
				// The stage at which the reference refuses the event names
				// the kind of rule agview must report.
				var de *event.DecodeError
				switch vec.Expect.ErrorStage {
				case "schema":
					assert.ErrorAs(t, viols[0], &de, "a schema rejection is a decoding error: %v", viols[0])
				case "chunks":
					assert.Equal(t, "G9", viols[0].Rule, "a chunk rejection: %v", viols[0])
				case "verify":
					assert.Regexp(t, `^[VR]\d+$`, viols[0].Rule, "a verifier or subagent rule: %v", viols[0])
				}
				return
			}
			require.Empty(t, viols, "verdict: want accept")

			var wantMsgs, gotMsgs []map[string]any
			require.NoError(t, json.Unmarshal(vec.Expect.Messages, &wantMsgs))
			b, err := json.Marshal(v.MessageList())
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &gotMsgs))
			normalizeMinted(t, wantMsgs, gotMsgs)
			assert.Equal(t, asJSONValue(t, "want messages", wantMsgs), asJSONValue(t, "messages", gotMsgs), "messages")

			var wantState, gotState any
			require.NoError(t, json.Unmarshal(vec.Expect.State, &wantState))
			require.NoError(t, json.Unmarshal(v.State(), &gotState))
			assert.Equal(t, wantState, gotState, "state")

			var wantPending any
			require.NoError(t, json.Unmarshal(vec.Expect.PendingInterrupts, &wantPending))
			assert.Equal(t, wantPending, asJSONValue(t, "pendingInterrupts", v.PendingInterrupts()), "pendingInterrupts")

			// The JSON form agrees with the getters.
			var form struct {
				Messages          []map[string]any `json:"messages"`
				State             any              `json:"state"`
				PendingInterrupts any              `json:"pendingInterrupts"`
				Events            int              `json:"events"`
			}
			vb, err := json.Marshal(v)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(vb, &form))
			normalizeMinted(t, wantMsgs, form.Messages)
			assert.Equal(t, asJSONValue(t, "want messages", wantMsgs), asJSONValue(t, "form messages", form.Messages), "JSON form messages")
			assert.Equal(t, wantState, form.State, "JSON form state")
			assert.Equal(t, wantPending, form.PendingInterrupts, "JSON form pendingInterrupts")
			assert.Equal(t, len(vec.Events), form.Events, "JSON form events")
		})
	}
}
