package event

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeCase is one input and what Decode must make of it: an event (with
// warnings "RULE POINTER"), or a DecodeError at a pointer with a rule, whose
// offset is where the substring at first occurs in the input (when at is set).
type decodeCase struct {
	name    string
	in      string
	want    Event
	warn    []string
	ptr     string
	rule    string
	at      string
	unknown bool // an UnknownTypeError
}

func runDecodeCases(t *testing.T, cases []decodeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := Decode([]byte(tc.in))
			switch {
			case tc.unknown:
				var ut *UnknownTypeError
				require.ErrorAs(t, err, &ut)
				assert.Nil(t, e)
			case tc.want == nil:
				var de *DecodeError
				require.ErrorAs(t, err, &de, "%s must not decode", tc.in)
				assert.Nil(t, e)
				assert.Equal(t, tc.ptr, de.Pointer, "pointer of %v", de)
				assert.Equal(t, tc.rule, de.Rule, "rule of %v", de)
				if tc.at != "" {
					want := strings.Index(tc.in, tc.at)
					require.GreaterOrEqual(t, want, 0, "the case's at %q is in its input", tc.at)
					assert.Equal(t, int64(want), de.Offset, "offset of %v", de)
				}
				assert.NotEmpty(t, de.Reason)
			default:
				require.NoError(t, err, tc.in)
				assert.Equal(t, normalize(tc.want), normalize(e))
				var warns []string
				for _, w := range e.Common().Warnings() {
					assert.Equal(t, e.EventType(), w.Type)
					assert.NotEmpty(t, w.Message)
					warns = append(warns, w.Rule+" "+w.Pointer)
				}
				assert.Equal(t, tc.warn, warns, "warnings")
				assertRoundTrip(t, e)
			}
		})
	}
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// TestDecodeEmpty: empty input is no event (G18), not a schema error.
func TestDecodeEmpty(t *testing.T) {
	t.Parallel()
	e, err := Decode(nil)
	assert.Nil(t, e)
	require.ErrorIs(t, err, ErrEmpty)
	var de *DecodeError
	assert.False(t, errors.As(err, &de), "an empty frame is not a schema error")
}

func TestDecodeEnvelope(t *testing.T) {
	runDecodeCases(t, []decodeCase{
		{name: "invalid JSON", in: `{"type":"RUN_ERROR","message":`, ptr: "", rule: RuleSchema},
		{name: "trailing garbage", in: `{"type":"RUN_ERROR","message":"x"} @`, ptr: "", rule: RuleSchema, at: "@"},
		{name: "bad byte", in: `{"type":"RUN_ERROR","message":"x",}`, ptr: "", rule: RuleSchema, at: "}"},
		{name: "blank input", in: ` `, ptr: "", rule: RuleSchema},
		{name: "array", in: ` [1]`, ptr: "", rule: RuleSchema, at: "["},
		{name: "string", in: `"RUN_ERROR"`, ptr: "", rule: RuleSchema, at: `"`},
		{name: "null literal", in: `null`, ptr: "", rule: RuleSchema, at: "null"},
		{name: "missing type", in: `{"message":"x"}`, ptr: "/type", rule: RuleSchema, at: "{"},
		{name: "non-string type", in: `{"type":5}`, ptr: "/type", rule: RuleSchema, at: "5"},
		{name: "null type", in: `{"type":null}`, ptr: "/type", rule: RuleSchema, at: "null"},
		{name: "empty type", in: `{"type":""}`, ptr: "/type", rule: RuleSchema, at: `""`},
		{name: "unknown type", in: `{"type":"TEXT_MESSAGE_SPARKLE","messageId":"m","sparkle":true}`, unknown: true},
		{name: "types are case-sensitive", in: `{"type":"text_message_end","messageId":"m"}`, unknown: true},
		{name: "escaped type", in: `{"type":"RUN_\u0045RROR","message":"x"}`, want: &RunError{Message: "x"}},
		{name: "type not first", in: ` { "message" : "x" , "type" : "RUN_ERROR" } `, want: &RunError{Message: "x"}},
		{name: "duplicate member: the last wins",
			in:   `{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x","messageId":"b"}`,
			want: &TextMessageContent{MessageID: "b", Delta: "x"}},
		{name: "member names are case-sensitive",
			in:   `{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x","MessageId":"b"}`,
			want: &TextMessageContent{MessageID: "a", Delta: "x"}, warn: []string{"E2 /MessageId"}},
		{name: "unknown fields are left out with a warning naming them (G20)",
			in:   `{"type":"STEP_STARTED","stepName":"s","extra":{"deep":[1,{"x":null}]},"n":1e5}`,
			want: &StepStarted{StepName: "s"}, warn: []string{"E2 /extra", "E2 /n"}},
		{name: "unknown members at every depth (G20)",
			in: `{"type":"RUN_FINISHED","threadId":"t","runId":"r","finishReason":"stop",` +
				`"outcome":{"type":"interrupt","why":1,"interrupts":[{"id":"i","reason":"r","x":2}]},"usage":[{"model":"m","cost":3}]}`,
			want: &RunFinished{ThreadID: "t", RunID: "r", Outcome: &RunFinishedOutcome{Type: OutcomeInterrupt,
				Interrupts: []Interrupt{{ID: "i", Reason: "r"}}}, Usage: []TokenUsage{{Model: Ptr("m")}}},
			warn: []string{"E2 /finishReason", "E2 /outcome/why", "E2 /outcome/interrupts/0/x", "E2 /usage/0/cost"}},
		{name: "unknown members in the input (G20)",
			in: `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[` +
				`{"id":"u","role":"user","content":[{"type":"text","text":"a","b":1}],"c":2}],"resume":[{"interruptId":"i","status":"resolved","d":3}],"e":4}}`,
			want: &RunStarted{ThreadID: "t", RunID: "r", Input: &RunAgentInput{ThreadID: "t", RunID: "r",
				Messages: []Message{{ID: "u", Role: RoleUser, Content: raw(`[{"type":"text","text":"a"}]`)}},
				Resume:   []ResumeEntry{{InterruptID: "i", Status: ResumeResolved}}}},
			warn: []string{"E2 /input/e", "E2 /input/messages/0/c", "E2 /input/messages/0/content/0/b", "E2 /input/resume/0/d"}},
		{name: "unknown member of a subagent outcome (G20)",
			in:   `{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"success","reason":"done"}}`,
			want: &SubagentFinished{ID: "s", Outcome: &SubagentOutcome{Type: SubagentSuccess}},
			warn: []string{"E2 /outcome/reason"}},
		{name: "base fields", in: `{"type":"STEP_FINISHED","stepName":"s","timestamp":1700000000000,"rawEvent":{"a":[1]},"metadata":{"k":null}}`,
			want: &StepFinished{Base: Base{Timestamp: Ptr(int64(1700000000000)), RawEvent: raw(`{"a":[1]}`), Metadata: raw(`{"k":null}`)}, StepName: "s"}},
		{name: "empty id is a value", in: `{"type":"TEXT_MESSAGE_END","messageId":"","subagentRunId":""}`,
			want: &TextMessageEnd{Attribution: By(""), MessageID: ""}},
	})
}

