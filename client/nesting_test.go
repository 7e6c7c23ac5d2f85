package client_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/patch"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// nestingOf returns how deeply arrays and objects nest in the JSON b.
func nestingOf(b []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = c == '\\'
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// TestNestingLimitEncodesEverywhere (docs/protocol.md G21, G8; issue 34 N4):
// a state and an activity grown by deltas to exactly patch.MaxNesting
// levels are accepted, and everything that holds them encodes again: the
// view with json.Marshal, client.NextInput with json.Marshal, the protobuf
// form of each event that carries them (STATE_SNAPSHOT, ACTIVITY_SNAPSHOT,
// MESSAGES_SNAPSHOT, RUN_STARTED's input), and the journal's lines (a
// viewer attaching sees the client's view). One level more is a failed
// delta, the document unchanged.
func TestNestingLimitEncodesEverywhere(t *testing.T) {
	const limit = patch.MaxNesting
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	// {"s": deep(limit-2)} nests limit-1 levels; its innermost array is at
	// /s/0/…/0 (limit-3 zeros).
	inner := "/s" + strings.Repeat("/0", limit-3)
	frames := []json.RawMessage{
		json.RawMessage(`{"type":"RUN_STARTED","threadId":"deep","runId":"r1"}`),
		json.RawMessage(`{"type":"STATE_SNAPSHOT","snapshot":{"s":` + deep(limit-2) + `}}`),
		// One level more: exactly the limit.
		json.RawMessage(fmt.Sprintf(`{"type":"STATE_DELTA","delta":[{"op":"add","path":%q,"value":[]}]}`, inner+"/-")),
		// One level more again: over it, a failed delta.
		json.RawMessage(fmt.Sprintf(`{"type":"STATE_DELTA","delta":[{"op":"add","path":%q,"value":[]}]}`, inner+"/0/-")),
		json.RawMessage(`{"type":"ACTIVITY_SNAPSHOT","messageId":"act","activityType":"PLAN","content":{"c":` + deep(limit-2) + `}}`),
		json.RawMessage(fmt.Sprintf(`{"type":"ACTIVITY_DELTA","messageId":"act","activityType":"PLAN","patch":[{"op":"add","path":%q,"value":[]}]}`,
			"/c"+strings.Repeat("/0", limit-3)+"/-")),
		json.RawMessage(fmt.Sprintf(`{"type":"ACTIVITY_DELTA","messageId":"act","activityType":"PLAN","patch":[{"op":"add","path":%q,"value":{}}]}`,
			"/c"+strings.Repeat("/0", limit-2)+"/-")),
		json.RawMessage(`{"type":"RUN_FINISHED","threadId":"deep","runId":"r1"}`),
	}
	srv := agenttest.NewServer(agenttest.Frames(frames...), nil)
	defer srv.Close()
	for name, enc := range map[string]transport.Encoding{"sse": transport.EncodingSSE, "protobuf": transport.EncodingProto} {
		t.Run(name, func(t *testing.T) {
			j, err := journal.OpenDir(t.TempDir(), nil)
			require.NoError(t, err)
			defer j.Close()
			c := client.New(srv.URL(), client.WithEncoding(enc), client.WithJournal(j, func(err error) { t.Errorf("journal: %v", err) }))
			defer c.Close()
			v, err := c.Run(t.Context(), &event.RunAgentInput{ThreadID: "deep", RunID: "r1"})
			require.NoError(t, err)
			checkAtTheLimit(t, v, limit, 2)

			// The view, and the next run's input, with encoding/json.
			form, err := json.Marshal(v)
			require.NoError(t, err, "json.Marshal of the view")
			assert.Equal(t, limit+3, nestingOf(form), "the activity's content sits three levels down")
			next := client.NextInput(v, &client.InputOptions{RunID: "r2"})
			in, err := json.Marshal(next)
			require.NoError(t, err, "json.Marshal of client.NextInput")
			assert.Equal(t, limit+1, nestingOf(in))

			// The protobuf form of every event that carries them.
			act, ok := v.Message("act")
			require.True(t, ok)
			for _, e := range []event.Event{
				&event.StateSnapshot{Snapshot: v.State()},
				&event.ActivitySnapshot{MessageID: "act", ActivityType: "PLAN", Content: act.Content},
				&event.MessagesSnapshot{Messages: v.MessageList()},
				&event.RunStarted{ThreadID: "deep", RunID: "r2", Input: next},
			} {
				want, err := event.Encode(e)
				require.NoError(t, err, "%s as JSON", e.EventType())
				_, err = event.Decode(want)
				require.NoError(t, err, "%s decodes from JSON", e.EventType())
				pb, err := event.AppendProto(nil, e)
				require.NoError(t, err, "%s as protobuf", e.EventType())
				back, err := event.DecodeProto(pb)
				require.NoError(t, err, "%s decodes from protobuf", e.EventType())
				got, err := event.Encode(back)
				require.NoError(t, err)
				assert.True(t, bytes.Equal(want, got), "%s comes back from protobuf as it was", e.EventType())
			}

			// The journal: the next run's input line holds the state two
			// levels down; a viewer attaching folds it all again.
			v, err = c.Continue(t.Context(), &client.InputOptions{RunID: "r2"})
			require.NoError(t, err)
			checkAtTheLimit(t, v, limit, 4) // the same stream again
			assert.JSONEq(t, viewJSON(t, v), viewJSON(t, attachIdle(t, j, "deep")), "a viewer attaching sees the client's view")
		})
	}
}

// checkAtTheLimit checks that v's state and activity nest exactly limit
// levels, that the deltas over it failed (G8: want of them), and that
// nothing was refused.
func checkAtTheLimit(t *testing.T, v *view.View, limit, want int) {
	t.Helper()
	assert.Zero(t, v.ViolationCount(), "%v", v.Diagnostics())
	assert.Equal(t, limit, nestingOf(v.State()), "the state")
	act, ok := v.Message("act")
	require.True(t, ok)
	assert.Equal(t, limit, nestingOf(act.Content), "the activity")
	failed := 0
	for _, d := range v.Diagnostics() {
		if d.Rule == "G8" {
			failed++
			assert.Contains(t, d.Message, fmt.Sprintf("over the limit of %d", limit))
		}
	}
	assert.Equal(t, want, failed, "the deltas one level over the limit failed: %v", v.Diagnostics())
}
