package event

import (
	"errors"
	"strings"
	"testing"

	"github.com/agview/agview/internal/conformance"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConformanceVectors decodes every event of every conformance vector. A
// vector rejected at the schema stage must fail to decode at its rejectAt
// event with a DecodeError naming its errorPath; every other event decodes,
// re-encodes and decodes again to the same event.
func TestConformanceVectors(t *testing.T) {
	vectors, err := conformance.Load()
	require.NoError(t, err)
	schema := 0
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			rejectAt := -1
			if v.Expect.ErrorStage == "schema" {
				require.NotNil(t, v.Expect.RejectAt, "a schema rejection names its event")
				rejectAt = *v.Expect.RejectAt
			}
			for i, raw := range v.Events {
				e, err := Decode(raw)
				if i == rejectAt {
					var de *DecodeError
					require.ErrorAs(t, err, &de, "event %d must not decode: %s", i, raw)
					assert.Equal(t, "/"+v.Expect.ErrorPath, de.Pointer, "event %d: %v", i, de)
					assert.GreaterOrEqual(t, de.Offset, int64(0), "event %d: the offset is known", i)
					assert.Contains(t, []string{RuleSchema, RuleNullTag, RuleLifecycleRequired, RuleLifecycleNull}, de.Rule)
					if strings.HasSuffix(v.Expect.ErrorPath, "subagentRunId") && strings.Contains(string(raw), `"subagentRunId":null`) {
						assert.Equal(t, RuleNullTag, de.Rule, "a null tag is R1")
					}
					continue
				}
				var ut *UnknownTypeError
				if errors.As(err, &ut) {
					assert.False(t, ut.Type.Known(), "event %d", i)
					continue
				}
				require.NoError(t, err, "event %d: %s", i, raw)
				assertRoundTrip(t, e)
			}
		})
		if v.Expect.ErrorStage == "schema" {
			schema++
		}
	}
	assert.Equal(t, 15, schema, "the suite has 15 schema rejections")
}