func TestDecodeRequiredAndTypes(t *testing.T) {
	runDecodeCases(t, []decodeCase{
		{name: "missing required", in: `{"type":"TEXT_MESSAGE_CONTENT","delta":"x"}`, ptr: "/messageId", rule: RuleSchema, at: "{"},
		{name: "missing delta", in: `{"type":"TOOL_CALL_ARGS","toolCallId":"t"}`, ptr: "/delta", rule: RuleSchema, at: "{"},
		{name: "wrong type", in: `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":5}`, ptr: "/delta", rule: RuleSchema, at: "5"},
		{name: "null required", in: `{"type":"STEP_STARTED","stepName":null}`, ptr: "/stepName", rule: RuleSchema, at: "null"},
		{name: "null optional string", in: `{"type":"TEXT_MESSAGE_START","messageId":"m","name":null}`, ptr: "/name", rule: RuleSchema, at: "null"},
		{name: "null optional role", in: `{"type":"TEXT_MESSAGE_START","messageId":"m","role":null}`, ptr: "/role", rule: RuleSchema, at: "null"},
		{name: "null metadata", in: `{"type":"RUN_ERROR","message":"x","metadata":null}`, ptr: "/metadata", rule: RuleSchema, at: "null"},
		{name: "array metadata", in: `{"type":"RUN_ERROR","message":"x","metadata":[]}`, ptr: "/metadata", rule: RuleSchema, at: "[]"},
		{name: "null code", in: `{"type":"RUN_ERROR","message":"x","code":null}`, ptr: "/code", rule: RuleSchema, at: "null"},
		{name: "null replace", in: `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"P","content":{},"replace":null}`, ptr: "/replace", rule: RuleSchema, at: "null"},
		{name: "string replace", in: `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"P","content":{},"replace":"no"}`, ptr: "/replace", rule: RuleSchema, at: `"no"`},
		{name: "activity content not an object", in: `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"P","content":[]}`, ptr: "/content", rule: RuleSchema, at: "[]"},
		{name: "state delta not an array", in: `{"type":"STATE_DELTA","delta":{"op":"add"}}`, ptr: "/delta", rule: RuleSchema, at: `{"op"`},
		{name: "state delta null", in: `{"type":"STATE_DELTA","delta":null}`, ptr: "/delta", rule: RuleSchema, at: "null"},
		{name: "state delta empty", in: `{"type":"STATE_DELTA","delta":[]}`, want: &StateDelta{Delta: raw(`[]`)}},
		{name: "activity patch not an array", in: `{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"P","patch":"x"}`, ptr: "/patch", rule: RuleSchema, at: `"x"`},
		{name: "snapshot null is a value", in: `{"type":"STATE_SNAPSHOT","snapshot":null}`, want: &StateSnapshot{Snapshot: raw(`null`)}},
		{name: "snapshot missing", in: `{"type":"STATE_SNAPSHOT"}`, ptr: "/snapshot", rule: RuleSchema},
		{name: "raw event null is a value", in: `{"type":"RAW","event":null,"source":"x"}`, want: &Raw{Event: raw(`null`), Source: Ptr("x")}},
		{name: "custom value null is a value", in: `{"type":"CUSTOM","name":"ping","value":null}`, want: &Custom{Name: "ping", Value: raw(`null`)}},
		{name: "custom value missing", in: `{"type":"CUSTOM","name":"ping"}`, ptr: "/value", rule: RuleSchema},
		{name: "tool result content object", in: `{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"c","content":{}}`, ptr: "/content", rule: RuleSchema, at: "{}"},
		{name: "escaped strings", in: `{"type":"TEXT_MESSAGE_START","messageId":"m\u00e9\n\"","name":"\ud83d\ude00"}`,
			want: &TextMessageStart{MessageID: "mé\n\"", Name: Ptr("😀")}},
	})
}

