package event

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullEvents returns one event of every type with every field set, raw
// values deliberately not compact.
func fullEvents() []Event {
	b := Base{Timestamp: Ptr(int64(1700000000123)), RawEvent: raw(`{ "upstream" : [1, 2] }`), Metadata: raw(`{"k": null}`)}
	tag := By("sub-1")
	input := &RunAgentInput{
		ThreadID: "th", RunID: "r2", ParentRunID: Ptr("r1"), ProtocolVersion: Ptr("1.0"),
		State: raw(`{"n": 1}`),
		Messages: []Message{
			{ID: "u1", Role: RoleUser, Content: raw(`"hi <there> & \u2028"`), Name: Ptr("ann"), Metadata: raw(`{}`)},
			{ID: "a1", Role: RoleAssistant, Subagent: Ptr("sub-1"), ToolCalls: []ToolCall{{ID: "c1", Type: "function",
				Function: FunctionCall{Name: "search", Arguments: `{"q":"x"}`}}}},
			{ID: "t1", Role: RoleTool, ToolCallID: Ptr("c1"), Content: raw(`[{"type":"text","text":"r"}]`), Error: Ptr("none")},
		},
		Tools:          []Tool{{Name: "search", Description: "finds", Parameters: raw(`{"type":"object"}`), Metadata: raw(`{"v":2}`)}},
		Context:        []Context{{Description: "d", Value: "v"}},
		ForwardedProps: raw(`{"x":[true]}`),
		Resume:         []ResumeEntry{{InterruptID: "i1", Status: ResumeCancelled, Payload: raw(`"no"`), Metadata: raw(`{}`)}},
	}
	return []Event{
		&RunStarted{Base: b, ThreadID: "th", RunID: "r2", ProtocolVersion: Ptr("1.0"), ParentRunID: Ptr("r1"), Input: input},
		&RunFinished{Base: b, ThreadID: "th", RunID: "r2", Result: raw(`{"ok": true}`),
			Outcome: &RunFinishedOutcome{Type: OutcomeInterrupt, Interrupts: []Interrupt{{ID: "i1", Reason: "tool_call", Message: Ptr("m"),
				ToolCallID: Ptr("c1"), ResponseSchema: raw(`{"type":"object"}`), ExpiresAt: Ptr("2030-01-01T00:00:00Z"),
				Metadata: raw(`{}`), Subagent: Ptr("sub-1")}}},
			Usage: []TokenUsage{{Provider: Ptr("p"), InputTokens: Ptr(int64(10))}}},
		&RunFinished{ThreadID: "th", RunID: "r3", Outcome: &RunFinishedOutcome{Type: OutcomeSuccess, PendingToolCallIDs: []string{}}},
		&RunError{Base: b, Message: "boom", Code: Ptr("E1"), Usage: []TokenUsage{}},
		&StepStarted{Base: b, Attribution: tag, StepName: "plan"},
		&StepFinished{Base: b, Attribution: tag, StepName: "plan"},
		&TextMessageStart{Base: b, Attribution: tag, MessageID: "m1", Role: Ptr(RoleDeveloper), Name: Ptr("n")},
		&TextMessageContent{Base: b, Attribution: tag, MessageID: "m1", Delta: "line\n\t\"quoted\" \x01 é 😀"},
		&TextMessageEnd{Base: b, Attribution: tag, MessageID: "m1"},
		&TextMessageChunk{Base: b, Attribution: tag, MessageID: Ptr("m1"), Role: Ptr(RoleAssistant), Delta: Ptr(""), Name: Ptr("n")},
		&ToolCallStart{Base: b, Attribution: tag, ToolCallID: "c1", ToolCallName: "search", ParentMessageID: Ptr("m1")},
		&ToolCallArgs{Base: b, Attribution: tag, ToolCallID: "c1", Delta: `{"q":`},
		&ToolCallEnd{Base: b, Attribution: tag, ToolCallID: "c1"},
		&ToolCallChunk{Base: b, Attribution: tag, ToolCallID: Ptr("c1"), ToolCallName: Ptr("s"), ParentMessageID: Ptr("m1"), Delta: Ptr("{}")},
		&ToolCallResult{Base: b, Attribution: tag, MessageID: "t1", ToolCallID: "c1", Role: Ptr(RoleTool),
			Content: raw(`[{"type":"text","text":"a","id":"p1","metadata":{}},{"type":"video","source":{"type":"url","value":"u","mimeType":"video/mp4"}}]`)},
		&StateSnapshot{Base: b, Attribution: tag, Snapshot: raw(`{"a": {"b": [1, null]}}`)},
		&StateDelta{Base: b, Attribution: tag, Delta: raw(`[{"op":"add","path":"/a","value":1}]`)},
		&MessagesSnapshot{Base: b, Messages: input.Messages},
		&ActivitySnapshot{Base: b, Attribution: tag, MessageID: "a1", ActivityType: "PLAN", Content: raw(`{"steps": []}`), Replace: Ptr(false)},
		&ActivityDelta{Base: b, Attribution: tag, MessageID: "a1", ActivityType: "PLAN", Patch: raw(`[]`)},
		&Raw{Base: b, Attribution: tag, Event: raw(`[1,"x"]`), Source: Ptr("openai")},
		&Custom{Base: b, Attribution: tag, Name: "ping", Value: raw(`null`)},
		&ReasoningStart{Base: b, Attribution: tag, MessageID: "rs"},
		&ReasoningMessageStart{Base: b, Attribution: tag, MessageID: "rm", Role: RoleReasoning},
		&ReasoningMessageContent{Base: b, Attribution: tag, MessageID: "rm", Delta: "hmm"},
		&ReasoningMessageEnd{Base: b, Attribution: tag, MessageID: "rm"},
		&ReasoningMessageChunk{Base: b, Attribution: tag, MessageID: Ptr("rm"), Delta: Ptr("x")},
		&ReasoningEnd{Base: b, Attribution: tag, MessageID: "rs"},
		&ReasoningEncryptedValue{Base: b, Attribution: tag, Subtype: EncryptedMessage, EntityID: "m1", EncryptedValue: "gAAA"},
		&SubagentStarted{Base: b, ID: "sub-1", Name: "researcher", Description: Ptr("d"), ParentSubagentRunID: Ptr("sub-0"),
			ParentToolCallID: Ptr("c0"), ParentMessageID: Ptr("m0")},
		&SubagentFinished{Base: b, ID: "sub-1", Result: raw(`3`), Outcome: &SubagentOutcome{Type: SubagentSuspended, InterruptIDs: []string{"i1"}}},
		&SubagentError{Base: b, ID: "sub-1", Message: "timeout", Code: Ptr("T")},
		&ThinkingStart{Base: b, Title: Ptr("t")},
		&ThinkingEnd{Base: b},
		&ThinkingTextMessageStart{Base: b},
		&ThinkingTextMessageContent{Base: b, Delta: "hm"},
		&ThinkingTextMessageEnd{Base: b},
	}
}

