package event

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/wire"
)

// TestFastPathTakesCommonShapes checks which inputs the fast path decodes
// itself, so that FuzzFastPath compares something; what it declines goes to
// the reference decoder, which FuzzFastPath checks as well.
func TestFastPathTakesCommonShapes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		take bool
	}{
		{"plain", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}`, true},
		{"tagged, timestamp, spaces", `{"type":"TOOL_CALL_ARGS", "subagentRunId" : "s", "toolCallId":"c", "delta":"{\"q\":1}", "timestamp":-17 }` + "\n", true},
		{"reasoning, escapes, unicode", `{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"é\u00e9\n\\"}`, true},
		{"unknown members (reported by the reference path, G20)", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","x":1.5e3,"y":{"z":[null,true]}}`, false},
		{"deprecated type (warned about)", `{"type":"THINKING_END"}`, false},
		{"messages snapshot, empty", `{"type":"MESSAGES_SNAPSHOT","messages":[]}`, true},
		{"messages snapshot, every role", `{"type":"MESSAGES_SNAPSHOT","timestamp":3,"messages":[{"id":"d","role":"developer","content":"be brief"},{"id":"s","role":"system","content":"x","name":"n","encryptedValue":"e"},{"id":"u","role":"user","content":"hi \u00e9\n","name":"me","subagentRunId":"s1","metadata":{"k":[1]}},{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"q\":1}"},"encryptedValue":"v","metadata":{}}]},{"id":"a2","role":"assistant","content":"ok","toolCalls":[]},{"id":"t","role":"tool","content":"r","toolCallId":"c","error":"e"},{"id":"p","role":"activity","activityType":"PLAN","content":{"x":1}},{"id":"r","role":"reasoning","content":"hm"}]}`, true},
		{"messages snapshot, unknown role (removed with a warning)", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"x","role":"robot","content":"c"}]}`, false},
		{"messages snapshot, text parts (rebuilt)", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[ {"text":"t\u00e9<>","type":"text","id":"p","metadata":{ "a" : [1, 2] }} , {"type":"text","text":""}]},{"id":"t","role":"tool","toolCallId":"c","content":[]}]}`, true},
		{"messages snapshot, media part", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"image","source":{"type":"url","value":"u"}}]}]}`, false},
		{"messages snapshot, part of unknown type", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"binary","text":"t"}]}]}`, false},
		{"messages snapshot, parts on an assistant", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","content":[]}]}`, false},
		{"messages snapshot, member the role does not have", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"c","toolCallId":"t"}]}`, false},
		{"messages snapshot, unknown member of a message", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"c","x":1}]}`, false},
		{"messages snapshot, null name", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"c","name":null}]}`, false},
		{"messages snapshot, tool call of another type", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"other","function":{"name":"f","arguments":""}}]}]}`, false},
		{"messages snapshot, function without arguments", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f"}}]}]}`, false},
		{"messages snapshot, tag (dropped with a warning)", `{"type":"MESSAGES_SNAPSHOT","messages":[],"subagentRunId":"s"}`, false},
		{"run started with input", `{"type":"RUN_STARTED","threadId":"t","runId":"r2","input":{"threadId":"t","runId":"r2","parentRunId":"r1","protocolVersion":"1","state":{"a":1},"messages":[{"id":"u","role":"user","content":"hi"},{"id":"a","role":"assistant","content":"yo"}],"tools":[{"name":"f","description":"d","parameters":{"type":"object"},"metadata":{}}],"context":[{"description":"d","value":"v"}],"forwardedProps":[1]}}`, true},
		{"run started with input, empty tools and context", `{"type":"RUN_STARTED","threadId":"t","runId":"r","timestamp":1,"input":{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[]}}`, true},
		{"run started with input, empty resume", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[]}}`, true},
		{"run started with input, resume", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"resolved","payload":{"ok":true},"metadata":{}},{"status":"cancelled","interruptId":"j"}]}}`, true},
		{"run started with input, resume of another status", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"done"}]}}`, false},
		{"run started with input, resume with a null payload", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"resolved","payload":null}]}}`, false},
		{"run started with input, null state (legacy)", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"state":null}}`, false},
		{"run started with input, no messages", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r"}}`, false},
		{"run started with input, surrogate in a message", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"\ud83d\ude00","role":"user","content":"c"}]}}`, false},
		{"run started with null input", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":null}`, false},
		{"message start", `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant","subagentRunId":"s","name":"n"}`, true},
		{"message start, role outside the enum", `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}`, false},
		{"message start, null name", `{"type":"TEXT_MESSAGE_START","messageId":"m","name":null}`, false},
		{"message end", `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":12}`, true},
		{"message chunk, nothing given", `{"type":"TEXT_MESSAGE_CHUNK"}`, true},
		{"tool call start", `{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"t","parentMessageId":"m"}`, true},
		{"tool call start, legacy null (warned about)", `{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"t","parentMessageId":null}`, false},
		{"tool call result, string content", `{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"c","content":"a\n\u00e9","role":"tool"}`, true},
		{"tool call result, content parts (rebuilt)", `{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"c","content":[]}`, false},
		{"reasoning message start", `{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}`, true},
		{"reasoning message start, no role", `{"type":"REASONING_MESSAGE_START","messageId":"r"}`, false},
		{"state snapshot null", `{"type":"STATE_SNAPSHOT","snapshot":null}`, true},
		{"activity snapshot", `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"P","content":{"k":[1]},"replace":false}`, true},
		{"activity snapshot, content not an object", `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"P","content":[]}`, false},
		{"subagent started", `{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n","parentToolCallId":"c"}`, true},
		{"subagent finished, outcome (not flat)", `{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"success"}}`, false},
		{"run started", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, true},
		{"run started, tag (dropped with a warning)", `{"type":"RUN_STARTED","threadId":"t","runId":"r","subagentRunId":"s"}`, false},
		{"run finished, null result (legacy)", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":null}`, false},
		{"type not first", `{"messageId":"m","type":"TEXT_MESSAGE_CONTENT","delta":"d"}`, false},
		{"surrogate escape", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\ude00"}`, false},
		{"invalid UTF-8", "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\xff\"}", false},
		{"metadata", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","metadata":{}}`, false},
		{"duplicate member", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","delta":"e"}`, false},
		{"escaped member name", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delt\u0061":"d"}`, false},
		{"null tag", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","subagentRunId":null}`, false},
		{"exponent timestamp", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","timestamp":1e3}`, false},
		{"missing delta", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}`, false},
		{"state delta", `{"type":"STATE_DELTA","subagentRunId":"s","delta":[ {"op":"add","path":"/a","value":[1,{"b":null}]} ],"timestamp":5}`, true},
		{"state delta not an array", `{"type":"STATE_DELTA","delta":{"op":"add"}}`, false},
		{"state delta invalid inside", `{"type":"STATE_DELTA","delta":[{"op":"add",}]}`, false},
		{"trailing bytes", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"}x`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			fast, ok := decodeFast(data)
			assert.Equal(t, tc.take, ok)
			for i := range data {
				data[i] = '#' // the caller may reuse its buffer: the event must not alias it
			}
			ref, err := decodeReference([]byte(tc.in))
			if ok {
				require.NoError(t, err)
				assert.Equal(t, ref, fast)
			}
		})
	}
}

// TestFastPathAllocations checks the budget of at most 2 allocations per
// flat event without a raw value, tagged and timestamped included: the event
// and one string holding its strings.
func TestFastPathAllocations(t *testing.T) {
	for _, in := range []string{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m000002","delta":"rray value memory "}`,
		`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"sa000001","messageId":"m000001","delta":"sis \"within\" token ","timestamp":1700000000000}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m-1","role":"assistant","subagentRunId":"sa-1","name":"n","timestamp":1}`,
		`{"type":"TOOL_CALL_START","toolCallId":"tc-9","toolCallName":"lookup","parentMessageId":"m-9","subagentRunId":"sa-1"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"sa-1","name":"assistant","description":"d","parentToolCallId":"c"}`,
	} {
		data := []byte(in)
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := Decode(data); err != nil {
				t.Fatal(err)
			}
		})
		assert.LessOrEqual(t, allocs, 2.0, "allocations for %s", in)
	}
}

// TestProtoFastPathTakesCommonShapes checks that the protobuf fast path
// decodes the flat events of a long thread itself, exactly as the general
// path does, in at most three allocations (the event, its strings, and a
// tool result's content); FuzzDecodeProto checks both paths on every input.
func TestProtoFastPathTakesCommonShapes(t *testing.T) {
	for _, line := range []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","parentRunId":"p","protocolVersion":"1.0"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","timestamp":3}`,
		`{"type":"RUN_ERROR","message":"m","code":"c"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"sa-1","name":"assistant","parentToolCallId":"c"}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"sa-1"}`,
		`{"type":"SUBAGENT_ERROR","subagentRunId":"sa-1","message":"m"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m-1","role":"assistant","subagentRunId":"sa-1"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"the bus fleet"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m-1"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m-1","role":"user","delta":"d"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"tc-9","toolCallName":"lookup","parentMessageId":"m-9","subagentRunId":"sa-1"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"tc-9","delta":"{\"q\":\"9\"}"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"tc-9"}`,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"tc-9","delta":"{"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"r-9","toolCallId":"tc-9","content":"result \"9\"\u2028","subagentRunId":"sa-1","role":"tool"}`,
		`{"type":"STEP_STARTED","stepName":"s"}`,
		`{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}`,
		`{"type":"REASONING_MESSAGE_CHUNK","messageId":"r"}`,
		`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"v"}`,
	} {
		e, err := Decode([]byte(line))
		require.NoError(t, err, line)
		msg, err := AppendProto(nil, e)
		require.NoError(t, err, line)
		fast, ok := decodeProtoFast(msg)
		require.True(t, ok, "the fast path takes %s", line)
		general, err := decodeProtoGeneral(msg)
		require.NoError(t, err, line)
		assert.Equal(t, general, fast, line)
		allocs := testing.AllocsPerRun(20, func() { _, _ = DecodeProto(msg) })
		assert.LessOrEqual(t, allocs, 3.0, "allocations for %s", line)
	}
}