// TestDecodePatchOperations: a malformed JSON Patch operation is a schema
// error (G8), in STATE_DELTA.delta and ACTIVITY_DELTA.patch alike, on the
// fast path and the reference path; an unknown op is not.
func TestDecodePatchOperations(t *testing.T) {
	var cases []decodeCase
	for _, f := range []struct{ typ, member, extra string }{
		{"STATE_DELTA", "delta", ""},
		{"ACTIVITY_DELTA", "patch", `"messageId":"a","activityType":"P",`},
	} {
		in := func(ops string) string {
			return `{"type":"` + f.typ + `",` + f.extra + `"` + f.member + `":[` + ops + `]}`
		}
		bad := func(name, ops, ptr, at string) decodeCase {
			return decodeCase{name: f.typ + " " + name, in: in(ops), ptr: "/" + f.member + ptr, rule: RuleSchema, at: at}
		}
		cases = append(cases,
			bad("operation not an object", `{"op":"add","path":"/a","value":1},"nope"`, "/1", `"nope"`),
			bad("operation null", `null`, "/0", `null`),
			bad("path missing", `{"op":"remove"}`, "/0/path", ""),
			bad("path null", `{"op":"replace","path":null,"value":1}`, "/0/path", `null`),
			bad("path not a string", `{"op":"add","path":3,"value":1}`, "/0/path", `3,`),
			bad("path not a pointer", `{"op":"remove","path":"nope"}`, "/0/path", `"nope"`),
			bad("path with a bad escape", `{"op":"remove","path":"/a~2b"}`, "/0/path", `"/a~2b"`),
			bad("path ending in ~", `{"op":"remove","path":"/a~"}`, "/0/path", `"/a~"`),
			bad("from missing on move", `{"op":"move","path":"/a"}`, "/0/from", ""),
			bad("from not a pointer on copy", `{"op":"copy","path":"/a","from":"b"}`, "/0/from", `"b"`),
			bad("value missing on add", `{"op":"add","path":"/a"}`, "/0/value", ""),
			bad("value missing on test", `{"op":"test","path":""}`, "/0/value", ""),
			bad("value missing on replace, escaped path", `{"op":"replace","path":"/\u0061"}`, "/0/value", ""),
			decodeCase{name: f.typ + " unknown op stays (G2)", in: in(`{"op":"frob","path":7},{"path":"x"}`)},
			decodeCase{name: f.typ + " null value and extra members are fine", in: in(`{"op":"add","path":"/a~0~1","value":null,"x":1},{"op":"move","from":"","path":"/b"}`)},
		)
	}
	for i := range cases {
		if cases[i].ptr == "" {
			e, err := Decode([]byte(cases[i].in))
			require.NoError(t, err, cases[i].in)
			cases[i].want = e
		}
	}
	runDecodeCases(t, cases)
}

func TestDecodeTimestamps(t *testing.T) {
	ev := func(ts int64) Event { return &RunError{Base: Base{Timestamp: &ts}, Message: "x"} }
	in := func(ts string) string { return `{"type":"RUN_ERROR","message":"x","timestamp":` + ts + `}` }
	runDecodeCases(t, []decodeCase{
		{name: "integer", in: in("1700000000000"), want: ev(1700000000000)},
		{name: "negative", in: in("-5"), want: ev(-5)},
		{name: "largest safe", in: in("9007199254740991"), want: ev(9007199254740991)},
		{name: "smallest safe", in: in("-9007199254740991"), want: ev(-9007199254740991)},
		{name: "integral exponent", in: in("1e3"), want: ev(1000)},
		{name: "integral fraction", in: in("2.0"), want: ev(2)},
		{name: "fraction", in: in("1.5"), ptr: "/timestamp", rule: RuleSchema, at: "1.5"},
		{name: "beyond safe", in: in("9007199254740992"), ptr: "/timestamp", rule: RuleSchema, at: "9007"},
		{name: "below safe", in: in("-9007199254740992"), ptr: "/timestamp", rule: RuleSchema, at: "-9007"},
		{name: "huge", in: in("1e400"), ptr: "/timestamp", rule: RuleSchema, at: "1e400"},
		{name: "string", in: in(`"1700000000000"`), ptr: "/timestamp", rule: RuleSchema, at: `"1700`},
		{name: "null", in: in("null"), ptr: "/timestamp", rule: RuleSchema, at: "null"},
		{name: "fast path fraction", in: `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","timestamp":1.5}`, ptr: "/timestamp", rule: RuleSchema, at: "1.5"},
	})
}

func TestDecodeLegacyNulls(t *testing.T) {
	runDecodeCases(t, []decodeCase{
		{name: "rawEvent", in: `{"type":"STEP_STARTED","stepName":"s","rawEvent":null}`,
			want: &StepStarted{StepName: "s"}, warn: []string{"E4 /rawEvent"}},
		{name: "RUN_FINISHED result", in: `{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":null}`,
			want: &RunFinished{ThreadID: "t", RunID: "r"}, warn: []string{"E4 /result"}},
		{name: "RUN_FINISHED outcome", in: `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":null}`,
			want: &RunFinished{ThreadID: "t", RunID: "r"}, warn: []string{"E4 /outcome"}},
		{name: "SUBAGENT_FINISHED result", in: `{"type":"SUBAGENT_FINISHED","subagentRunId":"s","result":null}`,
			want: &SubagentFinished{ID: "s"}, warn: []string{"E4 /result"}},
		{name: "TOOL_CALL_START parentMessageId", in: `{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"n","parentMessageId":null}`,
			want: &ToolCallStart{ToolCallID: "c", ToolCallName: "n"}, warn: []string{"E4 /parentMessageId"}},
		{name: "TOOL_CALL_CHUNK parentMessageId", in: `{"type":"TOOL_CALL_CHUNK","toolCallId":"c","parentMessageId":null}`,
			want: &ToolCallChunk{ToolCallID: Ptr("c")}, warn: []string{"E4 /parentMessageId"}},
		{name: "media part metadata",
			in:   `{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"c","content":[{"type":"image","source":{"type":"url","value":"u"},"metadata":null}]}`,
			want: &ToolCallResult{MessageID: "t", ToolCallID: "c", Content: raw(`[{"type":"image","source":{"type":"url","value":"u"}}]`)},
			warn: []string{"E4 /content/0/metadata"}},
		{name: "tool result media part with an unknown source type removed (G22)",
			in: `{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"c","content":[{"type":"image","source":{"type":"ftp","value":"u"}},` +
				`{"type":"image","source":{"value":"u"}},{"type":"image","source":{"type":1}},{"type":"text","text":"ok"}]}`,
			want: &ToolCallResult{MessageID: "t", ToolCallID: "c", Content: raw(`[{"type":"text","text":"ok"}]`)},
			warn: []string{"E2 /content/0", "E2 /content/1", "E2 /content/2"}},
		{name: "tool result media part with a known source lacking a member (G22)",
			in:  `{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"c","content":[{"type":"image","source":{"type":"data","value":"AA=="}}]}`,
			ptr: "/content/0/source/mimeType", rule: RuleSchema},
		{name: "tool result media part without a source",
			in:  `{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"c","content":[{"type":"image"}]}`,
			ptr: "/content/0/source", rule: RuleSchema},
		{name: "text part metadata is not legacy",
			in:  `{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"c","content":[{"type":"text","text":"x","metadata":null}]}`,
			ptr: "/content/0/metadata", rule: RuleSchema, at: "null"},
		{name: "input optionals",
			in: `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"state":null,"forwardedProps":null,` +
				`"tools":[{"name":"n","description":"d","parameters":null}],"resume":[{"interruptId":"i","status":"resolved","payload":null}]}}`,
			want: &RunStarted{ThreadID: "t", RunID: "r", Input: &RunAgentInput{ThreadID: "t", RunID: "r", Messages: []Message{},
				Tools: []Tool{{Name: "n", Description: "d"}}, Resume: []ResumeEntry{{InterruptID: "i", Status: ResumeResolved}}}},
			warn: []string{"E4 /input/state", "E4 /input/forwardedProps", "E4 /input/tools/0/parameters", "E4 /input/resume/0/payload"}},
		{name: "input parentRunId null is not legacy",
			in:  `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"parentRunId":null}}`,
			ptr: "/input/parentRunId", rule: RuleSchema, at: "null"},
		{name: "input null", in: `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":null}`, ptr: "/input", rule: RuleSchema, at: "null"},
	})
}

