package event

import "encoding/json"

// Event is one AG-UI event. The interface is sealed: the only implementations
// are the pointer types of this package (*TextMessageContent, *RunStarted, …),
// one per wire type.
type Event interface {
	// EventType returns the wire type of the event.
	EventType() Type
	// SubagentRunID returns the invocation the event concerns and true, or
	// ("", false) when it has none. For attributable types this is the optional
	// attribution tag (absent = the parent agent); for the SUBAGENT_* lifecycle
	// types it is the required identity; other types have none.
	SubagentRunID() (string, bool)
	// Common returns the fields every event may carry.
	Common() *Base
	sealed()
}

// Base holds the fields every event may carry. It is embedded by value in
// every event type.
type Base struct {
	// Timestamp is the producer's time, conventionally milliseconds since the
	// epoch; nil when absent. A non-integer timestamp does not decode.
	Timestamp *int64 `json:"timestamp,omitempty"`
	// RawEvent is the upstream event this one was translated from, verbatim;
	// nil when absent.
	RawEvent json.RawMessage `json:"rawEvent,omitempty"`
	// Metadata is a JSON object of producer-defined metadata; nil when absent.
	Metadata json.RawMessage `json:"metadata,omitempty"`

	// warnings found while decoding (a dropped tag, a legacy null read as
	// absent, removed unknown material). Not part of the wire form.
	warnings []Warning
}

// Common returns b itself, so that embedding types satisfy Event.
func (b *Base) Common() *Base { return b }

// Warnings returns what decoding tolerated in this event but a producer
// should fix (PROTOCOL.md G2, G3, E4): a subagentRunId dropped from a
// run-scoped event, a legacy null read as absent, unknown material removed,
// a deprecated type. The slice is a copy.
func (b *Base) Warnings() []Warning {
	if len(b.warnings) == 0 {
		return nil
	}
	return append([]Warning(nil), b.warnings...)
}

func (b *Base) addWarning(w Warning) { b.warnings = append(b.warnings, w) }

func (*Base) sealed() {}

// Warning is something decoding tolerated: the event decoded, but a producer
// should fix what the warning names.
type Warning struct {
	// Type is the event's wire type.
	Type Type
	// Pointer is the JSON pointer (RFC 6901) of the material concerned, relative
	// to the event object, e.g. "/subagentRunId".
	Pointer string
	// Message says what was tolerated and what was done with it.
	Message string
}

func (w Warning) String() string {
	if w.Pointer == "" {
		return string(w.Type) + ": " + w.Message
	}
	return string(w.Type) + " " + w.Pointer + ": " + w.Message
}

// Attribution is embedded by the 24 attributable event types. Subagent names
// the invocation that produced the event; nil means the parent agent. The
// wire form never spells it null (PROTOCOL.md R1).
type Attribution struct {
	Subagent *string `json:"subagentRunId,omitempty"`
}

// SubagentRunID returns the attribution tag and whether it is present.
func (a *Attribution) SubagentRunID() (string, bool) {
	if a.Subagent == nil {
		return "", false
	}
	return *a.Subagent, true
}

// By returns an Attribution naming the invocation id, for building events:
//
//	&event.TextMessageContent{Attribution: event.By("sub-1"), MessageID: "m1", Delta: "hi"}
func By(subagentRunID string) Attribution { return Attribution{Subagent: &subagentRunID} }

// Ptr returns a pointer to v, for optional fields.
func Ptr[T any](v T) *T { return &v }

// noAttribution is embedded by event types that never carry attribution.
type noAttribution struct{}

// SubagentRunID always returns ("", false): the type carries no attribution.
func (noAttribution) SubagentRunID() (string, bool) { return "", false }

// ---------------------------------------------------------------------------
// Run lifecycle and steps (PROTOCOL.md §3.1)

// RunStarted is RUN_STARTED: a run begins.
type RunStarted struct {
	Base
	noAttribution
	ThreadID        string         `json:"threadId"`
	RunID           string         `json:"runId"`
	ProtocolVersion *string        `json:"protocolVersion,omitempty"`
	ParentRunID     *string        `json:"parentRunId,omitempty"`
	Input           *RunAgentInput `json:"input,omitempty"`
}

// RunFinished is RUN_FINISHED: the run ended; Outcome nil means success.
type RunFinished struct {
	Base
	noAttribution
	ThreadID string              `json:"threadId"`
	RunID    string              `json:"runId"`
	Result   json.RawMessage     `json:"result,omitempty"` // any JSON but null; nil = absent
	Outcome  *RunFinishedOutcome `json:"outcome,omitempty"`
	Usage    []TokenUsage        `json:"usage,omitzero"`
}

