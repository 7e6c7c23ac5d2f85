package event

import "google.golang.org/protobuf/encoding/protowire"

// The protobuf schema of AG-UI events (package ag_ui), as tables that drive
// both DecodeProto and AppendProto.
//
// Field numbers are those of ../shared/spec/proto (copied to
// internal/agpb/proto) and, for what that schema lacks, those of the generated
// code of @ag-ui/proto@1.0.0, which the reference encoder @ag-ui/encoder@1.0.0
// writes: Event arms 22..31 (TOOL_CALL_RESULT, ACTIVITY_*, REASONING_*), the
// EventType values 19..30, RunStartedEvent's parent_run_id, input and
// protocol_version (4..6), RunFinishedEvent.pending_tool_call_ids (8),
// Usage.cache_write_input_tokens (8), the parts' id and metadata,
// InputContentFileSource, ToolCall.encrypted_value (5), Message's
// encrypted_value, activity_type and activity_content (11..13), Tool, Context,
// ResumeEntry and RunAgentInput. The two agree on every number they share.

// pkind is how a protobuf field maps to JSON.
type pkind uint8

const (
	pkString pkind = iota // string ↔ JSON string
	pkInt64               // int64 ↔ JSON integer
	pkBool                // bool ↔ true/false
	pkValue               // google.protobuf.Value ↔ any JSON value
	pkStruct              // google.protobuf.Struct ↔ JSON object
	pkMsg                 // a message of this schema ↔ JSON object
	pkOp                  // JsonPatchOperationType ↔ "add" … "test"
	// pkRunOutcome is RunFinishedEvent's outcome (5), interrupts (6) and
	// pending_tool_call_ids (8) ↔ the RunFinishedOutcome object.
	pkRunOutcome
	// pkSubOutcome is SubagentFinishedEvent's outcome (4) and interrupt_ids
	// (5) ↔ the SubagentFinishedOutcome object.
	pkSubOutcome
	// pkMsgContent is Message's content (3), content_parts (8) and
	// activity_content (13) ↔ "content", chosen by the role.
	pkMsgContent
	// pkResultContent is ToolCallResultEvent's content (5) and content_parts
	// (7) ↔ "content", a string or an array of parts.
	pkResultContent
	// pkRunPending, pkMsgParts, pkMsgActivity and pkResultParts are where
	// AppendProto writes pending_tool_call_ids (8), a message's
	// content_parts (8) and activity_content (13), and a result's
	// content_parts (7), in field-number order; DecodeProto reads them with
	// the outcome or content they belong to.
	pkRunPending
	pkMsgParts
	pkMsgActivity
	pkResultParts
	// pkSource is an InputContentSource oneof ↔ {"type":"data"|"url"|"file",…}.
	pkSource
)

// pfield is one field of a message.
type pfield struct {
	num  protowire.Number
	name string // the JSON member
	kind pkind
	msg  *pmsg // the element message of pkMsg
	rep  bool  // repeated
	// always: the field has no presence in proto3 (a plain string, a
	// required list), so absence reads as its zero value: "" or [].
	always bool
}

// pmsg is a message: its fields in field-number order, the order AppendProto
// writes them in, as protoc's generated encoders do.
type pmsg struct {
	fields []pfield
}

func str(n protowire.Number, name string) pfield {
	return pfield{num: n, name: name, kind: pkString, always: true}
}
func ostr(n protowire.Number, name string) pfield { return pfield{num: n, name: name, kind: pkString} }
func oint(n protowire.Number, name string) pfield { return pfield{num: n, name: name, kind: pkInt64} }
func val(n protowire.Number, name string) pfield  { return pfield{num: n, name: name, kind: pkValue} }
func obj(n protowire.Number, name string) pfield  { return pfield{num: n, name: name, kind: pkStruct} }
func msg(n protowire.Number, name string, m *pmsg) pfield {
	return pfield{num: n, name: name, kind: pkMsg, msg: m}
}
func list(n protowire.Number, name string, m *pmsg, required bool) pfield {
	return pfield{num: n, name: name, kind: pkMsg, msg: m, rep: true, always: required}
}
func tag(n protowire.Number) pfield { return ostr(n, "subagentRunId") }