func TestDecodeTags(t *testing.T) {
	runDecodeCases(t, []decodeCase{
		{name: "tag", in: `{"type":"STATE_DELTA","subagentRunId":"s1","delta":[]}`, want: &StateDelta{Attribution: By("s1"), Delta: raw(`[]`)}},
		{name: "null tag on text", in: `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","subagentRunId":null}`, ptr: "/subagentRunId", rule: RuleNullTag, at: "null"},
		{name: "null tag on state", in: `{"type":"STATE_DELTA","subagentRunId":null,"delta":[]}`, ptr: "/subagentRunId", rule: RuleNullTag, at: "null"},
		{name: "null tag on step", in: `{"type":"STEP_STARTED","stepName":"s","subagentRunId":null}`, ptr: "/subagentRunId", rule: RuleNullTag, at: "null"},
		{name: "null tag on chunk", in: `{"type":"TOOL_CALL_CHUNK","subagentRunId":null}`, ptr: "/subagentRunId", rule: RuleNullTag, at: "null"},
		{name: "number tag", in: `{"type":"CUSTOM","name":"n","value":1,"subagentRunId":7}`, ptr: "/subagentRunId", rule: RuleSchema, at: "7"},
		{name: "null lifecycle id", in: `{"type":"SUBAGENT_STARTED","subagentRunId":null,"name":"n"}`, ptr: "/subagentRunId", rule: RuleNullTag, at: "null"},
		{name: "missing lifecycle id", in: `{"type":"SUBAGENT_FINISHED"}`, ptr: "/subagentRunId", rule: RuleLifecycleRequired, at: "{"},
		{name: "number lifecycle id", in: `{"type":"SUBAGENT_ERROR","subagentRunId":1,"message":"m"}`, ptr: "/subagentRunId", rule: RuleLifecycleRequired, at: "1"},
		{name: "missing lifecycle name", in: `{"type":"SUBAGENT_STARTED","subagentRunId":"s"}`, ptr: "/name", rule: RuleLifecycleRequired},
		{name: "missing lifecycle message", in: `{"type":"SUBAGENT_ERROR","subagentRunId":"s"}`, ptr: "/message", rule: RuleLifecycleRequired},
		{name: "null description", in: `{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n","description":null}`, ptr: "/description", rule: RuleLifecycleNull, at: "null"},
		{name: "null parent", in: `{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n","parentSubagentRunId":null}`, ptr: "/parentSubagentRunId", rule: RuleLifecycleNull, at: "null"},
		{name: "null parent tool call", in: `{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n","parentToolCallId":null}`, ptr: "/parentToolCallId", rule: RuleLifecycleNull, at: "null"},
		{name: "null lifecycle code", in: `{"type":"SUBAGENT_ERROR","subagentRunId":"s","message":"m","code":null}`, ptr: "/code", rule: RuleLifecycleNull, at: "null"},
		{name: "lifecycle with every field",
			in: `{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n","description":"d","parentSubagentRunId":"p","parentToolCallId":"c","parentMessageId":"m"}`,
			want: &SubagentStarted{ID: "s", Name: "n", Description: Ptr("d"), ParentSubagentRunID: Ptr("p"),
				ParentToolCallID: Ptr("c"), ParentMessageID: Ptr("m")}},
		{name: "tag on RUN_STARTED dropped", in: `{"type":"RUN_STARTED","threadId":"t","runId":"r","subagentRunId":"s"}`,
			want: &RunStarted{ThreadID: "t", RunID: "r"}, warn: []string{"G3 /subagentRunId"}},
		{name: "null tag on RUN_STARTED dropped too", in: `{"type":"RUN_STARTED","threadId":"t","runId":"r","subagentRunId":null}`,
			want: &RunStarted{ThreadID: "t", RunID: "r"}, warn: []string{"G3 /subagentRunId"}},
		{name: "tag on RUN_FINISHED dropped", in: `{"type":"RUN_FINISHED","threadId":"t","runId":"r","subagentRunId":"s"}`,
			want: &RunFinished{ThreadID: "t", RunID: "r"}, warn: []string{"G3 /subagentRunId"}},
		{name: "tag on RUN_ERROR dropped", in: `{"type":"RUN_ERROR","message":"m","subagentRunId":"s"}`,
			want: &RunError{Message: "m"}, warn: []string{"G3 /subagentRunId"}},
		{name: "tag on MESSAGES_SNAPSHOT dropped", in: `{"type":"MESSAGES_SNAPSHOT","messages":[],"subagentRunId":"s"}`,
			want: &MessagesSnapshot{Messages: []Message{}}, warn: []string{"G3 /subagentRunId"}},
		{name: "tag on THINKING_START kept for its translation (G22)", in: `{"type":"THINKING_START","subagentRunId":"s","title":"t"}`,
			want: &ThinkingStart{Attribution: By("s"), Title: Ptr("t")}, warn: []string{"deprecated "}},
		{name: "null tag on THINKING_TEXT_MESSAGE_CONTENT (G22)", in: `{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"d","subagentRunId":null}`,
			ptr: "/subagentRunId", rule: RuleNullTag, at: "null"},
		{name: "null tag on snapshot message",
			in:  `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"x","subagentRunId":null}]}`,
			ptr: "/messages/0/subagentRunId", rule: RuleNullTag, at: "null"},
		{name: "null tag on input message",
			in:  `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"x","subagentRunId":null}]}}`,
			ptr: "/input/messages/0/subagentRunId", rule: RuleNullTag, at: "null"},
		{name: "null tag on interrupt",
			in:  `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"r","subagentRunId":null}]}}`,
			ptr: "/outcome/interrupts/0/subagentRunId", rule: RuleNullTag, at: "null"},
		{name: "tag on a snapshot tool call is not its own",
			in: `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","subagentRunId":"s",` +
				`"toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"subagentRunId":"x"}]}]}`,
			want: &MessagesSnapshot{Messages: []Message{{ID: "a", Role: RoleAssistant, Subagent: Ptr("s"),
				ToolCalls: []ToolCall{{ID: "c", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}}}}},
			warn: []string{"E2 /messages/0/toolCalls/0/subagentRunId"}},
	})
}