// RunError is RUN_ERROR: the run failed; every open invocation is abandoned.
type RunError struct {
	Base
	noAttribution
	Message string       `json:"message"`
	Code    *string      `json:"code,omitempty"`
	Usage   []TokenUsage `json:"usage,omitzero"`
}

// StepStarted is STEP_STARTED. Steps are keyed by (owner, name).
type StepStarted struct {
	Base
	Attribution
	StepName string `json:"stepName"`
}

// StepFinished is STEP_FINISHED; it carries the attribution of the step it closes.
type StepFinished struct {
	Base
	Attribution
	StepName string `json:"stepName"`
}

// ---------------------------------------------------------------------------
// Text messages (§3.2)

// TextMessageStart is TEXT_MESSAGE_START. Role nil means "assistant".
type TextMessageStart struct {
	Base
	Attribution
	MessageID string  `json:"messageId"`
	Role      *Role   `json:"role,omitempty"`
	Name      *string `json:"name,omitempty"`
}

// TextMessageContent is TEXT_MESSAGE_CONTENT: a piece of a message's text.
type TextMessageContent struct {
	Base
	Attribution
	MessageID string `json:"messageId"`
	Delta     string `json:"delta"`
}

// TextMessageEnd is TEXT_MESSAGE_END.
type TextMessageEnd struct {
	Base
	Attribution
	MessageID string `json:"messageId"`
}

// TextMessageChunk is TEXT_MESSAGE_CHUNK, the shorthand that expands into
// START/CONTENT/END (PROTOCOL.md §4). Every field is optional.
type TextMessageChunk struct {
	Base
	Attribution
	MessageID *string `json:"messageId,omitempty"`
	Role      *Role   `json:"role,omitempty"`
	Delta     *string `json:"delta,omitempty"`
	Name      *string `json:"name,omitempty"`
}

// ---------------------------------------------------------------------------
// Tool calls (§3.3)

// ToolCallStart is TOOL_CALL_START. ParentMessageID names the assistant
// message holding the call.
type ToolCallStart struct {
	Base
	Attribution
	ToolCallID      string  `json:"toolCallId"`
	ToolCallName    string  `json:"toolCallName"`
	ParentMessageID *string `json:"parentMessageId,omitempty"`
}

// ToolCallArgs is TOOL_CALL_ARGS: a fragment of the call's JSON arguments.
type ToolCallArgs struct {
	Base
	Attribution
	ToolCallID string `json:"toolCallId"`
	Delta      string `json:"delta"`
}

// ToolCallEnd is TOOL_CALL_END.
type ToolCallEnd struct {
	Base
	Attribution
	ToolCallID string `json:"toolCallId"`
}

// ToolCallChunk is TOOL_CALL_CHUNK (PROTOCOL.md §4). Every field is optional.
type ToolCallChunk struct {
	Base
	Attribution
	ToolCallID      *string `json:"toolCallId,omitempty"`
	ToolCallName    *string `json:"toolCallName,omitempty"`
	ParentMessageID *string `json:"parentMessageId,omitempty"`
	Delta           *string `json:"delta,omitempty"`
}

// ToolCallResult is TOOL_CALL_RESULT: it mints the tool message MessageID
// answering ToolCallID. Content is a JSON string or an array of content parts.
type ToolCallResult struct {
	Base
	Attribution
	MessageID  string          `json:"messageId"`
	ToolCallID string          `json:"toolCallId"`
	Content    json.RawMessage `json:"content"`
	Role       *Role           `json:"role,omitempty"` // only RoleTool
}

// ---------------------------------------------------------------------------
// State, messages snapshot, activity (§3.4)

// StateSnapshot is STATE_SNAPSHOT: it replaces the run's state document.
// Snapshot is any JSON value, null included. Attribution is provenance only.
type StateSnapshot struct {
	Base
	Attribution
	Snapshot json.RawMessage `json:"snapshot"`
}

// StateDelta is STATE_DELTA: an RFC 6902 JSON Patch (a JSON array of
// operations) applied to the run's state. Attribution is provenance only.
type StateDelta struct {
	Base
	Attribution
	Delta json.RawMessage `json:"delta"`
}

// MessagesSnapshot is MESSAGES_SNAPSHOT: the authoritative message list.
// Attribution travels on each message.
type MessagesSnapshot struct {
	Base
	noAttribution
	Messages []Message `json:"messages"`
}

