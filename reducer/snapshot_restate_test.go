package reducer_test

// Tests of a MESSAGES_SNAPSHOT that restates the list as it is, then new
// messages: the held messages are kept, with the result of rebuilding the
// list.

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestSnapshotRestatingKeepsMessages folds a conversation whose next run
// opens with a MESSAGES_SNAPSHOT of the whole history plus a user message:
// the held messages are kept, so only the root, which the new message goes
// to, changes, and the view reads as rebuilding the list would make it.
func TestSnapshotRestatingKeepsMessages(t *testing.T) {
	v := mustFold(t,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r1"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"a1","role":"assistant","subagentRunId":"s"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"hello \"there\""}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"a1"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"a1","subagentRunId":"s"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c1"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"done","subagentRunId":"s"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r2"}`,
	)
	snap := &event.MessagesSnapshot{Messages: append(v.MessageList(), event.Message{ID: "u2", Role: event.RoleUser, Content: []byte(`"next"`)})}
	kept, err := reducer.Fold(v, snap)
	require.NoError(t, err)
	rebuilt, err := reducer.FoldReplacingList(v, snap)
	require.NoError(t, err)
	assert.Equal(t, marshal(t, rebuilt), marshal(t, kept))
	var changed []string
	for inv := range kept.ChangedSince(v) {
		changed = append(changed, inv.ID())
	}
	assert.Equal(t, []string{""}, changed, "only the root, which gains u2, changed")
	// The call's result is still found after the snapshot: a second result
	// for it goes after r1, not after a1.
	more := `{"type":"TOOL_CALL_RESULT","messageId":"r2","toolCallId":"c1","content":"again","subagentRunId":"s"}`
	kept, rebuilt = mustFoldOn(t, kept, more), mustFoldOn(t, rebuilt, more)
	assert.Equal(t, marshal(t, rebuilt), marshal(t, kept))
}

// TestPropertySnapshotRestating folds random streams, cut at a random
// event, then a MESSAGES_SNAPSHOT made from the view's list (as it is, with
// new messages, with a message changed, dropped or moved, or with an id
// twice), then the rest of the stream: keeping the held messages and
// rebuilding the list give the same views, violations included.
func TestPropertySnapshotRestating(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		evs := genStream(t)
		// Cut mostly between runs, where every message is closed and the
		// snapshot restates the list as a server opening a run would.
		var ends []int
		for i, e := range evs {
			if _, ok := e.(*event.RunFinished); ok {
				ends = append(ends, i+1)
			}
		}
		cut := rapid.IntRange(0, len(evs)).Draw(t, "cut")
		if len(ends) > 0 && rapid.IntRange(0, 3).Draw(t, "between runs") > 0 {
			cut = rapid.SampledFrom(ends).Draw(t, "end")
		}
		v := view.New()
		for _, e := range evs[:cut] {
			var err error
			v, err = reducer.Reduce(v, e)
			require.NoError(t, err)
		}
		msgs := v.MessageList()
		user := func(id string) event.Message {
			return event.Message{ID: id, Role: event.RoleUser, Content: []byte(`"more"`)}
		}
		switch mode := rapid.IntRange(0, 6).Draw(t, "mode"); {
		case mode == 0:
		case mode == 1:
			msgs = append(msgs, user("new-1"), user("new-2"))
		case mode == 2 && len(msgs) > 0:
			i := rapid.IntRange(0, len(msgs)-1).Draw(t, "changed")
			msgs[i].Content = []byte(`"changed"`)
		case mode == 3 && len(msgs) > 0:
			i := rapid.IntRange(0, len(msgs)-1).Draw(t, "dropped")
			msgs = slices.Delete(msgs, i, i+1)
		case mode == 4 && len(msgs) > 1:
			msgs[0], msgs[len(msgs)-1] = msgs[len(msgs)-1], msgs[0]
		case mode == 5 && len(msgs) > 0:
			msgs = append(msgs, msgs[rapid.IntRange(0, len(msgs)-1).Draw(t, "again")])
		case mode == 6:
			msgs = append(msgs, user("twice"), user("twice"))
		}
		snap := &event.MessagesSnapshot{Messages: msgs}
		kept, errKept := reducer.Fold(v, snap)
		rebuilt, errRebuilt := reducer.FoldReplacingList(v, snap)
		require.Equal(t, ruleOf(errRebuilt), ruleOf(errKept))
		require.Equal(t, marshal(t, rebuilt), marshal(t, kept), "after the snapshot")
		for i, e := range evs[cut:] {
			var a, b error
			kept, a = reducer.Fold(kept, e)
			rebuilt, b = reducer.Fold(rebuilt, e)
			require.Equal(t, ruleOf(b), ruleOf(a), "event %d after the snapshot", i)
		}
		require.Equal(t, marshal(t, rebuilt), marshal(t, kept), "at the end")
	})
}

// ruleOf returns the rule of a violation, "" for nil.
func ruleOf(err error) string {
	var viol *reducer.Violation
	if errors.As(err, &viol) {
		return viol.Rule
	}
	if err != nil {
		return fmt.Sprint(err)
	}
	return ""
}