func TestDecodeRoles(t *testing.T) {
	runDecodeCases(t, []decodeCase{
		{name: "text start without role", in: `{"type":"TEXT_MESSAGE_START","messageId":"m"}`, want: &TextMessageStart{MessageID: "m"}},
		{name: "text start user", in: `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"user"}`, want: &TextMessageStart{MessageID: "m", Role: Ptr(RoleUser)}},
		{name: "text start tool", in: `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}`, ptr: "/role", rule: RuleSchema, at: `"tool"`},
		{name: "text start reasoning", in: `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"reasoning"}`, ptr: "/role", rule: RuleSchema},
		{name: "text chunk tool", in: `{"type":"TEXT_MESSAGE_CHUNK","role":"tool"}`, ptr: "/role", rule: RuleSchema},
		{name: "tool result role tool", in: `{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"c","content":"42","role":"tool"}`,
			want: &ToolCallResult{MessageID: "t", ToolCallID: "c", Content: raw(`"42"`), Role: Ptr(RoleTool)}},
		{name: "tool result role assistant", in: `{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"c","content":"42","role":"assistant"}`, ptr: "/role", rule: RuleSchema},
		{name: "reasoning start role", in: `{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}`,
			want: &ReasoningMessageStart{MessageID: "r", Role: RoleReasoning}},
		{name: "reasoning start without role", in: `{"type":"REASONING_MESSAGE_START","messageId":"r"}`, ptr: "/role", rule: RuleSchema},
		{name: "reasoning start assistant", in: `{"type":"REASONING_MESSAGE_START","messageId":"r","role":"assistant"}`, ptr: "/role", rule: RuleSchema},
		{name: "encrypted subtype", in: `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"blob","entityId":"e","encryptedValue":"v"}`, ptr: "/subtype", rule: RuleSchema},
		{name: "encrypted tool call", in: `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"e","encryptedValue":"v"}`,
			want: &ReasoningEncryptedValue{Subtype: EncryptedToolCall, EntityID: "e", EncryptedValue: "v"}},
	})
}