// TestFastTypes checks the fast path's table: every spec under the type it
// reads, within wire.MaxMembers, and every type either on the fast path or
// left to the reference for a reason named here; a new type must be put in
// one or the other.
func TestFastTypes(t *testing.T) {
	notFlat := map[Type]string{
		TypeMessagesSnapshot:           "its messages are objects the reference rebuilds",
		TypeThinkingStart:              "deprecated: always decoded with a warning",
		TypeThinkingEnd:                "deprecated: always decoded with a warning",
		TypeThinkingTextMessageStart:   "deprecated: always decoded with a warning",
		TypeThinkingTextMessageContent: "deprecated: always decoded with a warning",
		TypeThinkingTextMessageEnd:     "deprecated: always decoded with a warning",
	}
	for _, typ := range Types() {
		ft, fast := fastTypes[string(typ)]
		if _, slow := notFlat[typ]; fast == slow {
			t.Errorf("%s: on the fast path %v, left to the reference %v: want exactly one", typ, fast, slow)
		}
		if fast {
			assert.Equal(t, string(typ), ft.spec.Type, "the spec under %s", typ)
			assert.LessOrEqual(t, len(ft.spec.Members), wire.MaxMembers, typ)
			for k, m := range ft.spec.Members {
				if m.Name == "subagentRunId" && !typ.Lifecycle() {
					assert.Zero(t, k, "%s: the tag is member 0, where attributed reads it", typ)
				}
			}
		}
	}
	assert.Len(t, fastTypes, len(Types())-len(notFlat), "fastTypes holds known types only")
}

// TestHistoryFastPathAllocations checks the budget of the history fast
// path: one allocation per message for its content, the short strings of
// many messages in one chunk, the pointed-to optional strings of 32
// messages in one more, and a few for the event and the growth of its
// message slice.
func TestHistoryFastPathAllocations(t *testing.T) {
	const n = 256
	var msgs strings.Builder
	for i := range n {
		if i > 0 {
			msgs.WriteByte(',')
		}
		fmt.Fprintf(&msgs, `{"id":"m-%d","role":"assistant","content":"message %d, \"quoted\"","subagentRunId":"sa-%d"}`, i, i, i%4)
	}
	for _, in := range []string{
		`{"type":"MESSAGES_SNAPSHOT","messages":[` + msgs.String() + `]}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[` + msgs.String() + `]}}`,
	} {
		data := []byte(in)
		if _, ok := decodeFast(data); !ok {
			t.Fatalf("the fast path declines %.80s…", in)
		}
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := Decode(data); err != nil {
				t.Fatal(err)
			}
		})
		assert.LessOrEqual(t, allocs, float64(n+n/slotChunk+24), "allocations for %.40s…", in)
	}
}
