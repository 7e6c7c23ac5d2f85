package reducer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
	"github.com/stretchr/testify/require"
)

// callsStream returns tool calls from to from+n-1 (prefix names them),
// each started under an assistant message shared by three calls, streamed,
// ended and answered, with a MESSAGES_SNAPSHOT every snapEvery calls that
// keeps the last few messages and adds one call of its own (snapEvery is
// a multiple of 3, so that it comes after the last call of a message):
// enough calls
// that the tool call maps (Cold.Calls) move their logs into their tables.
// The calls of every other message carry tag as their subagentRunId, when it is not "".
func callsStream(prefix string, from, n, snapEvery int, tag string) []string {
	var lines []string
	for i := from; i < from+n; i++ {
		id, msg := fmt.Sprintf("%s%d", prefix, i), fmt.Sprintf("%sa%d", prefix, i/3)
		sub := ""
		if tag != "" && i/3%2 == 0 {
			sub = fmt.Sprintf(`"subagentRunId":%q,`, tag)
		}
		lines = append(lines,
			fmt.Sprintf(`{"type":"TOOL_CALL_START",%s"toolCallId":%q,"toolCallName":"f","parentMessageId":%q}`, sub, id, msg),
			fmt.Sprintf(`{"type":"TOOL_CALL_ARGS","toolCallId":%q,"delta":"{}"}`, id),
			fmt.Sprintf(`{"type":"TOOL_CALL_END","toolCallId":%q}`, id),
			fmt.Sprintf(`{"type":"TOOL_CALL_RESULT","messageId":"%sr%d","toolCallId":%q,"content":"%s-%d"}`, prefix, i, id, prefix, i))
		if i%snapEvery == snapEvery-1 {
			lines = append(lines, fmt.Sprintf(`{"type":"MESSAGES_SNAPSHOT","messages":[`+
				`{"id":%q,"role":"assistant","toolCalls":[{"id":%q,"type":"function","function":{"name":"f","arguments":"{}"}},{"id":"%ss%d","type":"function","function":{"name":"g","arguments":"[]"}}]},`+
				`{"id":"%sr%d","role":"tool","toolCallId":%q,"content":"%s-%d"},`+
				`{"id":"%sq%d","role":"tool","toolCallId":"%ss%d","content":"snap"}]}`,
				msg, id, prefix, i, prefix, i, id, prefix, i, prefix, i, prefix, i))
		}
	}
	return lines
}

// fingerprint is what a view says of the tool calls of ids and its JSON.
func fingerprint(t testing.TB, v *view.View, ids []string) string {
	s := marshal(t, v)
	for _, id := range ids {
		c, ok := v.ToolCall(id)
		s += fmt.Sprintf("\n%s %v %+v", id, ok, c)
	}
	return s
}

// TestToolCallRecordsCopyOnWrite folds tool calls, results and
// MESSAGES_SNAPSHOTs, then folds other such streams (accepted and refused
// events) from many of the views on the way: every view published reads
// the same tool calls, results and JSON as when it was published. The
// tool call records (Cold.Calls) are shared by a view and its successors
// until a fold writes them, so a write through a shared one would show
// here; and a fork from a view continues exactly as a fold from scratch.
func TestToolCallRecordsCopyOnWrite(t *testing.T) {
	const calls = 150
	lines := append([]string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"w"}`,
	}, callsStream("c", 0, calls, 39, "s1")...)
	var ids []string
	for i := range calls {
		ids = append(ids, fmt.Sprintf("c%d", i), fmt.Sprintf("cs%d", i))
	}
	views := []*view.View{view.New()}
	started := []int{0} // calls started by each view
	for _, l := range lines {
		views = append(views, mustFoldOn(t, views[len(views)-1], l))
		n := started[len(started)-1]
		if strings.Contains(l, "TOOL_CALL_START") {
			n++
		}
		started = append(started, n)
	}
	final := fingerprint(t, views[len(views)-1], ids)
	kept := map[int]string{}
	for i := 2; i < len(views); i += 23 {
		kept[i] = fingerprint(t, views[i], ids)
	}
	a1 := 0
	for i := range kept {
		// The later calls again, untagged: a view that had seen their
		// owners (subagent s1) would give them to the fork.
		fork := callsStream("c", started[i], 40, 24, "")
		w, scratch := views[i], mustFoldOn(t, view.New(), lines[:i]...)
		for j, l := range fork {
			w, _ = reducer.FoldJSON(w, []byte(l))
			scratch, _ = reducer.FoldJSON(scratch, []byte(l))
			if j%7 == 0 {
				// Refused events, folded from the same view as the next:
				// one refused before it writes, one (A1: a call whose id
				// names a tool message) after it records the call's owner.
				_, err := reducer.FoldJSON(w, []byte(`{"type":"TOOL_CALL_END","toolCallId":"nope"}`))
				require.Error(t, err)
				if ms := w.MessageList(); len(ms) > 0 && ms[len(ms)-1].Role == "tool" {
					tm := ms[len(ms)-1].ID
					_, err = reducer.FoldJSON(w, []byte(fmt.Sprintf(`{"type":"TOOL_CALL_START","toolCallId":%q,"toolCallName":"f","parentMessageId":%q}`, tm, tm)))
					require.Error(t, err)
					a1++
				}
			}
		}
		require.Equal(t, fingerprint(t, scratch, ids), fingerprint(t, w, ids), "a fork from view %d", i)
		// The rest of the original stream again from the same view.
		u := views[i]
		for _, l := range lines[i:] {
			u = mustFoldOn(t, u, l)
		}
		require.Equal(t, final, fingerprint(t, u, ids), "folding again from view %d", i)
	}
	require.Greater(t, a1, 10, "refused TOOL_CALL_STARTs")
	for i, want := range kept {
		require.Equal(t, want, fingerprint(t, views[i], ids), "view %d changed after it was published", i)
	}
}