func TestDecodeOutcomes(t *testing.T) {
	rf := func(outcome string) string {
		return `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":` + outcome + `}`
	}
	sf := func(outcome string) string {
		return `{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":` + outcome + `}`
	}
	run := func(o *RunFinishedOutcome) Event { return &RunFinished{ThreadID: "t", RunID: "r", Outcome: o} }
	sub := func(o *SubagentOutcome) Event { return &SubagentFinished{ID: "s", Outcome: o} }
	runDecodeCases(t, []decodeCase{
		{name: "run success", in: rf(`{"type":"success","pendingToolCallIds":["c1"]}`), want: run(&RunFinishedOutcome{Type: OutcomeSuccess, PendingToolCallIDs: []string{"c1"}})},
		{name: "run cancelled", in: rf(`{"type":"cancelled"}`), want: run(&RunFinishedOutcome{Type: OutcomeCancelled})},
		{name: "run interrupt", in: rf(`{"type":"interrupt","interrupts":[{"id":"i","reason":"confirmation","message":"ok?","toolCallId":"c","responseSchema":{"type":"object"},"expiresAt":"2030-01-01T00:00:00Z","subagentRunId":"s"}]}`),
			want: run(&RunFinishedOutcome{Type: OutcomeInterrupt, Interrupts: []Interrupt{{ID: "i", Reason: "confirmation", Message: Ptr("ok?"),
				ToolCallID: Ptr("c"), ResponseSchema: raw(`{"type":"object"}`), ExpiresAt: Ptr("2030-01-01T00:00:00Z"), Subagent: Ptr("s")}}})},
		{name: "run interrupt without interrupts", in: rf(`{"type":"interrupt","interrupts":[]}`), ptr: "/outcome/interrupts", rule: RuleSchema, at: "[]"},
		{name: "run interrupt missing interrupts", in: rf(`{"type":"interrupt"}`), ptr: "/outcome/interrupts", rule: RuleSchema, at: `{"type":"i`},
		{name: "run interrupt missing reason", in: rf(`{"type":"interrupt","interrupts":[{"id":"i"}]}`), ptr: "/outcome/interrupts/0/reason", rule: RuleSchema, at: `{"id"`},
		{name: "run unknown outcome reads as success", in: rf(`{"type":"timeout","after":5}`), want: run(nil), warn: []string{"E2 /outcome"}},
		{name: "run outcome without type", in: rf(`{}`), want: run(nil), warn: []string{"E2 /outcome"}},
		{name: "run outcome null type", in: rf(`{"type":null}`), want: run(nil), warn: []string{"E2 /outcome"}},
		{name: "run outcome not an object", in: rf(`"success"`), ptr: "/outcome", rule: RuleSchema, at: `"success"`},
		{name: "run pending ids null", in: rf(`{"type":"success","pendingToolCallIds":null}`), ptr: "/outcome/pendingToolCallIds", rule: RuleSchema, at: "null"},
		{name: "subagent success", in: sf(`{"type":"success"}`), want: sub(&SubagentOutcome{Type: SubagentSuccess})},
		{name: "subagent suspended", in: sf(`{"type":"suspended","interruptIds":["i1","i2"]}`), want: sub(&SubagentOutcome{Type: SubagentSuspended, InterruptIDs: []string{"i1", "i2"}})},
		{name: "subagent suspended empty ids", in: sf(`{"type":"suspended","interruptIds":[]}`), want: sub(&SubagentOutcome{Type: SubagentSuspended, InterruptIDs: []string{}})},
		{name: "subagent unknown type decodes for R14", in: sf(`{"type":"paused"}`), want: sub(&SubagentOutcome{Type: "paused"})},
		{name: "subagent missing type decodes for R14", in: sf(`{}`), want: sub(&SubagentOutcome{})},
		{name: "subagent null type decodes for R14", in: sf(`{"type":null}`), want: sub(&SubagentOutcome{})},
		{name: "subagent success with ids decodes for R14", in: sf(`{"type":"success","interruptIds":["i"]}`), want: sub(&SubagentOutcome{Type: SubagentSuccess, InterruptIDs: []string{"i"}})},
		{name: "subagent number type", in: sf(`{"type":3}`), ptr: "/outcome/type", rule: RuleSchema, at: "3}"},
		{name: "subagent outcome string", in: sf(`"success"`), ptr: "/outcome", rule: RuleSchema, at: `"success"`},
		{name: "subagent outcome null", in: sf(`null`), ptr: "/outcome", rule: RuleLifecycleNull, at: "null"},
		{name: "subagent ids null", in: sf(`{"type":"suspended","interruptIds":null}`), ptr: "/outcome/interruptIds", rule: RuleLifecycleNull, at: "null"},
		{name: "subagent ids not strings", in: sf(`{"type":"suspended","interruptIds":["a",1]}`), ptr: "/outcome/interruptIds/1", rule: RuleLifecycleNull, at: "1]"},
		{name: "subagent ids not an array", in: sf(`{"type":"suspended","interruptIds":"a"}`), ptr: "/outcome/interruptIds", rule: RuleSchema, at: `"a"`},
	})
}

