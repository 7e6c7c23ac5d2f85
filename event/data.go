package event

import "encoding/json"

// Role is a message role.
type Role string

// Message roles (docs/protocol.md §3.9).
const (
	RoleDeveloper Role = "developer"
	RoleSystem    Role = "system"
	RoleAssistant Role = "assistant"
	RoleUser      Role = "user"
	RoleTool      Role = "tool"
	RoleActivity  Role = "activity"
	RoleReasoning Role = "reasoning"
)

// Message is an AG-UI message of any role, as carried by MESSAGES_SNAPSHOT,
// RunAgentInput.messages and the view's message list. Which fields a role
// allows is checked when decoding (docs/protocol.md §3.9); encoding writes only the
// fields that are set.
type Message struct {
	ID   string `json:"id"`   // the message id; one id names one message
	Role Role   `json:"role"` // the role, which decides the fields allowed
	// Content is the raw JSON content: a string for developer, system,
	// assistant and reasoning messages; a string or an array of content parts
	// for user and tool messages; an object for activity messages. nil = absent
	// (only an assistant message may omit it).
	Content json.RawMessage `json:"content,omitempty"`
	// Name is the author's name (developer, system, assistant, user).
	Name *string `json:"name,omitempty"`
	// ToolCalls are an assistant message's tool calls; nil = absent.
	ToolCalls []ToolCall `json:"toolCalls,omitzero"`
	// ToolCallID is the call a tool message answers.
	ToolCallID *string `json:"toolCallId,omitempty"`
	// Error is a tool message's error text.
	Error *string `json:"error,omitempty"`
	// ActivityType is an activity message's type.
	ActivityType *string `json:"activityType,omitempty"`
	// EncryptedValue is an opaque value set by REASONING_ENCRYPTED_VALUE.
	EncryptedValue *string `json:"encryptedValue,omitempty"`
	// Subagent is the invocation that produced the message; nil = the parent agent.
	Subagent *string `json:"subagentRunId,omitempty"`
	// Metadata is a JSON object; nil = absent.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// SubagentRunID returns the message's attribution and whether it has one.
func (m *Message) SubagentRunID() (string, bool) {
	if m.Subagent == nil {
		return "", false
	}
	return *m.Subagent, true
}

// ToolCall is a function call held by an assistant message. It has no
// attribution of its own: it inherits its message's.
type ToolCall struct {
	ID             string          `json:"id"`                       // the call id
	Type           string          `json:"type"`                     // always "function"
	Function       FunctionCall    `json:"function"`                 // the function called and its arguments
	EncryptedValue *string         `json:"encryptedValue,omitempty"` // set by REASONING_ENCRYPTED_VALUE; nil when absent
	Metadata       json.RawMessage `json:"metadata,omitempty"`       // a JSON object; nil when absent
}

// FunctionCall names the function of a ToolCall and carries its arguments as
// the JSON text streamed by TOOL_CALL_ARGS.
type FunctionCall struct {
	Name      string `json:"name"`      // the tool name
	Arguments string `json:"arguments"` // the JSON arguments text
}

// ContentPart is one element of an array content: {type:"text", text} or a
// media part {type:"image"|"audio"|"video"|"document", source}.
type ContentPart struct {
	Type     string          `json:"type"`               // "text", "image", "audio", "video" or "document"
	Text     *string         `json:"text,omitempty"`     // a text part's text
	Source   json.RawMessage `json:"source,omitempty"`   // a media part's source object: {type:"data"|"url"|"file", value, …}
	ID       *string         `json:"id,omitempty"`       // nil when absent
	Metadata json.RawMessage `json:"metadata,omitempty"` // a JSON object; nil when absent
}

// Interrupt is a request for outside input carried by an interrupt outcome.
// Subagent names the invocation that raised it; nil = the parent agent.
type Interrupt struct {
	ID             string          `json:"id"`                       // the interrupt, answered by ResumeEntry.InterruptID
	Reason         string          `json:"reason"`                   // tool_call, input_required, confirmation or any other string
	Message        *string         `json:"message,omitempty"`        // for the user; nil when absent
	ToolCallID     *string         `json:"toolCallId,omitempty"`     // the call awaiting the answer; nil when absent
	ResponseSchema json.RawMessage `json:"responseSchema,omitempty"` // a JSON Schema object for the answer; nil when absent
	ExpiresAt      *string         `json:"expiresAt,omitempty"`      // an ISO 8601 time by convention; nil when absent
	Metadata       json.RawMessage `json:"metadata,omitempty"`       // a JSON object; nil when absent
	Subagent       *string         `json:"subagentRunId,omitempty"`  // the invocation that raised it; nil = the parent agent
}

// RUN_FINISHED outcome types.
const (
	OutcomeSuccess   = "success"
	OutcomeInterrupt = "interrupt"
	OutcomeCancelled = "cancelled"
)

// RunFinishedOutcome is RUN_FINISHED.outcome: {type:"success",
// pendingToolCallIds?}, {type:"interrupt", interrupts} (at least one) or
// {type:"cancelled"}. An unknown type decodes as success with a warning (G2).
type RunFinishedOutcome struct {
	Type               string      `json:"type"`                        // OutcomeSuccess, OutcomeInterrupt or OutcomeCancelled
	PendingToolCallIDs []string    `json:"pendingToolCallIds,omitzero"` // success only; nil = absent
	Interrupts         []Interrupt `json:"interrupts,omitzero"`         // interrupt only; at least one
}

// SUBAGENT_FINISHED outcome types.
const (
	SubagentSuccess   = "success"
	SubagentSuspended = "suspended"
)

// SubagentOutcome is SUBAGENT_FINISHED.outcome: {type:"success"} or
// {type:"suspended", interruptIds?}. Decoding keeps any type string (a
// missing or null type decodes as ""): the reducer rejects what R14 forbids.
// InterruptIDs nil means absent; an empty non-nil slice encodes as [].
type SubagentOutcome struct {
	Type         string   `json:"type"`                  // SubagentSuccess or SubagentSuspended when valid (R14)
	InterruptIDs []string `json:"interruptIds,omitzero"` // suspended only: the run-level interrupts raised by this invocation
}

// TokenUsage reports token counts; every field is optional (nil when
// absent) and every count is a non-negative safe integer.
type TokenUsage struct {
	Provider              *string `json:"provider,omitempty"`              // the model provider, e.g. "openai"
	Model                 *string `json:"model,omitempty"`                 // the model
	InputTokens           *int64  `json:"inputTokens,omitempty"`           // tokens read
	OutputTokens          *int64  `json:"outputTokens,omitempty"`          // tokens written
	TotalTokens           *int64  `json:"totalTokens,omitempty"`           // input plus output, as reported
	ReasoningTokens       *int64  `json:"reasoningTokens,omitempty"`       // output tokens spent reasoning
	CachedInputTokens     *int64  `json:"cachedInputTokens,omitempty"`     // input tokens served from a cache
	CacheWriteInputTokens *int64  `json:"cacheWriteInputTokens,omitempty"` // input tokens written to a cache
}

// Tool describes a tool the client offers the agent.
type Tool struct {
	Name        string          `json:"name"`                 // the tool's name
	Description string          `json:"description"`          // what the tool does, for the model
	Parameters  json.RawMessage `json:"parameters,omitempty"` // JSON Schema
	Metadata    json.RawMessage `json:"metadata,omitempty"`   // a JSON object; nil when absent
}

// Context is a piece of context the client gives the agent.
type Context struct {
	Description string `json:"description"` // what the value is
	Value       string `json:"value"`       // the context text
}

// Resume statuses.
const (
	ResumeResolved  = "resolved"
	ResumeCancelled = "cancelled"
)

// ResumeEntry answers one pending interrupt in the next run's input.
type ResumeEntry struct {
	InterruptID string          `json:"interruptId"`        // the interrupt answered
	Status      string          `json:"status"`             // ResumeResolved or ResumeCancelled
	Payload     json.RawMessage `json:"payload,omitempty"`  // the answer; any JSON but null; nil when absent
	Metadata    json.RawMessage `json:"metadata,omitempty"` // a JSON object; nil when absent
}

// RunAgentInput is the body a client POSTs to start a run (docs/protocol.md §3.9).
// Tools and Context encode as [] when nil, as the reference client sends them.
type RunAgentInput struct {
	ThreadID        string          `json:"threadId"`                  // the conversation thread
	RunID           string          `json:"runId"`                     // the run to start
	ParentRunID     *string         `json:"parentRunId,omitempty"`     // nil when absent
	ProtocolVersion *string         `json:"protocolVersion,omitempty"` // e.g. "1.0"; nil when absent
	State           json.RawMessage `json:"state,omitempty"`           // the state document; nil when absent
	Messages        []Message       `json:"messages"`                  // the history (activity messages are never sent)
	Tools           []Tool          `json:"tools"`                     // the tools offered; nil and empty are the same
	Context         []Context       `json:"context"`                   // context for the agent; nil and empty are the same
	ForwardedProps  json.RawMessage `json:"forwardedProps,omitempty"`  // any JSON, passed through to the agent; nil when absent
	Resume          []ResumeEntry   `json:"resume,omitzero"`           // answers to pending interrupts; nil = absent
}