var (
	pbUsage = &pmsg{[]pfield{ostr(1, "provider"), ostr(2, "model"), oint(3, "inputTokens"),
		oint(4, "outputTokens"), oint(5, "totalTokens"), oint(6, "reasoningTokens"),
		oint(7, "cachedInputTokens"), oint(8, "cacheWriteInputTokens")}}
	pbInterrupt = &pmsg{[]pfield{str(1, "id"), str(2, "reason"), ostr(3, "message"), ostr(4, "toolCallId"),
		val(5, "responseSchema"), ostr(6, "expiresAt"), val(7, "metadata"), tag(8)}}
	pbFunction = &pmsg{[]pfield{str(1, "name"), str(2, "arguments")}}
	pbToolCall = &pmsg{[]pfield{str(1, "id"), str(2, "type"), msg(3, "function", pbFunction), obj(4, "metadata"),
		ostr(5, "encryptedValue")}}
	pbDataSource = &pmsg{[]pfield{str(1, "value"), str(2, "mimeType")}}
	pbURLSource  = &pmsg{[]pfield{str(1, "value"), ostr(2, "mimeType")}}
	pbFileSource = &pmsg{[]pfield{str(1, "value"), ostr(2, "provider"), ostr(3, "mimeType")}}
	pbTextPart   = &pmsg{[]pfield{str(1, "text"), ostr(2, "id"), val(3, "metadata")}}
	pbMediaPart  = &pmsg{[]pfield{{num: 1, name: "source", kind: pkSource}, val(2, "metadata"), ostr(3, "id")}}
	pbMessage    = &pmsg{[]pfield{str(1, "id"), str(2, "role"), {num: 3, name: "content", kind: pkMsgContent},
		ostr(4, "name"), list(5, "toolCalls", pbToolCall, false), ostr(6, "toolCallId"), ostr(7, "error"),
		{num: 8, name: "content", kind: pkMsgParts}, obj(9, "metadata"), tag(10), ostr(11, "encryptedValue"),
		ostr(12, "activityType"), {num: 13, name: "content", kind: pkMsgActivity}}}
	pbTool    = &pmsg{[]pfield{str(1, "name"), str(2, "description"), val(3, "parameters"), obj(4, "metadata")}}
	pbContext = &pmsg{[]pfield{str(1, "description"), str(2, "value")}}
	pbResume  = &pmsg{[]pfield{str(1, "interruptId"), str(2, "status"), val(3, "payload"), obj(4, "metadata")}}
	pbInput   = &pmsg{[]pfield{str(1, "threadId"), str(2, "runId"), ostr(3, "parentRunId"), val(4, "state"),
		list(5, "messages", pbMessage, true), list(6, "tools", pbTool, false), list(7, "context", pbContext, false),
		val(8, "forwardedProps"), list(9, "resume", pbResume, false), ostr(10, "protocolVersion")}}
	pbPatchOp = &pmsg{[]pfield{{num: 1, name: "op", kind: pkOp, always: true}, str(2, "path"), ostr(3, "from"),
		val(4, "value")}}
)

// oneofArm is an arm of a oneof that stands for a JSON object with a "type"
// member: the type and the arm's message.
type oneofArm struct {
	typ string
	msg *pmsg
}

// partArms are InputContent's oneof arms, by field number: the content
// part's "type" and its message.
var partArms = []oneofArm{1: {"text", pbTextPart}, 2: {"image", pbMediaPart}, 3: {"audio", pbMediaPart},
	4: {"video", pbMediaPart}, 5: {"document", pbMediaPart}}

// sourceArms are InputContentSource's oneof arms, by field number.
var sourceArms = []oneofArm{1: {"data", pbDataSource}, 2: {"url", pbURLSource}, 3: {"file", pbFileSource}}

// patchOps are JsonPatchOperationType's values.
var patchOps = [...]string{"add", "remove", "replace", "move", "copy", "test"}

// parm is one arm of ag_ui.Event: the event type it carries, its EventType
// value, and its message without base_event (field 1, read apart).
type parm struct {
	typ  Type
	enum int32
	msg  *pmsg
}