func TestDecodeMessages(t *testing.T) {
	snap := func(msgs string) string { return `{"type":"MESSAGES_SNAPSHOT","messages":[` + msgs + `]}` }
	want := func(ms ...Message) Event { return &MessagesSnapshot{Messages: append([]Message{}, ms...)} }
	runDecodeCases(t, []decodeCase{
		{name: "every role", in: snap(`{"id":"d","role":"developer","content":"c","name":"n","encryptedValue":"e"},` +
			`{"id":"s","role":"system","content":"c"},` +
			`{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":""},"encryptedValue":"x","metadata":{}}]},` +
			`{"id":"u","role":"user","content":[{"type":"text","text":"hi","id":"p"},{"type":"document","source":{"type":"data","value":"AA==","mimeType":"application/pdf"}}]},` +
			`{"id":"t","role":"tool","content":"42","toolCallId":"c","error":"e"},` +
			`{"id":"ac","role":"activity","activityType":"PLAN","content":{"steps":[]},"subagentRunId":"s"},` +
			`{"id":"r","role":"reasoning","content":"hmm","metadata":{"k":1}}`),
			want: want(
				Message{ID: "d", Role: RoleDeveloper, Content: raw(`"c"`), Name: Ptr("n"), EncryptedValue: Ptr("e")},
				Message{ID: "s", Role: RoleSystem, Content: raw(`"c"`)},
				Message{ID: "a", Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Type: "function", Function: FunctionCall{Name: "f"}, EncryptedValue: Ptr("x"), Metadata: raw(`{}`)}}},
				Message{ID: "u", Role: RoleUser, Content: raw(`[{"type":"text","text":"hi","id":"p"},{"type":"document","source":{"type":"data","value":"AA==","mimeType":"application/pdf"}}]`)},
				Message{ID: "t", Role: RoleTool, Content: raw(`"42"`), ToolCallID: Ptr("c"), Error: Ptr("e")},
				Message{ID: "ac", Role: RoleActivity, ActivityType: Ptr("PLAN"), Content: raw(`{"steps":[]}`), Subagent: Ptr("s")},
				Message{ID: "r", Role: RoleReasoning, Content: raw(`"hmm"`), Metadata: raw(`{"k":1}`)},
			)},
		{name: "unknown role removed", in: snap(`{"id":"u","role":"user","content":"x"},{"id":"z","role":"critic","content":"x"}`),
			want: want(Message{ID: "u", Role: RoleUser, Content: raw(`"x"`)}), warn: []string{"E2 /messages/1"}},
		{name: "message without role removed", in: snap(`{"id":"z","content":"x"}`), want: want(), warn: []string{"E2 /messages/0"}},
		{name: "fields of other roles ignored", in: snap(`{"id":"t","role":"tool","content":"x","toolCallId":"c","name":"n","activityType":"A"}`),
			want: want(Message{ID: "t", Role: RoleTool, Content: raw(`"x"`), ToolCallID: Ptr("c")}),
			warn: []string{"E2 /messages/0/activityType", "E2 /messages/0/name"}},
		{name: "unknown content part removed", in: snap(`{"id":"u","role":"user","content":[{"type":"text","text":"a","extra":1},{"type":"hologram"},{"type":"binary","mimeType":"image/png","data":"AA=="}]}`),
			want: want(Message{ID: "u", Role: RoleUser, Content: raw(`[{"type":"text","text":"a"}]`)}),
			warn: []string{"E2 /messages/0/content/1", "E2 /messages/0/content/2", "E2 /messages/0/content/0/extra"}},
		{name: "missing id", in: snap(`{"role":"user","content":"x"}`), ptr: "/messages/0/id", rule: RuleSchema, at: `{"role"`},
		{name: "developer without content", in: snap(`{"id":"d","role":"developer"}`), ptr: "/messages/0/content", rule: RuleSchema},
		{name: "user content number", in: snap(`{"id":"u","role":"user","content":1}`), ptr: "/messages/0/content", rule: RuleSchema, at: "1}"},
		{name: "assistant content null", in: snap(`{"id":"a","role":"assistant","content":null}`), ptr: "/messages/0/content", rule: RuleSchema, at: "null"},
		{name: "reasoning content array", in: snap(`{"id":"r","role":"reasoning","content":[]}`), ptr: "/messages/0/content", rule: RuleSchema},
		{name: "tool without toolCallId", in: snap(`{"id":"t","role":"tool","content":"x"}`), ptr: "/messages/0/toolCallId", rule: RuleSchema},
		{name: "activity content string", in: snap(`{"id":"a","role":"activity","activityType":"P","content":"x"}`), ptr: "/messages/0/content", rule: RuleSchema},
		{name: "tool call type", in: snap(`{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"rpc","function":{"name":"f","arguments":""}}]}`),
			ptr: "/messages/0/toolCalls/0/type", rule: RuleSchema, at: `"rpc"`},
		{name: "tool call without function", in: snap(`{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function"}]}`),
			ptr: "/messages/0/toolCalls/0/function", rule: RuleSchema},
		{name: "tool call arguments missing", in: snap(`{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f"}}]}`),
			ptr: "/messages/0/toolCalls/0/function/arguments", rule: RuleSchema, at: `{"name":"f"}`},
		{name: "message not an object", in: snap(`"hello"`), ptr: "/messages/0", rule: RuleSchema, at: `"hello"`},
		{name: "messages missing", in: `{"type":"MESSAGES_SNAPSHOT"}`, ptr: "/messages", rule: RuleSchema},
		{name: "data source without mimeType", in: snap(`{"id":"u","role":"user","content":[{"type":"image","source":{"type":"data","value":"AA=="}}]}`),
			ptr: "/messages/0/content/0/source/mimeType", rule: RuleSchema},
		{name: "unknown source type", in: snap(`{"id":"u","role":"user","content":[{"type":"image","source":{"type":"ftp","value":"x"}}]}`),
			ptr: "/messages/0/content/0/source/type", rule: RuleSchema, at: `"ftp"`},
		{name: "file source, unknown members dropped", in: snap(`{"id":"u","role":"user","content":[{"type":"audio","source":{"type":"file","value":"f1","provider":"p","x":1}}]}`),
			want: want(Message{ID: "u", Role: RoleUser, Content: raw(`[{"type":"audio","source":{"type":"file","value":"f1","provider":"p"}}]`)}),
			warn: []string{"E2 /messages/0/content/0/source/x"}},
		{name: "input messages", in: `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"x","role":"oracle"},{"id":"u","role":"user","content":"hi","subagentRunId":"s"}],"context":[{"description":"d","value":"v"}],"forwardedProps":{"a":1}}}`,
			want: &RunStarted{ThreadID: "t", RunID: "r", Input: &RunAgentInput{ThreadID: "t", RunID: "r",
				Messages: []Message{{ID: "u", Role: RoleUser, Content: raw(`"hi"`), Subagent: Ptr("s")}},
				Context:  []Context{{Description: "d", Value: "v"}}, ForwardedProps: raw(`{"a":1}`)}},
			warn: []string{"E2 /input/messages/0"}},
		{name: "input without messages", in: `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r"}}`,
			ptr: "/input/messages", rule: RuleSchema, at: `{"threadId":"t","runId":"r"}`},
		{name: "input resume status", in: `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"later"}]}}`,
			ptr: "/input/resume/0/status", rule: RuleSchema, at: `"later"`},
	})
}

