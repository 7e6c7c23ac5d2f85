package reducer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestFoldProtoPaths folds every conformance vector's events as protobuf
// messages three ways: FoldProto (a view per event), a Builder's FoldProto,
// and DecodeProto then Fold (events without a protobuf form left out): the
// in-place path for streamed deltas must give exactly what decoding and
// folding gives.
func TestFoldProtoPaths(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	for _, vec := range vecs {
		t.Run(vec.Name, func(t *testing.T) {
			var msgs [][]byte
			for _, raw := range vec.Events {
				e, err := event.Decode(raw)
				if err != nil {
					continue
				}
				m, err := event.AppendProto(nil, e)
				if err != nil {
					continue
				}
				msgs = append(msgs, m)
			}
			perEvent, full := view.New(), view.New()
			b := reducer.NewBuilder(view.New())
			for i, m := range msgs {
				var err1, err2 error
				perEvent, err1 = reducer.FoldProto(perEvent, m)
				err2 = b.FoldProto(m)
				e, err := event.DecodeProto(m)
				require.NoError(t, err)
				full, _ = reducer.Fold(full, e)
				assert.Equal(t, err1 == nil, err2 == nil, "event %d", i)
				if i%7 == 3 {
					assert.JSONEq(t, string(viewJSON(t, full)), string(viewJSON(t, b.View())), "event %d: the Builder", i)
				}
			}
			want := string(viewJSON(t, full))
			assert.JSONEq(t, want, string(viewJSON(t, perEvent)), "FoldProto")
			assert.JSONEq(t, want, string(viewJSON(t, b.View())), "Builder.FoldProto")
		})
	}
}

// TestFoldProtoRefuses: a message that does not decode is a violation, an
// unknown arm a warning.
func TestFoldProtoRefuses(t *testing.T) {
	v, err := reducer.FoldProto(view.New(), []byte{0x12, 0x03, 0x12, 0x01, 0xff}) // messageId not UTF-8
	var viol *reducer.Violation
	require.ErrorAs(t, err, &viol)
	assert.Equal(t, event.RuleSchema, viol.Rule)
	assert.Equal(t, 1, v.ViolationCount())
	v, err = reducer.FoldProto(v, []byte{0xfa, 0x02, 0x00})
	require.NoError(t, err)
	assert.Equal(t, 2, v.EventCount())
	b := reducer.NewBuilder(view.New())
	require.Error(t, b.FoldProto([]byte{0x12, 0x03, 0x12, 0x01, 0xff}))
	require.NoError(t, b.FoldProto([]byte{0xfa, 0x02, 0x00}))
	assert.Equal(t, 2, b.View().EventCount())
}