func TestEncodeRoundTripEveryType(t *testing.T) {
	seen := map[Type]bool{}
	for _, e := range fullEvents() {
		t.Run(string(e.EventType()), func(t *testing.T) {
			seen[e.EventType()] = true
			assertRoundTrip(t, e)

			viaJSON, err := json.Marshal(e)
			require.NoError(t, err)
			direct, err := Encode(e)
			require.NoError(t, err)
			assert.JSONEq(t, string(direct), string(viaJSON), "json.Marshal goes through Encode")

			back := newOf(e)
			require.NoError(t, json.Unmarshal(direct, back), "json.Unmarshal goes through Decode")
			assert.Equal(t, normalize(e), normalize(back))
		})
	}
	for _, ty := range Types() {
		assert.True(t, seen[ty], "fullEvents covers %s", ty)
	}
}

// newOf returns a new zero event of e's type.
func newOf(e Event) Event {
	b, err := Encode(e)
	if err != nil {
		panic(err)
	}
	d, err := Decode(b)
	if err != nil {
		panic(err)
	}
	return normalizeZero(d)
}

func normalizeZero(e Event) Event {
	switch e.(type) {
	case *RunStarted:
		return &RunStarted{}
	case *RunFinished:
		return &RunFinished{}
	case *RunError:
		return &RunError{}
	case *StepStarted:
		return &StepStarted{}
	case *StepFinished:
		return &StepFinished{}
	case *TextMessageStart:
		return &TextMessageStart{}
	case *TextMessageContent:
		return &TextMessageContent{}
	case *TextMessageEnd:
		return &TextMessageEnd{}
	case *TextMessageChunk:
		return &TextMessageChunk{}
	case *ToolCallStart:
		return &ToolCallStart{}
	case *ToolCallArgs:
		return &ToolCallArgs{}
	case *ToolCallEnd:
		return &ToolCallEnd{}
	case *ToolCallChunk:
		return &ToolCallChunk{}
	case *ToolCallResult:
		return &ToolCallResult{}
	case *StateSnapshot:
		return &StateSnapshot{}
	case *StateDelta:
		return &StateDelta{}
	case *MessagesSnapshot:
		return &MessagesSnapshot{}
	case *ActivitySnapshot:
		return &ActivitySnapshot{}
	case *ActivityDelta:
		return &ActivityDelta{}
	case *Raw:
		return &Raw{}
	case *Custom:
		return &Custom{}
	case *ReasoningStart:
		return &ReasoningStart{}
	case *ReasoningMessageStart:
		return &ReasoningMessageStart{}
	case *ReasoningMessageContent:
		return &ReasoningMessageContent{}
	case *ReasoningMessageEnd:
		return &ReasoningMessageEnd{}
	case *ReasoningMessageChunk:
		return &ReasoningMessageChunk{}
	case *ReasoningEnd:
		return &ReasoningEnd{}
	case *ReasoningEncryptedValue:
		return &ReasoningEncryptedValue{}
	case *SubagentStarted:
		return &SubagentStarted{}
	case *SubagentFinished:
		return &SubagentFinished{}
	case *SubagentError:
		return &SubagentError{}
	case *ThinkingStart:
		return &ThinkingStart{}
	case *ThinkingEnd:
		return &ThinkingEnd{}
	case *ThinkingTextMessageStart:
		return &ThinkingTextMessageStart{}
	case *ThinkingTextMessageContent:
		return &ThinkingTextMessageContent{}
	case *ThinkingTextMessageEnd:
		return &ThinkingTextMessageEnd{}
	}
	panic("unknown event type")
}

