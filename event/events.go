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
	// encode appends the event's wire JSON, "type" first.
	encode(w *encoder)
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
// should fix (docs/protocol.md G2, G3, E4): a subagentRunId dropped from a
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
	// to the event object, e.g. "/subagentRunId"; "" for the whole event.
	Pointer string
	// Message says what was tolerated and what was done with it.
	Message string
	// Rule is the rule that tolerates it: WarnUnknownMaterial or
	// WarnUnknownMember ("E2"), WarnLegacyNull ("E4"), WarnMisplacedTag
	// ("G3") or WarnDeprecated.
	Rule string
}

// String returns the type, pointer and message, e.g.
// `RUN_STARTED /subagentRunId: this type cannot carry subagentRunId (only the 24 attributable types do); dropped`.
func (w Warning) String() string {
	if w.Pointer == "" {
		return string(w.Type) + ": " + w.Message
	}
	return string(w.Type) + " " + w.Pointer + ": " + w.Message
}

// Attribution is embedded by the 24 attributable event types. Subagent names
// the invocation that produced the event; nil means the parent agent. The
// wire form never spells it null (docs/protocol.md R1).
type Attribution struct {
	Subagent *string `json:"subagentRunId,omitempty"` // the invocation that produced the event; nil = the parent agent
}

// SubagentRunID returns the attribution tag and whether it is present.
func (a *Attribution) SubagentRunID() (string, bool) {
	if a.Subagent == nil {
		return "", false
	}
	return *a.Subagent, true
}

func (a *Attribution) attribution() *Attribution { return a }

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
// Run lifecycle and steps (docs/protocol.md §3.1)

// RunStarted is RUN_STARTED: a run begins.
type RunStarted struct {
	Base
	noAttribution
	ThreadID        string         `json:"threadId"`                  // the conversation thread
	RunID           string         `json:"runId"`                     // the run that starts
	ProtocolVersion *string        `json:"protocolVersion,omitempty"` // the producer's protocol version, e.g. "1.0"; nil when absent
	ParentRunID     *string        `json:"parentRunId,omitempty"`     // the run this one branches from; nil when absent
	Input           *RunAgentInput `json:"input,omitempty"`           // the RunAgentInput the run was started with, echoed; nil when absent
}

// RunFinished is RUN_FINISHED: the run ended; Outcome nil means success.
type RunFinished struct {
	Base
	noAttribution
	ThreadID string              `json:"threadId"`          // the conversation thread
	RunID    string              `json:"runId"`             // the run that finished
	Result   json.RawMessage     `json:"result,omitempty"`  // any JSON but null; nil = absent
	Outcome  *RunFinishedOutcome `json:"outcome,omitempty"` // nil = success (also for an unknown outcome type, with a warning)
	Usage    []TokenUsage        `json:"usage,omitzero"`    // token usage; nil when absent
}

// RunError is RUN_ERROR: the run failed; every open invocation is abandoned.
type RunError struct {
	Base
	noAttribution
	Message string       `json:"message"`        // what went wrong
	Code    *string      `json:"code,omitempty"` // a machine-readable error code; nil when absent
	Usage   []TokenUsage `json:"usage,omitzero"` // token usage; nil when absent
}

// StepStarted is STEP_STARTED. Steps are keyed by (owner, name).
type StepStarted struct {
	Base
	Attribution
	StepName string `json:"stepName"` // the step, unique per owner among open steps
}

// StepFinished is STEP_FINISHED; it carries the attribution of the step it closes.
type StepFinished struct {
	Base
	Attribution
	StepName string `json:"stepName"` // the step that finishes
}

// ---------------------------------------------------------------------------
// Text messages (§3.2)

// TextMessageStart is TEXT_MESSAGE_START. Role nil means "assistant".
type TextMessageStart struct {
	Base
	Attribution
	MessageID string  `json:"messageId"`      // the message the text goes to
	Role      *Role   `json:"role,omitempty"` // developer, system, assistant or user; nil = assistant
	Name      *string `json:"name,omitempty"` // the author's name; nil when absent
}

