package reducer_test

// Tests of the chunk shorthand (PROTOCOL.md §4, G9): stale chunk streams,
// the messages of chunk refusals, and RUN_ERROR with chunk streams open.

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// A chunk stream whose entity an untagged explicit END closed goes stale.
// The first event that closes or continues it is refused, as the reference
// refuses it (the END it synthesizes finds nothing open), and only that one:
// the stale stream never wedges the stream afterwards.
func TestStaleChunkLane(t *testing.T) {
	kinds := []struct {
		name  string
		chunk string // a chunk in sa1's lane
		end   string // the untagged explicit END of the same entity
		rule  string // the rule the synthesized END breaks
		kind  string
		next  string // an id-less continuation chunk in sa1's lane
	}{
		{"text", `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"hi","subagentRunId":"sa1"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`, "V7", "text message 'm1'",
			`{"type":"TEXT_MESSAGE_CHUNK","delta":"more","subagentRunId":"sa1"}`},
		{"tool call", `{"type":"TOOL_CALL_CHUNK","toolCallId":"tc1","toolCallName":"f","delta":"{","subagentRunId":"sa1"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"tc1"}`, "V9", "tool call 'tc1'",
			`{"type":"TOOL_CALL_CHUNK","delta":"}","subagentRunId":"sa1"}`},
		{"reasoning", `{"type":"REASONING_MESSAGE_CHUNK","messageId":"rm1","delta":"hm","subagentRunId":"sa1"}`,
			`{"type":"REASONING_MESSAGE_END","messageId":"rm1"}`, "V13", "reasoning message 'rm1'",
			`{"type":"REASONING_MESSAGE_CHUNK","delta":"m","subagentRunId":"sa1"}`},
	}
	for _, k := range kinds {
		prefix := []string{start, saStart, k.chunk, k.end} // events 0–3, all accepted
		cases := []struct {
			name     string
			rest     []string
			want     []refusal
			stale    int // index of the refusal naming the stale stream, -1: none
			verb     string
			runs     []view.RunStatus
			sa1      view.Status
			warnings int // G9 warnings
		}{
			{"SUBAGENT_FINISHED meets it, then RUN_FINISHED lacks the finish, RUN_ERROR ends the run",
				[]string{saFinish, finish, runError, start2},
				[]refusal{{4, k.rule}, {5, "R10"}}, 4, "closes",
				[]view.RunStatus{view.RunErrored, view.RunRunning}, view.Abandoned, 0},
			{"refused once, the same event is accepted again",
				[]string{saFinish, saFinish, finish, start2},
				[]refusal{{4, k.rule}}, 4, "closes",
				[]view.RunStatus{view.RunFinished, view.RunRunning}, view.Finished, 0},
			{"RUN_ERROR meeting it is accepted with a warning (V15)",
				[]string{runError, start2},
				[]refusal{}, -1, "",
				[]view.RunStatus{view.RunErrored, view.RunRunning}, view.Abandoned, 1},
			{"RUN_FINISHED meeting it is refused once",
				[]string{finish, saFinish, finish},
				[]refusal{{4, k.rule}}, 4, "closes",
				[]view.RunStatus{view.RunFinished}, view.Finished, 0},
			{"MESSAGES_SNAPSHOT meeting it is refused once",
				[]string{`{"type":"MESSAGES_SNAPSHOT","messages":[]}`, `{"type":"MESSAGES_SNAPSHOT","messages":[]}`, saFinish, finish},
				[]refusal{{4, k.rule}}, 4, "closes",
				[]view.RunStatus{view.RunFinished}, view.Finished, 0},
			{"a continuation chunk meeting it is refused once",
				[]string{k.next, saFinish, finish},
				[]refusal{{4, k.rule}}, 4, "continues",
				[]view.RunStatus{view.RunFinished}, view.Finished, 0},
		}
		for _, tc := range cases {
			t.Run(k.name+"/"+tc.name, func(t *testing.T) {
				v, viols := fold(t, append(prefix, tc.rest...)...)
				assert.Equal(t, tc.want, refusals(viols))
				if tc.stale >= 0 {
					require.NotEmpty(t, viols)
					msg := viols[0].Message
					assert.Contains(t, msg, tc.verb+" the pending chunk stream in the lane of subagent 'sa1', which was streaming "+k.kind)
					assert.Contains(t, msg, "already ended")
					assert.Contains(t, msg, "discarded")
					assert.NotContains(t, msg, "expanded from", "nothing was expanded from the refused event")
				}
				var statuses []view.RunStatus
				for _, r := range v.Runs() {
					statuses = append(statuses, r.Status)
				}
				assert.Equal(t, tc.runs, statuses)
				inv := v.Invocation("sa1")
				require.NotNil(t, inv)
				assert.Equal(t, tc.sa1, inv.Status())
				assert.Len(t, diagsWith(v, "G9"), tc.warnings)
			})
		}
	}

	t.Run("Reduce refuses the same event again: only Fold drops the stale stream", func(t *testing.T) {
		v := mustFold(t, start, saStart, kinds[0].chunk, kinds[0].end)
		e, err := event.Decode([]byte(saFinish))
		require.NoError(t, err)
		next, err := reducer.Reduce(v, e)
		require.Error(t, err)
		assert.Same(t, v, next, "G1: Reduce returns the view itself")
		_, err = reducer.Reduce(v, e)
		assert.Error(t, err, "v still holds the stale stream")
		folded, err := reducer.Fold(v, e)
		require.Error(t, err)
		_, err = reducer.Reduce(folded, e)
		assert.NoError(t, err, "the view Fold recorded the refusal in no longer holds it")
	})

	t.Run("an explicit untagged END agreeing with a live stream's message leaves the stream alone", func(t *testing.T) {
		// The parent lane's stream m2 is unrelated: the untagged END of sa1's
		// m1 closes it first (its own lane), and m2 ends closed.
		v, viols := fold(t, start,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","delta":"p"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
			finish)
		assert.Empty(t, viols)
		assert.Empty(t, v.Root().OpenMessageIDs())
	})
}