// ActivitySnapshot is ACTIVITY_SNAPSHOT. Content is a JSON object; Replace nil
// means true.
type ActivitySnapshot struct {
	Base
	Attribution
	MessageID    string          `json:"messageId"`
	ActivityType string          `json:"activityType"`
	Content      json.RawMessage `json:"content"`
	Replace      *bool           `json:"replace,omitempty"`
}

// ActivityDelta is ACTIVITY_DELTA: a JSON Patch (array) on an activity's content.
type ActivityDelta struct {
	Base
	Attribution
	MessageID    string          `json:"messageId"`
	ActivityType string          `json:"activityType"`
	Patch        json.RawMessage `json:"patch"`
}

// ---------------------------------------------------------------------------
// Special (§3.5)

// Raw is RAW: an upstream event passed through. Event is any JSON, null included.
type Raw struct {
	Base
	Attribution
	Event  json.RawMessage `json:"event"`
	Source *string         `json:"source,omitempty"`
}

// Custom is CUSTOM: an application event. Value is any JSON, null included.
type Custom struct {
	Base
	Attribution
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// ---------------------------------------------------------------------------
// Reasoning (§3.6)

// ReasoningStart is REASONING_START: a reasoning span opens. MessageID is the span id.
type ReasoningStart struct {
	Base
	Attribution
	MessageID string `json:"messageId"`
}

// ReasoningMessageStart is REASONING_MESSAGE_START. Role is always "reasoning".
type ReasoningMessageStart struct {
	Base
	Attribution
	MessageID string `json:"messageId"`
	Role      Role   `json:"role"`
}

// ReasoningMessageContent is REASONING_MESSAGE_CONTENT.
type ReasoningMessageContent struct {
	Base
	Attribution
	MessageID string `json:"messageId"`
	Delta     string `json:"delta"`
}

// ReasoningMessageEnd is REASONING_MESSAGE_END.
type ReasoningMessageEnd struct {
	Base
	Attribution
	MessageID string `json:"messageId"`
}

// ReasoningMessageChunk is REASONING_MESSAGE_CHUNK (PROTOCOL.md §4).
type ReasoningMessageChunk struct {
	Base
	Attribution
	MessageID *string `json:"messageId,omitempty"`
	Delta     *string `json:"delta,omitempty"`
}

// ReasoningEnd is REASONING_END: the span MessageID closes.
type ReasoningEnd struct {
	Base
	Attribution
	MessageID string `json:"messageId"`
}

// Subtypes of REASONING_ENCRYPTED_VALUE.
const (
	EncryptedToolCall = "tool-call"
	EncryptedMessage  = "message"
)

// ReasoningEncryptedValue is REASONING_ENCRYPTED_VALUE: an opaque value for a
// tool call (Subtype "tool-call") or a message (Subtype "message").
type ReasoningEncryptedValue struct {
	Base
	Attribution
	Subtype        string `json:"subtype"`
	EntityID       string `json:"entityId"`
	EncryptedValue string `json:"encryptedValue"`
}

// ---------------------------------------------------------------------------
// Subagent lifecycle (§3.7): the id is identity, required.

// SubagentStarted is SUBAGENT_STARTED: it announces the invocation ID.
// ParentSubagentRunID nil means the parent agent spawned it.
type SubagentStarted struct {
	Base
	ID                  string  `json:"subagentRunId"`
	Name                string  `json:"name"`
	Description         *string `json:"description,omitempty"`
	ParentSubagentRunID *string `json:"parentSubagentRunId,omitempty"`
	ParentToolCallID    *string `json:"parentToolCallId,omitempty"`
	ParentMessageID     *string `json:"parentMessageId,omitempty"`
}

// SubagentFinished is SUBAGENT_FINISHED: the invocation's segment ended.
// Outcome nil means success.
type SubagentFinished struct {
	Base
	ID      string           `json:"subagentRunId"`
	Result  json.RawMessage  `json:"result,omitempty"` // any JSON but null; nil = absent
	Outcome *SubagentOutcome `json:"outcome,omitempty"`
}

// SubagentError is SUBAGENT_ERROR: the invocation failed; the run goes on.
type SubagentError struct {
	Base
	ID      string  `json:"subagentRunId"`
	Message string  `json:"message"`
	Code    *string `json:"code,omitempty"`
}

// SubagentRunID returns the invocation id, which the lifecycle types always carry.
func (e *SubagentStarted) SubagentRunID() (string, bool) { return e.ID, true }

// SubagentRunID returns the invocation id, which the lifecycle types always carry.
func (e *SubagentFinished) SubagentRunID() (string, bool) { return e.ID, true }

// SubagentRunID returns the invocation id, which the lifecycle types always carry.
func (e *SubagentError) SubagentRunID() (string, bool) { return e.ID, true }

// ---------------------------------------------------------------------------
// Deprecated THINKING_* (§3.8). Not attributable.

// ThinkingStart is the deprecated THINKING_START (now REASONING_START).
type ThinkingStart struct {
	Base
	noAttribution
	Title *string `json:"title,omitempty"`
}

// ThinkingEnd is the deprecated THINKING_END (now REASONING_END).
type ThinkingEnd struct {
	Base
	noAttribution
}

// ThinkingTextMessageStart is the deprecated THINKING_TEXT_MESSAGE_START (now REASONING_MESSAGE_START).
type ThinkingTextMessageStart struct {
	Base
	noAttribution
}

// ThinkingTextMessageContent is the deprecated THINKING_TEXT_MESSAGE_CONTENT (now REASONING_MESSAGE_CONTENT).
type ThinkingTextMessageContent struct {
	Base
	noAttribution
	Delta string `json:"delta"`
}

// ThinkingTextMessageEnd is the deprecated THINKING_TEXT_MESSAGE_END (now REASONING_MESSAGE_END).
type ThinkingTextMessageEnd struct {
	Base
	noAttribution
}

// EventType methods.

func (*RunStarted) EventType() Type              { return TypeRunStarted }
func (*RunFinished) EventType() Type             { return TypeRunFinished }
func (*RunError) EventType() Type                { return TypeRunError }
func (*StepStarted) EventType() Type             { return TypeStepStarted }
func (*StepFinished) EventType() Type            { return TypeStepFinished }
func (*TextMessageStart) EventType() Type        { return TypeTextMessageStart }
func (*TextMessageContent) EventType() Type      { return TypeTextMessageContent }
func (*TextMessageEnd) EventType() Type          { return TypeTextMessageEnd }
func (*TextMessageChunk) EventType() Type        { return TypeTextMessageChunk }
func (*ToolCallStart) EventType() Type           { return TypeToolCallStart }
func (*ToolCallArgs) EventType() Type            { return TypeToolCallArgs }
func (*ToolCallEnd) EventType() Type             { return TypeToolCallEnd }
func (*ToolCallChunk) EventType() Type           { return TypeToolCallChunk }
func (*ToolCallResult) EventType() Type          { return TypeToolCallResult }
func (*StateSnapshot) EventType() Type           { return TypeStateSnapshot }
func (*StateDelta) EventType() Type              { return TypeStateDelta }
func (*MessagesSnapshot) EventType() Type        { return TypeMessagesSnapshot }
func (*ActivitySnapshot) EventType() Type        { return TypeActivitySnapshot }
func (*ActivityDelta) EventType() Type           { return TypeActivityDelta }
func (*Raw) EventType() Type                     { return TypeRaw }
func (*Custom) EventType() Type                  { return TypeCustom }
func (*ReasoningStart) EventType() Type          { return TypeReasoningStart }
func (*ReasoningMessageStart) EventType() Type   { return TypeReasoningMessageStart }
func (*ReasoningMessageContent) EventType() Type { return TypeReasoningMessageContent }
func (*ReasoningMessageEnd) EventType() Type     { return TypeReasoningMessageEnd }
func (*ReasoningMessageChunk) EventType() Type   { return TypeReasoningMessageChunk }
func (*ReasoningEnd) EventType() Type            { return TypeReasoningEnd }
func (*ReasoningEncryptedValue) EventType() Type { return TypeReasoningEncryptedValue }
func (*SubagentStarted) EventType() Type         { return TypeSubagentStarted }
func (*SubagentFinished) EventType() Type        { return TypeSubagentFinished }
func (*SubagentError) EventType() Type           { return TypeSubagentError }
func (*ThinkingStart) EventType() Type           { return TypeThinkingStart }
func (*ThinkingEnd) EventType() Type             { return TypeThinkingEnd }
func (*ThinkingTextMessageStart) EventType() Type {
	return TypeThinkingTextMessageStart
}
func (*ThinkingTextMessageContent) EventType() Type {
	return TypeThinkingTextMessageContent
}
func (*ThinkingTextMessageEnd) EventType() Type { return TypeThinkingTextMessageEnd }
