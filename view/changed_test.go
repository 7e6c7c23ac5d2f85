package view_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

func ids(it func(func(*view.Invocation) bool)) []string {
	var out []string
	for inv := range it {
		if inv.IsRoot() {
			out = append(out, "(root)")
		} else {
			out = append(out, inv.ID())
		}
	}
	return out
}

func foldAll(t *testing.T, v *view.View, lines ...string) *view.View {
	t.Helper()
	for _, l := range lines {
		var err error
		v, err = reducer.FoldJSON(v, []byte(l))
		require.NoError(t, err, l)
	}
	return v
}

func TestChangedSince(t *testing.T) {
	v0 := foldAll(t, view.New(),
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"a","name":"researcher"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"b","name":"researcher"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"ma","role":"assistant","subagentRunId":"a"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"mb","role":"assistant","subagentRunId":"b"}`,
	)
	assert.Equal(t, []string{"(root)", "a", "b"}, ids(v0.ChangedSince(nil)), "nil: everything")
	assert.Empty(t, ids(v0.ChangedSince(v0)), "a view has not changed since itself")

	v1 := foldAll(t, v0, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"mb","delta":"hi"}`)
	assert.Equal(t, []string{"b"}, ids(v1.ChangedSince(v0)), "a delta changes its owner only")

	v2 := foldAll(t, v1,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"ma","delta":"x","subagentRunId":"a"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"c","name":"checker","parentSubagentRunId":"a"}`,
	)
	got := ids(v2.ChangedSince(v1))
	assert.Contains(t, got, "a")
	assert.Contains(t, got, "c", "a new invocation is yielded")
	assert.NotContains(t, got, "b")
	assert.Equal(t, []string{"b"}, ids(v1.ChangedSince(v0)), "old views are unchanged")

	// Through a Builder, which changes in place what no view reaches.
	b := reducer.NewBuilder(v2)
	require.NoError(t, b.FoldJSON([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"mb","delta":"y"}`)))
	v3 := b.View()
	require.NoError(t, b.FoldJSON([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"mb","delta":"z"}`)))
	v4 := b.View()
	assert.Equal(t, []string{"b"}, ids(v3.ChangedSince(v2)))
	assert.Equal(t, []string{"b"}, ids(v4.ChangedSince(v3)))
	assert.Empty(t, ids(v4.ChangedSince(v4)))
}

func ExampleView_ChangedSince() {
	v0, _ := reducer.FoldJSON(view.New(), []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`))
	v0, _ = reducer.FoldJSON(v0, []byte(`{"type":"SUBAGENT_STARTED","subagentRunId":"sa-1","name":"researcher"}`))
	v0, _ = reducer.FoldJSON(v0, []byte(`{"type":"SUBAGENT_STARTED","subagentRunId":"sa-2","name":"researcher"}`))
	v1, _ := reducer.FoldJSON(v0, []byte(`{"type":"STEP_STARTED","stepName":"search","subagentRunId":"sa-2"}`))
	for inv := range v1.ChangedSince(v0) {
		fmt.Println("redraw", inv.ID())
	}
	// Output: redraw sa-2
}
