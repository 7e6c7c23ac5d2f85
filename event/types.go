package event

// Type is the wire discriminator of an event: the value of its "type" field.
// The Type constants equal the wire strings.
type Type string

// The 31 event types of the AG-UI 1.0 release, and the five deprecated THINKING_* types.
const (
	TypeRunStarted              Type = "RUN_STARTED"
	TypeRunFinished             Type = "RUN_FINISHED"
	TypeRunError                Type = "RUN_ERROR"
	TypeStepStarted             Type = "STEP_STARTED"
	TypeStepFinished            Type = "STEP_FINISHED"
	TypeTextMessageStart        Type = "TEXT_MESSAGE_START"
	TypeTextMessageContent      Type = "TEXT_MESSAGE_CONTENT"
	TypeTextMessageEnd          Type = "TEXT_MESSAGE_END"
	TypeTextMessageChunk        Type = "TEXT_MESSAGE_CHUNK"
	TypeToolCallStart           Type = "TOOL_CALL_START"
	TypeToolCallArgs            Type = "TOOL_CALL_ARGS"
	TypeToolCallEnd             Type = "TOOL_CALL_END"
	TypeToolCallChunk           Type = "TOOL_CALL_CHUNK"
	TypeToolCallResult          Type = "TOOL_CALL_RESULT"
	TypeStateSnapshot           Type = "STATE_SNAPSHOT"
	TypeStateDelta              Type = "STATE_DELTA"
	TypeMessagesSnapshot        Type = "MESSAGES_SNAPSHOT"
	TypeActivitySnapshot        Type = "ACTIVITY_SNAPSHOT"
	TypeActivityDelta           Type = "ACTIVITY_DELTA"
	TypeRaw                     Type = "RAW"
	TypeCustom                  Type = "CUSTOM"
	TypeReasoningStart          Type = "REASONING_START"
	TypeReasoningMessageStart   Type = "REASONING_MESSAGE_START"
	TypeReasoningMessageContent Type = "REASONING_MESSAGE_CONTENT"
	TypeReasoningMessageEnd     Type = "REASONING_MESSAGE_END"
	TypeReasoningMessageChunk   Type = "REASONING_MESSAGE_CHUNK"
	TypeReasoningEnd            Type = "REASONING_END"
	TypeReasoningEncryptedValue Type = "REASONING_ENCRYPTED_VALUE"
	TypeSubagentStarted         Type = "SUBAGENT_STARTED"
	TypeSubagentFinished        Type = "SUBAGENT_FINISHED"
	TypeSubagentError           Type = "SUBAGENT_ERROR"

	// Deprecated: THINKING_* types left the 1.0 release; they decode and are
	// translated to REASONING_* as the reference client does (docs/protocol.md §3.8).
	TypeThinkingStart              Type = "THINKING_START"
	TypeThinkingEnd                Type = "THINKING_END"
	TypeThinkingTextMessageStart   Type = "THINKING_TEXT_MESSAGE_START"
	TypeThinkingTextMessageContent Type = "THINKING_TEXT_MESSAGE_CONTENT"
	TypeThinkingTextMessageEnd     Type = "THINKING_TEXT_MESSAGE_END"
)

// types lists every event type this package decodes, in catalogue order.
var types = [...]Type{
	TypeRunStarted, TypeRunFinished, TypeRunError, TypeStepStarted, TypeStepFinished,
	TypeTextMessageStart, TypeTextMessageContent, TypeTextMessageEnd, TypeTextMessageChunk,
	TypeToolCallStart, TypeToolCallArgs, TypeToolCallEnd, TypeToolCallChunk, TypeToolCallResult,
	TypeStateSnapshot, TypeStateDelta, TypeMessagesSnapshot, TypeActivitySnapshot, TypeActivityDelta,
	TypeRaw, TypeCustom,
	TypeReasoningStart, TypeReasoningMessageStart, TypeReasoningMessageContent, TypeReasoningMessageEnd,
	TypeReasoningMessageChunk, TypeReasoningEnd, TypeReasoningEncryptedValue,
	TypeSubagentStarted, TypeSubagentFinished, TypeSubagentError,
	TypeThinkingStart, TypeThinkingEnd, TypeThinkingTextMessageStart, TypeThinkingTextMessageContent,
	TypeThinkingTextMessageEnd,
}

// Types returns every event type this package knows (the 31 of the 1.0 release,
// then the 5 deprecated THINKING_* types). The slice is a fresh copy.
func Types() []Type { s := types; return s[:] }

// Known reports whether t is one of the types returned by Types.
func (t Type) Known() bool {
	for _, k := range types {
		if k == t {
			return true
		}
	}
	return false
}

// Attributable reports whether events of type t may carry an optional
// subagentRunId naming the invocation that produced them (docs/protocol.md §3.7):
// the text, tool-call, reasoning, step, state and activity families, RAW and CUSTOM.
// The lifecycle types carry the id as identity and are not attributable; nor are
// RUN_*, MESSAGES_SNAPSHOT and the deprecated THINKING_* types.
func (t Type) Attributable() bool {
	switch t {
	case TypeStepStarted, TypeStepFinished,
		TypeTextMessageStart, TypeTextMessageContent, TypeTextMessageEnd, TypeTextMessageChunk,
		TypeToolCallStart, TypeToolCallArgs, TypeToolCallEnd, TypeToolCallChunk, TypeToolCallResult,
		TypeStateSnapshot, TypeStateDelta, TypeActivitySnapshot, TypeActivityDelta, TypeRaw, TypeCustom,
		TypeReasoningStart, TypeReasoningMessageStart, TypeReasoningMessageContent, TypeReasoningMessageEnd,
		TypeReasoningMessageChunk, TypeReasoningEnd, TypeReasoningEncryptedValue:
		return true
	}
	return false
}

// Lifecycle reports whether t is SUBAGENT_STARTED, SUBAGENT_FINISHED or SUBAGENT_ERROR.
func (t Type) Lifecycle() bool {
	return t == TypeSubagentStarted || t == TypeSubagentFinished || t == TypeSubagentError
}

// Deprecated reports whether t is one of the deprecated THINKING_* types.
func (t Type) Deprecated() bool {
	switch t {
	case TypeThinkingStart, TypeThinkingEnd, TypeThinkingTextMessageStart,
		TypeThinkingTextMessageContent, TypeThinkingTextMessageEnd:
		return true
	}
	return false
}

// Chunk reports whether t is one of the chunk shorthand types (docs/protocol.md §4).
func (t Type) Chunk() bool {
	return t == TypeTextMessageChunk || t == TypeToolCallChunk || t == TypeReasoningMessageChunk
}