// TextMessageContent is TEXT_MESSAGE_CONTENT: a piece of a message's text.
type TextMessageContent struct {
	Base
	Attribution
	MessageID string `json:"messageId"` // the open message
	Delta     string `json:"delta"`     // text appended to the message; may be empty
}

// TextMessageEnd is TEXT_MESSAGE_END.
type TextMessageEnd struct {
	Base
	Attribution
	MessageID string `json:"messageId"` // the message that ends
}

// TextMessageChunk is TEXT_MESSAGE_CHUNK, the shorthand that expands into
// START/CONTENT/END (docs/protocol.md §4). Every field is optional.
type TextMessageChunk struct {
	Base
	Attribution
	MessageID *string `json:"messageId,omitempty"` // the message; nil continues the lane's open one
	Role      *Role   `json:"role,omitempty"`      // as TextMessageStart.Role; nil when absent
	Delta     *string `json:"delta,omitempty"`     // text to append; nil when absent
	Name      *string `json:"name,omitempty"`      // the author's name; nil when absent
}

// ---------------------------------------------------------------------------
// Tool calls (§3.3)

// ToolCallStart is TOOL_CALL_START. ParentMessageID names the assistant
// message holding the call.
type ToolCallStart struct {
	Base
	Attribution
	ToolCallID      string  `json:"toolCallId"`                // the call that starts
	ToolCallName    string  `json:"toolCallName"`              // the tool called
	ParentMessageID *string `json:"parentMessageId,omitempty"` // the assistant message holding the call; nil when absent
}

// ToolCallArgs is TOOL_CALL_ARGS: a fragment of the call's JSON arguments.
type ToolCallArgs struct {
	Base
	Attribution
	ToolCallID string `json:"toolCallId"` // the open call
	Delta      string `json:"delta"`      // a fragment of the JSON arguments; may be empty
}

// ToolCallEnd is TOOL_CALL_END.
type ToolCallEnd struct {
	Base
	Attribution
	ToolCallID string `json:"toolCallId"` // the call whose arguments are complete
}

// ToolCallChunk is TOOL_CALL_CHUNK (docs/protocol.md §4). Every field is optional.
type ToolCallChunk struct {
	Base
	Attribution
	ToolCallID      *string `json:"toolCallId,omitempty"`      // the call; nil continues the lane's open one
	ToolCallName    *string `json:"toolCallName,omitempty"`    // the tool called; nil when absent
	ParentMessageID *string `json:"parentMessageId,omitempty"` // as ToolCallStart.ParentMessageID
	Delta           *string `json:"delta,omitempty"`           // an arguments fragment; nil when absent
}

// ToolCallResult is TOOL_CALL_RESULT: it mints the tool message MessageID
// answering ToolCallID. Content is a JSON string or an array of content parts.
type ToolCallResult struct {
	Base
	Attribution
	MessageID  string          `json:"messageId"`      // the tool message the result mints
	ToolCallID string          `json:"toolCallId"`     // the call answered
	Content    json.RawMessage `json:"content"`        // a JSON string, or an array of content parts
	Role       *Role           `json:"role,omitempty"` // only RoleTool
}

// ---------------------------------------------------------------------------
// State, messages snapshot, activity (§3.4)

// StateSnapshot is STATE_SNAPSHOT: it replaces the run's state document.
// Snapshot is any JSON value, null included. Attribution is provenance only.
type StateSnapshot struct {
	Base
	Attribution
	Snapshot json.RawMessage `json:"snapshot"` // the new state document; any JSON, null included
}

// StateDelta is STATE_DELTA: an RFC 6902 JSON Patch (a JSON array of
// operations) applied to the run's state. Attribution is provenance only.
type StateDelta struct {
	Base
	Attribution
	Delta json.RawMessage `json:"delta"` // the patch: a JSON array of RFC 6902 operations
}