// Refusals caused by a chunk stream that the refused event itself closed say
// so, instead of claiming the entity was never started.
func TestChunkRefusalMessages(t *testing.T) {
	cases := []struct {
		name   string
		events []string
		index  int
		rule   string
		want   []string
	}{
		{"text content after chunks", []string{start,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
			2, "V7", []string{
				"TEXT_MESSAGE_CONTENT first closes the pending chunk stream in the lane of the parent agent, which was streaming text message 'm1'",
				"the TEXT_MESSAGE_END that stream owes ends text message 'm1'",
				"no open text message to continue"}},
		{"text end after chunks", []string{start,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`},
			2, "V7", []string{"TEXT_MESSAGE_END first closes", "no open text message to end"}},
		{"tool args after chunks in a subagent's lane", []string{start,
			`{"type":"TOOL_CALL_CHUNK","toolCallId":"tc1","toolCallName":"f","delta":"{","subagentRunId":"sa1"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"}","subagentRunId":"sa1"}`},
			2, "V9", []string{"TOOL_CALL_ARGS first closes the pending chunk stream in the lane of subagent 'sa1', which was streaming tool call 'tc1'",
				"no open tool call to continue"}},
		{"reasoning end after chunks", []string{start,
			`{"type":"REASONING_MESSAGE_CHUNK","messageId":"rm1","delta":"a"}`,
			`{"type":"REASONING_MESSAGE_END","messageId":"rm1"}`},
			2, "V13", []string{"REASONING_MESSAGE_END first closes", "reasoning message 'rm1'", "no open reasoning message to end"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, viols := fold(t, tc.events...)
			require.Len(t, viols, 1)
			assert.Equal(t, refusal{tc.index, tc.rule}, refusals(viols)[0])
			for _, w := range tc.want {
				assert.Contains(t, viols[0].Message, w)
			}
			assert.NotContains(t, viols[0].Message, "is in progress", "the message is not claimed never to have started")
			assert.NotContains(t, viols[0].Message, "expanded from")
		})
	}
	t.Run("an id the stream was not streaming keeps the plain message", func(t *testing.T) {
		_, viols := fold(t, start,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"b"}`)
		require.Len(t, viols, 1)
		assert.Equal(t, "no text message 'm2' is in progress; send TEXT_MESSAGE_START first", viols[0].Message)
	})
}

// RUN_ERROR abandons what chunk streams were streaming, as it abandons
// everything else (G11), instead of closing it.
func TestRunErrorAbandonsChunkStreams(t *testing.T) {
	stream := []string{start,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"tc1","toolCallName":"f","delta":"{"}`,
		`{"type":"REASONING_MESSAGE_CHUNK","messageId":"rm1","delta":"hm","subagentRunId":"sa1"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"hi","subagentRunId":"sa2"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"tc2","toolCallName":"g","subagentRunId":"sa3"}`}
	cases := []struct {
		name string
		end  func(*view.View) *view.View
	}{
		{"RUN_ERROR", func(v *view.View) *view.View {
			next, err := reducer.FoldJSON(v, []byte(`{"type":"RUN_ERROR","message":"x"}`))
			require.NoError(t, err)
			return next
		}},
		{"a broken transport", func(v *view.View) *view.View { return reducer.End(v, errors.New("EOF")) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.end(mustFold(t, stream...))
			for _, id := range []string{"tc1", "tc2"} {
				c, ok := v.ToolCall(id)
				require.True(t, ok)
				assert.Equal(t, view.EntityAbandoned, c.Status, "tool call %s", id)
			}
			r := v.Invocation("sa1").Reasoning()
			require.Len(t, r, 1)
			assert.Equal(t, view.EntityAbandoned, r[0].Status)
			assert.Empty(t, v.Invocation("sa2").OpenMessageIDs())
			assert.Empty(t, diagsWith(v, "G9"), "no stream was stale")
		})
	}
}