// eventArms are ag_ui.Event's oneof arms, by field number.
var eventArms = [...]parm{
	1:  {TypeTextMessageStart, 0, &pmsg{[]pfield{str(2, "messageId"), ostr(3, "role"), ostr(4, "name"), tag(5)}}},
	2:  {TypeTextMessageContent, 1, &pmsg{[]pfield{str(2, "messageId"), str(3, "delta"), tag(4)}}},
	3:  {TypeTextMessageEnd, 2, &pmsg{[]pfield{str(2, "messageId"), tag(3)}}},
	4:  {TypeToolCallStart, 3, &pmsg{[]pfield{str(2, "toolCallId"), str(3, "toolCallName"), ostr(4, "parentMessageId"), tag(5)}}},
	5:  {TypeToolCallArgs, 4, &pmsg{[]pfield{str(2, "toolCallId"), str(3, "delta"), tag(4)}}},
	6:  {TypeToolCallEnd, 5, &pmsg{[]pfield{str(2, "toolCallId"), tag(3)}}},
	7:  {TypeStateSnapshot, 6, &pmsg{[]pfield{val(2, "snapshot"), tag(3)}}},
	8:  {TypeStateDelta, 7, &pmsg{[]pfield{list(2, "delta", pbPatchOp, true), tag(3)}}},
	9:  {TypeMessagesSnapshot, 8, &pmsg{[]pfield{list(2, "messages", pbMessage, true)}}},
	10: {TypeRaw, 9, &pmsg{[]pfield{val(2, "event"), ostr(3, "source"), tag(4)}}},
	11: {TypeCustom, 10, &pmsg{[]pfield{str(2, "name"), val(3, "value"), tag(4)}}},
	12: {TypeRunStarted, 11, &pmsg{[]pfield{str(2, "threadId"), str(3, "runId"), ostr(4, "parentRunId"),
		msg(5, "input", pbInput), ostr(6, "protocolVersion")}}},
	13: {TypeRunFinished, 12, &pmsg{[]pfield{str(2, "threadId"), str(3, "runId"), val(4, "result"),
		{num: 5, name: "outcome", kind: pkRunOutcome}, list(7, "usage", pbUsage, false),
		{num: 8, name: "outcome", kind: pkRunPending}}}},
	14: {TypeRunError, 13, &pmsg{[]pfield{ostr(2, "code"), str(3, "message"), list(4, "usage", pbUsage, false)}}},
	15: {TypeStepStarted, 14, &pmsg{[]pfield{str(2, "stepName"), tag(3)}}},
	16: {TypeStepFinished, 15, &pmsg{[]pfield{str(2, "stepName"), tag(3)}}},
	17: {TypeTextMessageChunk, 19, &pmsg{[]pfield{ostr(2, "messageId"), ostr(3, "role"), ostr(4, "delta"),
		ostr(5, "name"), tag(6)}}},
	18: {TypeToolCallChunk, 20, &pmsg{[]pfield{ostr(2, "toolCallId"), ostr(3, "toolCallName"),
		ostr(4, "parentMessageId"), ostr(5, "delta"), tag(6)}}},
	19: {TypeSubagentStarted, 16, &pmsg{[]pfield{str(2, "subagentRunId"), str(3, "name"), ostr(4, "description"),
		ostr(5, "parentSubagentRunId"), ostr(6, "parentToolCallId"), ostr(7, "parentMessageId")}}},
	20: {TypeSubagentFinished, 17, &pmsg{[]pfield{str(2, "subagentRunId"), val(3, "result"),
		{num: 4, name: "outcome", kind: pkSubOutcome}}}},
	21: {TypeSubagentError, 18, &pmsg{[]pfield{str(2, "subagentRunId"), str(3, "message"), ostr(4, "code")}}},
	22: {TypeToolCallResult, 21, &pmsg{[]pfield{tag(2), str(3, "messageId"), str(4, "toolCallId"),
		{num: 5, name: "content", kind: pkResultContent}, ostr(6, "role"),
		{num: 7, name: "content", kind: pkResultParts}}}},
	23: {TypeActivitySnapshot, 22, &pmsg{[]pfield{tag(2), str(3, "messageId"), str(4, "activityType"),
		obj(5, "content"), {num: 6, name: "replace", kind: pkBool}}}},
	24: {TypeActivityDelta, 23, &pmsg{[]pfield{tag(2), str(3, "messageId"), str(4, "activityType"),
		list(5, "patch", pbPatchOp, true)}}},
	25: {TypeReasoningStart, 24, &pmsg{[]pfield{tag(2), str(3, "messageId")}}},
	26: {TypeReasoningMessageStart, 25, &pmsg{[]pfield{tag(2), str(3, "messageId"), str(4, "role")}}},
	27: {TypeReasoningMessageContent, 26, &pmsg{[]pfield{tag(2), str(3, "messageId"), str(4, "delta")}}},
	28: {TypeReasoningMessageEnd, 27, &pmsg{[]pfield{tag(2), str(3, "messageId")}}},
	29: {TypeReasoningMessageChunk, 28, &pmsg{[]pfield{tag(2), ostr(3, "messageId"), ostr(4, "delta")}}},
	30: {TypeReasoningEnd, 29, &pmsg{[]pfield{tag(2), str(3, "messageId")}}},
	31: {TypeReasoningEncryptedValue, 30, &pmsg{[]pfield{tag(2), str(3, "subtype"), str(4, "entityId"),
		str(5, "encryptedValue")}}},
}

// armOf maps an event type to its ag_ui.Event field number; 0 for the
// THINKING_* types, which have none.
var armOf = func() map[Type]protowire.Number {
	m := make(map[Type]protowire.Number, len(eventArms))
	for n := range eventArms {
		if eventArms[n].msg != nil {
			m[eventArms[n].typ] = protowire.Number(n)
		}
	}
	return m
}()

// enumNames are EventType's values, for naming an unexpected base_event.type.
var enumNames = func() [31]Type {
	var t [31]Type
	for n := range eventArms {
		if eventArms[n].msg != nil {
			t[eventArms[n].enum] = eventArms[n].typ
		}
	}
	return t
}()