// MessagesSnapshot is MESSAGES_SNAPSHOT: the authoritative message list.
// Attribution travels on each message.
type MessagesSnapshot struct {
	Base
	noAttribution
	Messages []Message `json:"messages"` // the full message list; never nil once decoded
}

// ActivitySnapshot is ACTIVITY_SNAPSHOT. Content is a JSON object; Replace nil
// means true.
type ActivitySnapshot struct {
	Base
	Attribution
	MessageID    string          `json:"messageId"`         // the activity message
	ActivityType string          `json:"activityType"`      // the activity's kind, e.g. "PLAN"
	Content      json.RawMessage `json:"content"`           // a JSON object
	Replace      *bool           `json:"replace,omitempty"` // false keeps an existing activity; nil = true
}

// ActivityDelta is ACTIVITY_DELTA: a JSON Patch (array) on an activity's content.
type ActivityDelta struct {
	Base
	Attribution
	MessageID    string          `json:"messageId"`    // the activity message
	ActivityType string          `json:"activityType"` // the activity's kind
	Patch        json.RawMessage `json:"patch"`        // a JSON array of RFC 6902 operations on Content
}

// ---------------------------------------------------------------------------
// Special (§3.5)

// Raw is RAW: an upstream event passed through. Event is any JSON, null included.
type Raw struct {
	Base
	Attribution
	Event  json.RawMessage `json:"event"`            // the upstream event; any JSON, null included
	Source *string         `json:"source,omitempty"` // where the event comes from, e.g. "openai"; nil when absent
}

// Custom is CUSTOM: an application event. Value is any JSON, null included.
type Custom struct {
	Base
	Attribution
	Name  string          `json:"name"`  // the application's event name
	Value json.RawMessage `json:"value"` // any JSON, null included
}

// ---------------------------------------------------------------------------
// Reasoning (§3.6)

// ReasoningStart is REASONING_START: a reasoning span opens. MessageID is the span id.
type ReasoningStart struct {
	Base
	Attribution
	MessageID string `json:"messageId"` // the span id
}

// ReasoningMessageStart is REASONING_MESSAGE_START. Role is always "reasoning".
type ReasoningMessageStart struct {
	Base
	Attribution
	MessageID string `json:"messageId"` // the reasoning message
	Role      Role   `json:"role"`      // always RoleReasoning
}

// ReasoningMessageContent is REASONING_MESSAGE_CONTENT.
type ReasoningMessageContent struct {
	Base
	Attribution
	MessageID string `json:"messageId"` // the open reasoning message
	Delta     string `json:"delta"`     // reasoning text to append; may be empty
}

// ReasoningMessageEnd is REASONING_MESSAGE_END.
type ReasoningMessageEnd struct {
	Base
	Attribution
	MessageID string `json:"messageId"` // the reasoning message that ends
}

// ReasoningMessageChunk is REASONING_MESSAGE_CHUNK (docs/protocol.md §4).
type ReasoningMessageChunk struct {
	Base
	Attribution
	MessageID *string `json:"messageId,omitempty"` // the message; nil continues the lane's open one
	Delta     *string `json:"delta,omitempty"`     // text to append; nil when absent
}

// ReasoningEnd is REASONING_END: the span MessageID closes.
type ReasoningEnd struct {
	Base
	Attribution
	MessageID string `json:"messageId"` // the span that closes
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
	Subtype        string `json:"subtype"`        // EncryptedToolCall or EncryptedMessage
	EntityID       string `json:"entityId"`       // the tool call or message the value belongs to
	EncryptedValue string `json:"encryptedValue"` // the opaque value
}

// ---------------------------------------------------------------------------
// Subagent lifecycle (§3.7): the id is identity, required.

