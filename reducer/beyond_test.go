package reducer_test

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// The vectors of testdata/beyond are agview's own, in the shape of the shared
// conformance vectors (testdata/conformance/README.md), for behaviour the
// shared suite does not cover: where the reference client and agview's
// decisions (PROTOCOL.md G8, G16, G17, G20, G22) meet. Besides the shared
// keys, expect.warningRules lists the rule ids of the warnings the stream
// must record (each at least once).

// beyondVector is a vector of testdata/beyond with its warning rules.
type beyondVector struct {
	*conformance.Vector
	WarningRules []string
}

func loadBeyond(t *testing.T) []beyondVector {
	t.Helper()
	dir := filepath.Join("testdata", "beyond")
	vecs, err := conformance.LoadDir(dir)
	require.NoError(t, err)
	out := make([]beyondVector, len(vecs))
	for i, v := range vecs {
		b, err := os.ReadFile(filepath.Join(dir, v.Name+".json"))
		require.NoError(t, err)
		var extra struct {
			Expect struct {
				WarningRules []string `json:"warningRules"`
			} `json:"expect"`
		}
		require.NoError(t, json.Unmarshal(b, &extra))
		out[i] = beyondVector{v, extra.Expect.WarningRules}
	}
	return out
}

// foldBeyond folds vec with FoldJSON one view at a time and, independently,
// with a Builder, and checks that both agree on the final view.
func foldBeyond(t *testing.T, vec *conformance.Vector) (*view.View, []*reducer.Violation) {
	t.Helper()
	v, viols := foldVector(t, vec)
	b := reducer.NewBuilder(view.New())
	var bviols []*reducer.Violation
	for _, raw := range vec.Events {
		if err := b.FoldJSON(raw); err != nil {
			var viol *reducer.Violation
			require.True(t, errors.As(err, &viol))
			bviols = append(bviols, viol)
		}
	}
	bv := b.View()
	want, err := json.Marshal(v)
	require.NoError(t, err)
	got, err := json.Marshal(bv)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got), "a Builder folds as FoldJSON does")
	assert.Len(t, bviols, len(viols), "a Builder refuses what FoldJSON refuses")
	return v, viols
}

func TestBeyondVectors(t *testing.T) {
	t.Parallel()
	for _, vec := range loadBeyond(t) {
		t.Run(vec.Name, func(t *testing.T) {
			t.Parallel()
			v, viols := foldBeyond(t, vec.Vector)
			if !vec.Accept() {
				require.NotEmpty(t, viols, "verdict: want reject at %v, got accept", vec.Expect.RejectAt)
				require.NotNil(t, vec.Expect.RejectAt)
				assert.Equal(t, *vec.Expect.RejectAt, viols[0].Index, "rejectAt (first violation: %v)", viols[0])
				assert.Equal(t, vec.Expect.Rule, viols[0].Rule, "rule of the first violation: %v", viols[0])
				var de *event.DecodeError
				if vec.Expect.ErrorStage == "schema" {
					require.ErrorAs(t, viols[0], &de, "a schema rejection is a decoding error: %v", viols[0])
					if vec.Expect.ErrorPath != "" {
						assert.Equal(t, "/"+vec.Expect.ErrorPath, de.Pointer, "pointer of the schema error")
					}
				}
				return
			}
			require.Empty(t, viols, "verdict: want accept")
			msgs, err := json.Marshal(v.MessageList())
			require.NoError(t, err)
			pending, err := json.Marshal(v.PendingInterrupts())
			require.NoError(t, err)
			for _, d := range vec.CheckFinal(msgs, v.State(), pending) {
				t.Error(d)
			}
			rules := map[string]bool{}
			for _, d := range v.Diagnostics() {
				if d.Kind == view.DiagWarning {
					rules[d.Rule] = true
				}
			}
			for _, r := range vec.WarningRules {
				assert.True(t, rules[r], "a %s warning is recorded; diagnostics: %v", r, v.Diagnostics())
			}
		})
	}
}

// tolerated is an end-of-stream cause that matches io.EOF, as a
// transport.Error of KindUnterminated does.
type tolerated struct{}

func (tolerated) Error() string        { return "the last line has no line ending and holds no data; ignored" }
func (tolerated) Is(target error) bool { return target == io.EOF }

// TestStreamEndsG18: an empty frame is skipped with a warning and counted;
// an end that matches io.EOF is a clean end with a warning.
func TestStreamEndsG18(t *testing.T) {
	t.Parallel()
	v := view.New()
	for _, raw := range []string{`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, ``, `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`} {
		next, err := reducer.FoldJSON(v, []byte(raw))
		require.NoError(t, err, "%q", raw)
		v = next
	}
	assert.Equal(t, 3, v.EventCount(), "the empty frame is counted")
	v = reducer.End(v, tolerated{})
	run, ok := v.LastRun()
	require.True(t, ok)
	assert.Equal(t, view.RunFinished, run.Status)
	var rules []string
	for _, d := range v.Diagnostics() {
		assert.Equal(t, view.DiagWarning, d.Kind, "%+v", d)
		rules = append(rules, d.Rule)
	}
	assert.Equal(t, []string{"G18", "G18"}, rules)

	// Mid-run, the same end leaves the run incomplete, not failed.
	v, _ = reducer.FoldJSON(view.New(), []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`))
	v = reducer.End(v, tolerated{})
	run, _ = v.LastRun()
	assert.Equal(t, view.RunIncomplete, run.Status)
}

// TestSuspendedContinuedByTags: an invocation suspended in one run and
// continued in the next by attributed events alone (no SUBAGENT_STARTED)
// reads running again, and the run's end settles it.
func TestSuspendedContinuedByTags(t *testing.T) {
	t.Parallel()
	first := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r1"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"sa-1","name":"researcher"}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"sa-1","outcome":{"type":"suspended","interruptIds":["i1"]}}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r1","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"input_required","subagentRunId":"sa-1"}]}}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r2"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa-1"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
	}
	for _, tc := range []struct {
		name, end string
		want      view.Status
	}{
		{"run finishes", `{"type":"RUN_FINISHED","threadId":"t","runId":"r2"}`, view.Finished},
		{"run interrupted by it again", `{"type":"RUN_FINISHED","threadId":"t","runId":"r2","outcome":{"type":"interrupt","interrupts":[{"id":"i2","reason":"confirmation","subagentRunId":"sa-1"}]}}`, view.Suspended},
		{"run errors", `{"type":"RUN_ERROR","message":"boom"}`, view.Abandoned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := view.New()
			for i, raw := range first {
				next, err := reducer.FoldJSON(v, []byte(raw))
				require.NoError(t, err, "event %d", i)
				v = next
				if i == 3 {
					require.Equal(t, view.Suspended, v.Invocation("sa-1").Status())
				}
			}
			inv := v.Invocation("sa-1")
			assert.Equal(t, view.Running, inv.Status(), "continued by its events alone, it runs again")
			assert.Nil(t, inv.Outcome(), "the suspended outcome belongs to the run that suspended it")
			v, err := reducer.FoldJSON(v, []byte(tc.end))
			require.NoError(t, err)
			assert.Equal(t, tc.want, v.Invocation("sa-1").Status())
			assert.Equal(t, 1, v.InvocationCount(), "the same node, not a new one")
		})
	}
}
