package reducer_test

// Helpers shared by the reducer's tests.

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// refusal is a violation expected at an event index.
type refusal struct {
	index int
	rule  string
}

// refusals returns the index and rule of each violation.
func refusals(viols []*reducer.Violation) []refusal {
	out := []refusal{}
	for _, v := range viols {
		out = append(out, refusal{v.Index, v.Rule})
	}
	return out
}

const (
	saStart  = `{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"n"}`
	saFinish = `{"type":"SUBAGENT_FINISHED","subagentRunId":"sa1"}`
	runError = `{"type":"RUN_ERROR","message":"give up"}`
)

func ptr(i int) *int { return &i }

// mustFoldOn folds more wire events onto v; all must be accepted.
func mustFoldOn(t testing.TB, v *view.View, lines ...string) *view.View {
	t.Helper()
	for _, l := range lines {
		next, err := reducer.FoldJSON(v, []byte(l))
		require.NoError(t, err, "event %s", l)
		v = next
	}
	return v
}