func TestDecodeUsageAndDeprecated(t *testing.T) {
	runDecodeCases(t, []decodeCase{
		{name: "usage", in: `{"type":"RUN_ERROR","message":"m","usage":[{"provider":"p","model":"m","inputTokens":1,"outputTokens":2,"totalTokens":3,"reasoningTokens":0,"cachedInputTokens":4,"cacheWriteInputTokens":5}]}`,
			want: &RunError{Message: "m", Usage: []TokenUsage{{Provider: Ptr("p"), Model: Ptr("m"), InputTokens: Ptr(int64(1)), OutputTokens: Ptr(int64(2)),
				TotalTokens: Ptr(int64(3)), ReasoningTokens: Ptr(int64(0)), CachedInputTokens: Ptr(int64(4)), CacheWriteInputTokens: Ptr(int64(5))}}}},
		{name: "empty usage", in: `{"type":"RUN_FINISHED","threadId":"t","runId":"r","usage":[]}`, want: &RunFinished{ThreadID: "t", RunID: "r", Usage: []TokenUsage{}}},
		{name: "negative tokens", in: `{"type":"RUN_ERROR","message":"m","usage":[{"inputTokens":-1}]}`, ptr: "/usage/0/inputTokens", rule: RuleSchema, at: "-1"},
		{name: "fractional tokens", in: `{"type":"RUN_ERROR","message":"m","usage":[{"outputTokens":1.5}]}`, ptr: "/usage/0/outputTokens", rule: RuleSchema, at: "1.5"},
		{name: "usage element not an object", in: `{"type":"RUN_ERROR","message":"m","usage":[3]}`, ptr: "/usage/0", rule: RuleSchema, at: "3]"},
		{name: "thinking start", in: `{"type":"THINKING_START"}`, want: &ThinkingStart{}, warn: []string{"deprecated "}},
		{name: "thinking end", in: `{"type":"THINKING_END"}`, want: &ThinkingEnd{}, warn: []string{"deprecated "}},
		{name: "thinking message start", in: `{"type":"THINKING_TEXT_MESSAGE_START"}`, want: &ThinkingTextMessageStart{}, warn: []string{"deprecated "}},
		{name: "thinking content", in: `{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hm"}`, want: &ThinkingTextMessageContent{Delta: "hm"}, warn: []string{"deprecated "}},
		{name: "thinking content without delta", in: `{"type":"THINKING_TEXT_MESSAGE_CONTENT"}`, ptr: "/delta", rule: RuleSchema},
		{name: "thinking message end", in: `{"type":"THINKING_TEXT_MESSAGE_END"}`, want: &ThinkingTextMessageEnd{}, warn: []string{"deprecated "}},
	})
}

func TestDecodeErrorMessage(t *testing.T) {
	in := `{"type":"SUBAGENT_FINISHED","subagentRunId":"sa1","outcome":{"type":"suspended","interruptIds":null}}`
	_, err := Decode([]byte(in))
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "SUBAGENT_FINISHED /outcome/interruptIds: null is not allowed; omit the field (byte 95)", err.Error())
	assert.Equal(t, byte('n'), in[de.Offset], "the offset points at the null")

	_, err = Decode([]byte(`{"type":`))
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "event: invalid JSON: unexpected end of JSON input (byte 8)", err.Error())
	var se *json.SyntaxError
	assert.True(t, errors.As(err, &se), "the syntax error is wrapped")

	_, err = Decode([]byte(`{"type":"NOPE"}`))
	var ut *UnknownTypeError
	require.ErrorAs(t, err, &ut)
	assert.Equal(t, Type("NOPE"), ut.Type)
	assert.Equal(t, `event: unknown event type "NOPE": skipped`, err.Error())
}

func TestDecodeInput(t *testing.T) {
	in, warns, err := DecodeInput([]byte(`{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}],"tools":[],"forwardedProps":null}`))
	require.NoError(t, err)
	assert.Equal(t, &RunAgentInput{ThreadID: "t", RunID: "r", Messages: []Message{{ID: "u", Role: RoleUser, Content: raw(`"hi"`)}}}, in)
	require.Len(t, warns, 1)
	assert.Equal(t, "/forwardedProps", warns[0].Pointer)

	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}],"tools":[],"context":[]}`, string(b),
		"nil tools and context are sent as []")

	_, _, err = DecodeInput([]byte(`{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi","subagentRunId":null}]}`))
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "/messages/0/subagentRunId", de.Pointer)
	assert.Equal(t, RuleNullTag, de.Rule)

	_, _, err = DecodeInput([]byte(`[]`))
	require.ErrorAs(t, err, &de)
	assert.Contains(t, de.Reason, "RunAgentInput")
}

// TestDecodeOwnsMemory checks that a decoded event does not alias its input.
func TestDecodeOwnsMemory(t *testing.T) {
	for _, in := range []string{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hello","subagentRunId":"s"}`,  // fast path
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hello","metadata":{"k":"v"}}`, // reference path
		`{"type":"STATE_SNAPSHOT","snapshot":{"k":"v"},"rawEvent":[1]}`,
	} {
		buf := []byte(in)
		e, err := Decode(buf)
		require.NoError(t, err)
		before, err := Encode(e)
		require.NoError(t, err)
		for i := range buf {
			buf[i] = 'x'
		}
		after, err := Encode(e)
		require.NoError(t, err)
		assert.Equal(t, string(before), string(after), "overwriting the input must not change the event")
	}
}

// TestDecodeSyntaxErrorType: an event that is not valid JSON names its type
// when it was readable before the error (a top-level member, not one
// nested in another).
func TestDecodeSyntaxErrorType(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Type
	}{
		{`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"` + "\x1b" + `"}`, TypeTextMessageContent},
		{`{ "messageId" : "m1", "n": 3, "type":"TEXT_MESSAGE_CONTENT", "delta":"x"`, TypeTextMessageContent},
		{`{"type":"TEXT_MESSAGE_CONTENT"`, TypeTextMessageContent},
		{`{"type":`, ""},
		{`{"outcome":{"type":"SUCCESS"},"x":}`, ""},
		{`{"delta":"x","type":"RUN_FINISHED"` + "\x00", TypeRunFinished},
		{`not json "type":"RUN_FINISHED"`, ""},
	} {
		_, err := Decode([]byte(tc.in))
		var de *DecodeError
		require.ErrorAs(t, err, &de, "%q", tc.in)
		assert.Contains(t, de.Reason, "invalid JSON", "%q", tc.in)
		assert.Equal(t, tc.want, de.Type, "%q", tc.in)
	}
}
