package reducer_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestDeltaLooksIDUpAgain (G16, D1): a MESSAGES_SNAPSHOT drops an open text
// message; a later event creates a message of that id again; the deltas and
// the END that follow go to the new message, with no warning, on FoldJSON
// and on a Builder (whose streamed fast path must not keep the old place).
// A message of that id of another kind (a tool or activity message: one id
// names one message of one kind) does not take them: they are dropped
// with a warning, as before.
func TestDeltaLooksIDUpAgain(t *testing.T) {
	t.Parallel()
	head := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"old"}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[]}`,
	}
	tests := []struct {
		name     string
		recreate string
		end      bool // end the tool call recreate starts
		deltas   []string
		want     string // m1's content; "" when m1 must have none
		warned   bool
	}{
		{name: "tool call parent", recreate: `{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1"}`, end: true,
			deltas: []string{"a", "b", "", "c"}, want: "abc"},
		{name: "tool call parent, one delta", recreate: `{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1"}`, end: true,
			deltas: []string{"x"}, want: "x"},
		{name: "a tool message of that id does not take the delta",
			recreate: `{"type":"TOOL_CALL_RESULT","messageId":"m1","toolCallId":"c9","content":"r"}`,
			deltas:   []string{"+1"}, warned: true},
		{name: "an activity of that id does not take the delta",
			recreate: `{"type":"ACTIVITY_SNAPSHOT","messageId":"m1","activityType":"PLAN","content":{"a":1}}`,
			deltas:   []string{"x"}, warned: true},
		{name: "nothing of that id", recreate: `{"type":"STATE_SNAPSHOT","snapshot":{}}`, deltas: []string{"x"}, warned: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lines := append(append([]string{}, head...), tt.recreate)
			if tt.end {
				lines = append(lines, `{"type":"TOOL_CALL_END","toolCallId":"c1"}`)
			}
			for _, d := range tt.deltas {
				b, err := json.Marshal(map[string]string{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": d})
				require.NoError(t, err)
				lines = append(lines, string(b))
			}
			lines = append(lines, `{"type":"TEXT_MESSAGE_END","messageId":"m1"}`, `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`)
			v, bv := foldBoth(t, lines, nil)
			for _, w := range []*view.View{v, bv} {
				warned := false
				for _, d := range w.Diagnostics() {
					if d.Kind == view.DiagWarning && d.Rule == "G14" {
						warned = true
					}
				}
				assert.Equal(t, tt.warned, warned, "a delta dropped with a warning; diagnostics: %v", w.Diagnostics())
				if tt.want == "" {
					continue
				}
				m, ok := w.Message("m1")
				require.True(t, ok)
				assert.JSONEq(t, `"`+tt.want+`"`, string(m.Content))
				run, ok := w.LastRun()
				require.True(t, ok)
				assert.Equal(t, view.RunFinished, run.Status)
			}
			want, err := json.Marshal(v)
			require.NoError(t, err)
			got, err := json.Marshal(bv)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got), "a Builder folds as FoldJSON does")
		})
	}
}

// foldBoth folds the JSON events lines with FoldJSON and, apart, with a
// Builder, requiring each to accept every event, and returns both views.
// after, when not nil, is called with both views after each event i.
func foldBoth(t *testing.T, lines []string, after func(i int, v, bv *view.View)) (v, bv *view.View) {
	t.Helper()
	v = view.New()
	b := reducer.NewBuilder(view.New())
	for i, raw := range lines {
		var err error
		v, err = reducer.FoldJSON(v, []byte(raw))
		require.NoError(t, err, "event %d", i)
		require.NoError(t, b.FoldJSON([]byte(raw)), "event %d", i)
		if after != nil {
			after(i, v, b.View())
		}
	}
	return v, b.View()
}