// SubagentStarted is SUBAGENT_STARTED: it announces the invocation ID.
// ParentSubagentRunID nil means the parent agent spawned it.
type SubagentStarted struct {
	Base
	ID                  string  `json:"subagentRunId"`                 // the invocation (wire subagentRunId)
	Name                string  `json:"name"`                          // the subagent's reusable name, for display
	Description         *string `json:"description,omitempty"`         // nil when absent
	ParentSubagentRunID *string `json:"parentSubagentRunId,omitempty"` // the invocation that spawned this one; nil = the parent agent
	ParentToolCallID    *string `json:"parentToolCallId,omitempty"`    // the tool call that spawned it; nil when absent
	ParentMessageID     *string `json:"parentMessageId,omitempty"`     // the message that spawned it; nil when absent
}

// SubagentFinished is SUBAGENT_FINISHED: the invocation's segment ended.
// Outcome nil means success.
type SubagentFinished struct {
	Base
	ID      string           `json:"subagentRunId"`     // the invocation (wire subagentRunId)
	Result  json.RawMessage  `json:"result,omitempty"`  // any JSON but null; nil = absent
	Outcome *SubagentOutcome `json:"outcome,omitempty"` // nil = success
}

// SubagentError is SUBAGENT_ERROR: the invocation failed; the run goes on.
type SubagentError struct {
	Base
	ID      string  `json:"subagentRunId"`  // the invocation (wire subagentRunId)
	Message string  `json:"message"`        // what went wrong
	Code    *string `json:"code,omitempty"` // nil when absent
}

// SubagentRunID returns the invocation id, which the lifecycle types always carry.
func (e *SubagentStarted) SubagentRunID() (string, bool) { return e.ID, true }

// SubagentRunID returns the invocation id, which the lifecycle types always carry.
func (e *SubagentFinished) SubagentRunID() (string, bool) { return e.ID, true }

// SubagentRunID returns the invocation id, which the lifecycle types always carry.
func (e *SubagentError) SubagentRunID() (string, bool) { return e.ID, true }

// ---------------------------------------------------------------------------
// Deprecated THINKING_* (§3.8). Not among the 24 attributable types, but a
// subagentRunId on one is carried to the REASONING_* event it translates to
// and verified like any tag (docs/protocol.md G22).

// ThinkingStart is the deprecated THINKING_START (now REASONING_START).
type ThinkingStart struct {
	Base
	Attribution
	Title *string `json:"title,omitempty"` // nil when absent
}

// ThinkingEnd is the deprecated THINKING_END (now REASONING_END).
type ThinkingEnd struct {
	Base
	Attribution
}

// ThinkingTextMessageStart is the deprecated THINKING_TEXT_MESSAGE_START (now REASONING_MESSAGE_START).
type ThinkingTextMessageStart struct {
	Base
	Attribution
}

// ThinkingTextMessageContent is the deprecated THINKING_TEXT_MESSAGE_CONTENT (now REASONING_MESSAGE_CONTENT).
type ThinkingTextMessageContent struct {
	Base
	Attribution
	Delta string `json:"delta"` // thinking text to append
}

// ThinkingTextMessageEnd is the deprecated THINKING_TEXT_MESSAGE_END (now REASONING_MESSAGE_END).
type ThinkingTextMessageEnd struct {
	Base
	Attribution
}

// EventType returns the wire type of RunStarted events.
func (*RunStarted) EventType() Type { return TypeRunStarted }

// EventType returns the wire type of RunFinished events.
func (*RunFinished) EventType() Type { return TypeRunFinished }

// EventType returns the wire type of RunError events.
func (*RunError) EventType() Type { return TypeRunError }

// EventType returns the wire type of StepStarted events.
func (*StepStarted) EventType() Type { return TypeStepStarted }

// EventType returns the wire type of StepFinished events.
func (*StepFinished) EventType() Type { return TypeStepFinished }

// EventType returns the wire type of TextMessageStart events.
func (*TextMessageStart) EventType() Type { return TypeTextMessageStart }

// EventType returns the wire type of TextMessageContent events.
func (*TextMessageContent) EventType() Type { return TypeTextMessageContent }

// EventType returns the wire type of TextMessageEnd events.
func (*TextMessageEnd) EventType() Type { return TypeTextMessageEnd }