func TestEncodeShape(t *testing.T) {
	tests := []struct {
		name string
		e    Event
		want string
	}{
		{"absent fields are absent", &TextMessageStart{MessageID: "m"}, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`},
		{"tag after type", &TextMessageContent{Attribution: By("s"), MessageID: "m", Delta: ""}, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s","messageId":"m","delta":""}`},
		{"nil snapshot is null", &StateSnapshot{}, `{"type":"STATE_SNAPSHOT","snapshot":null}`},
		{"nil raw event is null", &Raw{}, `{"type":"RAW","event":null}`},
		{"nil custom value is null", &Custom{Name: "n"}, `{"type":"CUSTOM","name":"n","value":null}`},
		{"optional null raw is absent", &RunFinished{ThreadID: "t", RunID: "r", Result: raw(`null`), Base: Base{RawEvent: raw(` null `)}},
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
		{"raw values are compacted", &StateDelta{Delta: raw("[ {\"op\" : \"remove\", \"path\" : \"/a\"} ]")},
			`{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a"}]}`},
		{"empty optional list is []", &SubagentFinished{ID: "s", Outcome: &SubagentOutcome{Type: "suspended", InterruptIDs: []string{}}},
			`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"suspended","interruptIds":[]}}`},
		{"nil optional list is absent", &SubagentFinished{ID: "s", Outcome: &SubagentOutcome{Type: "success"}},
			`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"success"}}`},
		{"nil snapshot messages are []", &MessagesSnapshot{}, `{"type":"MESSAGES_SNAPSHOT","messages":[]}`},
		{"strings escaped as JSON, not HTML", &TextMessageContent{MessageID: "<m>", Delta: "a&b\u2029\x7f"},
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"<m>","delta":"a&b\u2029` + "\x7f" + `"}`},
		// G19: a lone surrogate is written as its escape, a byte that is not
		// UTF-8 as it is: nothing becomes U+FFFD.
		{"strings kept exact", &TextMessageContent{MessageID: "k\xed\xa0\x80", Delta: "\xff"},
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"k\ud800","delta":"` + "\xff" + `"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Encode(tc.e)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(b))
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		e    Event
		ptr  string
	}{
		{"invalid raw", &StateSnapshot{Snapshot: raw(`{`)}, "/snapshot"},
		{"delta not an array", &StateDelta{Delta: raw(`{}`)}, "/delta"},
		{"nil delta", &StateDelta{}, "/delta"},
		{"patch not an array", &ActivityDelta{Patch: raw(`"x"`)}, "/patch"},
		{"content not an object", &ActivitySnapshot{Content: raw(`[]`)}, "/content"},
		{"metadata not an object", &StepStarted{Base: Base{Metadata: raw(`[1]`)}}, "/metadata"},
		{"nested metadata", &MessagesSnapshot{Messages: []Message{{ID: "a", Role: RoleUser, Content: raw(`"x"`)}, {ID: "b", Role: RoleUser, Content: raw(`"x"`), Metadata: raw(`1`)}}},
			"/messages/1/metadata"},
		{"input state", &RunStarted{Input: &RunAgentInput{State: raw(`{]`)}}, "/input/state"},
		{"outcome interrupt metadata", &RunFinished{Outcome: &RunFinishedOutcome{Type: OutcomeInterrupt, Interrupts: []Interrupt{{Metadata: raw(`true`)}}}},
			"/outcome/interrupts/0/metadata"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Encode(tc.e)
			var ee *EncodeError
			require.ErrorAs(t, err, &ee, "got %s", b)
			assert.Equal(t, tc.ptr, ee.Pointer)
			assert.Equal(t, tc.e.EventType(), ee.Type)
			assert.Contains(t, ee.Error(), tc.ptr)
			_, err = json.Marshal(tc.e)
			assert.Error(t, err, "json.Marshal reports it too")
		})
	}
	_, err := Encode(nil)
	var ee *EncodeError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, "encode event: nil event", ee.Error())
}

func TestUnmarshalWrongType(t *testing.T) {
	var e TextMessageEnd
	err := json.Unmarshal([]byte(`{"type":"TEXT_MESSAGE_START","messageId":"m"}`), &e)
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "/type", de.Pointer)
	assert.Equal(t, int64(8), de.Offset)

	err = json.Unmarshal([]byte(`{"type":"TEXT_MESSAGE_END","messageId":null}`), &e)
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "/messageId", de.Pointer)

	require.NoError(t, json.Unmarshal([]byte(`{"type":"TEXT_MESSAGE_END","messageId":"m","subagentRunId":"s"}`), &e))
	assert.Equal(t, TextMessageEnd{Attribution: By("s"), MessageID: "m"}, e)
}
