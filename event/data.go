package event

import "encoding/json"

// Role is a message role.
type Role string

// Message roles (PROTOCOL.md §3.9).
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
// allows is checked when decoding (PROTOCOL.md §3.9); encoding writes only the
// fields that are set.
type Message struct {
	ID   string `json:"id"`
	Role Role   `json:"role"`
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
	ID             string          `json:"id"`
	Type           string          `json:"type"` // always "function"
	Function       FunctionCall    `json:"function"`
	EncryptedValue *string         `json:"encryptedValue,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
}

// FunctionCall names the function of a ToolCall and carries its arguments as
// the JSON text streamed by TOOL_CALL_ARGS.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ContentPart is one element of an array content: {type:"text", text} or a
// media part {type:"image"|"audio"|"video"|"document", source}.
type ContentPart struct {
	Type     string          `json:"type"`
	Text     *string         `json:"text,omitempty"`
	Source   json.RawMessage `json:"source,omitempty"`
	ID       *string         `json:"id,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// Interrupt is a request for outside input carried by an interrupt outcome.
// Subagent names the invocation that raised it; nil = the parent agent.
type Interrupt struct {
	ID             string          `json:"id"`
	Reason         string          `json:"reason"`
	Message        *string         `json:"message,omitempty"`
	ToolCallID     *string         `json:"toolCallId,omitempty"`
	ResponseSchema json.RawMessage `json:"responseSchema,omitempty"`
	ExpiresAt      *string         `json:"expiresAt,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
	Subagent       *string         `json:"subagentRunId,omitempty"`
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
	Type               string      `json:"type"`
	PendingToolCallIDs []string    `json:"pendingToolCallIds,omitzero"`
	Interrupts         []Interrupt `json:"interrupts,omitzero"`
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
	Type         string   `json:"type"`
	InterruptIDs []string `json:"interruptIds,omitzero"`
}

// TokenUsage reports token counts; every field is optional.
type TokenUsage struct {
	Provider              *string `json:"provider,omitempty"`
	Model                 *string `json:"model,omitempty"`
	InputTokens           *int64  `json:"inputTokens,omitempty"`
	OutputTokens          *int64  `json:"outputTokens,omitempty"`
	TotalTokens           *int64  `json:"totalTokens,omitempty"`
	ReasoningTokens       *int64  `json:"reasoningTokens,omitempty"`
	CachedInputTokens     *int64  `json:"cachedInputTokens,omitempty"`
	CacheWriteInputTokens *int64  `json:"cacheWriteInputTokens,omitempty"`
}

// Tool describes a tool the client offers the agent.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // JSON Schema
	Metadata    json.RawMessage `json:"metadata,omitempty"`
}

// Context is a piece of context the client gives the agent.
type Context struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

// Resume statuses.
const (
	ResumeResolved  = "resolved"
	ResumeCancelled = "cancelled"
)

// ResumeEntry answers one pending interrupt in the next run's input.
type ResumeEntry struct {
	InterruptID string          `json:"interruptId"`
	Status      string          `json:"status"` // ResumeResolved or ResumeCancelled
	Payload     json.RawMessage `json:"payload,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
}

// RunAgentInput is the body a client POSTs to start a run (PROTOCOL.md §3.9).
// Tools and Context encode as [] when nil, as the reference client sends them.
type RunAgentInput struct {
	ThreadID        string          `json:"threadId"`
	RunID           string          `json:"runId"`
	ParentRunID     *string         `json:"parentRunId,omitempty"`
	ProtocolVersion *string         `json:"protocolVersion,omitempty"`
	State           json.RawMessage `json:"state,omitempty"`
	Messages        []Message       `json:"messages"`
	Tools           []Tool          `json:"tools"`
	Context         []Context       `json:"context"`
	ForwardedProps  json.RawMessage `json:"forwardedProps,omitempty"`
	Resume          []ResumeEntry   `json:"resume,omitzero"`
}