// EventType returns the wire type of TextMessageChunk events.
func (*TextMessageChunk) EventType() Type { return TypeTextMessageChunk }

// EventType returns the wire type of ToolCallStart events.
func (*ToolCallStart) EventType() Type { return TypeToolCallStart }

// EventType returns the wire type of ToolCallArgs events.
func (*ToolCallArgs) EventType() Type { return TypeToolCallArgs }

// EventType returns the wire type of ToolCallEnd events.
func (*ToolCallEnd) EventType() Type { return TypeToolCallEnd }

// EventType returns the wire type of ToolCallChunk events.
func (*ToolCallChunk) EventType() Type { return TypeToolCallChunk }

// EventType returns the wire type of ToolCallResult events.
func (*ToolCallResult) EventType() Type { return TypeToolCallResult }

// EventType returns the wire type of StateSnapshot events.
func (*StateSnapshot) EventType() Type { return TypeStateSnapshot }

// EventType returns the wire type of StateDelta events.
func (*StateDelta) EventType() Type { return TypeStateDelta }

// EventType returns the wire type of MessagesSnapshot events.
func (*MessagesSnapshot) EventType() Type { return TypeMessagesSnapshot }

// EventType returns the wire type of ActivitySnapshot events.
func (*ActivitySnapshot) EventType() Type { return TypeActivitySnapshot }

// EventType returns the wire type of ActivityDelta events.
func (*ActivityDelta) EventType() Type { return TypeActivityDelta }

// EventType returns the wire type of Raw events.
func (*Raw) EventType() Type { return TypeRaw }

// EventType returns the wire type of Custom events.
func (*Custom) EventType() Type { return TypeCustom }

// EventType returns the wire type of ReasoningStart events.
func (*ReasoningStart) EventType() Type { return TypeReasoningStart }

// EventType returns the wire type of ReasoningMessageStart events.
func (*ReasoningMessageStart) EventType() Type { return TypeReasoningMessageStart }

// EventType returns the wire type of ReasoningMessageContent events.
func (*ReasoningMessageContent) EventType() Type { return TypeReasoningMessageContent }

// EventType returns the wire type of ReasoningMessageEnd events.
func (*ReasoningMessageEnd) EventType() Type { return TypeReasoningMessageEnd }

// EventType returns the wire type of ReasoningMessageChunk events.
func (*ReasoningMessageChunk) EventType() Type { return TypeReasoningMessageChunk }

// EventType returns the wire type of ReasoningEnd events.
func (*ReasoningEnd) EventType() Type { return TypeReasoningEnd }

// EventType returns the wire type of ReasoningEncryptedValue events.
func (*ReasoningEncryptedValue) EventType() Type { return TypeReasoningEncryptedValue }

// EventType returns the wire type of SubagentStarted events.
func (*SubagentStarted) EventType() Type { return TypeSubagentStarted }

// EventType returns the wire type of SubagentFinished events.
func (*SubagentFinished) EventType() Type { return TypeSubagentFinished }

// EventType returns the wire type of SubagentError events.
func (*SubagentError) EventType() Type { return TypeSubagentError }

// EventType returns the wire type of ThinkingStart events.
func (*ThinkingStart) EventType() Type { return TypeThinkingStart }

// EventType returns the wire type of ThinkingEnd events.
func (*ThinkingEnd) EventType() Type { return TypeThinkingEnd }

// EventType returns the wire type of ThinkingTextMessageStart events.
func (*ThinkingTextMessageStart) EventType() Type {
	return TypeThinkingTextMessageStart
}

// EventType returns the wire type of ThinkingTextMessageContent events.
func (*ThinkingTextMessageContent) EventType() Type {
	return TypeThinkingTextMessageContent
}

// EventType returns the wire type of ThinkingTextMessageEnd events.
func (*ThinkingTextMessageEnd) EventType() Type { return TypeThinkingTextMessageEnd }
