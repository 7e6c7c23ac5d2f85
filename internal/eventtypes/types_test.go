package eventtypes

import (
	"encoding/json"
	"iter"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transform"
	"github.com/agview/agview/tui"
	"github.com/agview/agview/view"
)

const (
	started = `{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`
	sub     = `{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"researcher"}`
	text    = `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":"sa1"}`
	call    = `{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"search","subagentRunId":"sa1"}`
	span    = `{"type":"REASONING_START","messageId":"rs1","subagentRunId":"sa1"}`
	thought = `{"type":"REASONING_MESSAGE_START","messageId":"rm1","role":"reasoning","subagentRunId":"sa1"}`
	act     = `{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"PLAN","content":{"steps":[]},"subagentRunId":"sa1"}`
	step    = `{"type":"STEP_STARTED","stepName":"plan","subagentRunId":"sa1"}`
	think   = `{"type":"THINKING_START"}`
	thinkM  = `{"type":"THINKING_TEXT_MESSAGE_START"}`
)

// samples holds, for every event type, a stream whose last event is of that
// type and is accepted in the stream's context. A new event type needs one.
var samples = map[event.Type][]string{
	event.TypeRunStarted:  {started},
	event.TypeRunFinished: {started, `{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`},
	event.TypeRunError:    {started, sub, `{"type":"RUN_ERROR","message":"boom"}`},
	event.TypeStepStarted: {started, sub, step},
	event.TypeStepFinished: {started, sub, step,
		`{"type":"STEP_FINISHED","stepName":"plan","subagentRunId":"sa1"}`},
	event.TypeTextMessageStart:   {started, sub, text},
	event.TypeTextMessageContent: {started, sub, text, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}`},
	event.TypeTextMessageEnd:     {started, sub, text, `{"type":"TEXT_MESSAGE_END","messageId":"m1"}`},
	event.TypeTextMessageChunk: {started, sub,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","role":"assistant","delta":"hi","subagentRunId":"sa1"}`},
	event.TypeToolCallStart: {started, sub, call},
	event.TypeToolCallArgs:  {started, sub, call, `{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"{}"}`},
	event.TypeToolCallEnd:   {started, sub, call, `{"type":"TOOL_CALL_END","toolCallId":"tc1"}`},
	event.TypeToolCallChunk: {started, sub,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"tc2","toolCallName":"search","delta":"{}","subagentRunId":"sa1"}`},
	event.TypeToolCallResult: {started, sub, call, `{"type":"TOOL_CALL_END","toolCallId":"tc1"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"res1","toolCallId":"tc1","content":"42","subagentRunId":"sa1"}`},
	event.TypeStateSnapshot: {started, sub, `{"type":"STATE_SNAPSHOT","snapshot":{"n":1},"subagentRunId":"sa1"}`},
	event.TypeStateDelta:    {started, sub, `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/n","value":1}]}`},
	event.TypeMessagesSnapshot: {started,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u1","role":"user","content":"hello"},{"id":"x1","role":"assistant","content":"hi","subagentRunId":"sa9"}]}`},
	event.TypeActivitySnapshot: {started, sub, act},
	event.TypeActivityDelta: {started, sub, act,
		`{"type":"ACTIVITY_DELTA","messageId":"a1","activityType":"PLAN","patch":[{"op":"add","path":"/steps/-","value":"x"}]}`},
	event.TypeRaw:                   {started, `{"type":"RAW","event":{"k":1},"source":"openai"}`},
	event.TypeCustom:                {started, `{"type":"CUSTOM","name":"ping","value":1}`},
	event.TypeReasoningStart:        {started, sub, span},
	event.TypeReasoningMessageStart: {started, sub, span, thought},
	event.TypeReasoningMessageContent: {started, sub, span, thought,
		`{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm1","delta":"hmm"}`},
	event.TypeReasoningMessageEnd: {started, sub, span, thought, `{"type":"REASONING_MESSAGE_END","messageId":"rm1"}`},
	event.TypeReasoningMessageChunk: {started, sub,
		`{"type":"REASONING_MESSAGE_CHUNK","messageId":"rm2","delta":"hmm","subagentRunId":"sa1"}`},
	event.TypeReasoningEnd: {started, sub, span, `{"type":"REASONING_END","messageId":"rs1"}`},
	event.TypeReasoningEncryptedValue: {started, sub, text,
		`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m1","encryptedValue":"gAAA"}`},
	event.TypeSubagentStarted:          {started, sub},
	event.TypeSubagentFinished:         {started, sub, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sa1","result":{"ok":true}}`},
	event.TypeSubagentError:            {started, sub, `{"type":"SUBAGENT_ERROR","subagentRunId":"sa1","message":"timeout"}`},
	event.TypeThinkingStart:            {started, think},
	event.TypeThinkingEnd:              {started, think, `{"type":"THINKING_END"}`},
	event.TypeThinkingTextMessageStart: {started, think, thinkM},
	event.TypeThinkingTextMessageContent: {started, think, thinkM,
		`{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hm"}`},
	event.TypeThinkingTextMessageEnd: {started, think, thinkM, `{"type":"THINKING_TEXT_MESSAGE_END"}`},
}

func decodeAll(t *testing.T, lines []string) []event.Event {
	t.Helper()
	var out []event.Event
	for _, l := range lines {
		e, err := event.Decode([]byte(l))
		require.NoError(t, err, l)
		out = append(out, e)
	}
	return out
}

// TestEveryTypeIsHandled folds each type's sample and checks every stage.
func TestEveryTypeIsHandled(t *testing.T) {
	for _, ty := range event.Types() {
		t.Run(string(ty), func(t *testing.T) {
			lines, ok := samples[ty]
			require.True(t, ok, "no sample stream for %s: add one to samples (CONTRIBUTING.md lists every place a new event type touches)", ty)
			evs := decodeAll(t, lines)
			require.Equal(t, ty, evs[len(evs)-1].EventType(), "the sample's last event is a %s", ty)

			// The reducer folds it: no violation, in particular no "cannot
			// be folded" from a dispatch that misses the type.
			v := view.New()
			for i, e := range evs {
				var err error
				v, err = reducer.Fold(v, e)
				require.NoError(t, err, "event %d (%s)", i, e.EventType())
			}
			for _, d := range v.Diagnostics() {
				assert.NotContains(t, d.Message, "cannot be folded")
			}

			// The view's JSON form.
			b, err := json.Marshal(v)
			require.NoError(t, err)
			assert.True(t, json.Valid(b))

			// The terminal UI draws the view, with every pane expanded.
			m := tui.New(nil, &tui.Options{Title: "types"})
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
			m.Update(tui.Frame{View: v, Time: time.Unix(0, 0)})
			for range 3 {
				m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
				m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
			}
			assert.NotEmpty(t, m.View().Content)

			// The legacy-peer transformer gives a stream an old peer reads:
			// no subagent events, no tags, and it still folds.
			var seq iter.Seq2[event.Event, error] = func(yield func(event.Event, error) bool) {
				for _, e := range evs {
					if !yield(e, nil) {
						return
					}
				}
			}
			old := view.New()
			for e, err := range transform.HideSubagents(seq) {
				require.NoError(t, err)
				assert.False(t, strings.HasPrefix(string(e.EventType()), "SUBAGENT_"), "%s reaches an old peer", e.EventType())
				_, tagged := e.SubagentRunID()
				assert.False(t, tagged, "a %s keeps its tag for an old peer", e.EventType())
				old, err = reducer.Fold(old, e)
				assert.NoError(t, err, "the old peer's stream folds")
			}
		})
	}
	for ty := range samples {
		assert.Contains(t, event.Types(), ty, "a sample for a type event.Types does not list")
	}
}
