package event

// Each event type marshals through Encode and unmarshals through Decode, so
// json.Marshal and json.Unmarshal on an event give the wire form and apply
// the same checks. Unmarshalling JSON of another type into an event is a
// *DecodeError at "/type".

// MarshalJSON returns Encode(e).
func (e *RunStarted) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a RunStarted event.
func (e *RunStarted) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *RunFinished) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a RunFinished event.
func (e *RunFinished) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *RunError) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a RunError event.
func (e *RunError) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *StepStarted) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a StepStarted event.
func (e *StepStarted) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *StepFinished) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a StepFinished event.
func (e *StepFinished) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *TextMessageStart) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a TextMessageStart event.
func (e *TextMessageStart) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *TextMessageContent) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a TextMessageContent event.
func (e *TextMessageContent) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *TextMessageEnd) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a TextMessageEnd event.
func (e *TextMessageEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *TextMessageChunk) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a TextMessageChunk event.
func (e *TextMessageChunk) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ToolCallStart) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ToolCallStart event.
func (e *ToolCallStart) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ToolCallArgs) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ToolCallArgs event.
func (e *ToolCallArgs) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ToolCallEnd) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ToolCallEnd event.
func (e *ToolCallEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ToolCallChunk) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ToolCallChunk event.
func (e *ToolCallChunk) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ToolCallResult) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ToolCallResult event.
func (e *ToolCallResult) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *StateSnapshot) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a StateSnapshot event.
func (e *StateSnapshot) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *StateDelta) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a StateDelta event.
func (e *StateDelta) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *MessagesSnapshot) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a MessagesSnapshot event.
func (e *MessagesSnapshot) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ActivitySnapshot) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ActivitySnapshot event.
func (e *ActivitySnapshot) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ActivityDelta) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ActivityDelta event.
func (e *ActivityDelta) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *Raw) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a Raw event.
func (e *Raw) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *Custom) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a Custom event.
func (e *Custom) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ReasoningStart) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ReasoningStart event.
func (e *ReasoningStart) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ReasoningMessageStart) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ReasoningMessageStart event.
func (e *ReasoningMessageStart) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ReasoningMessageContent) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ReasoningMessageContent event.
func (e *ReasoningMessageContent) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ReasoningMessageEnd) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ReasoningMessageEnd event.
func (e *ReasoningMessageEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ReasoningMessageChunk) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ReasoningMessageChunk event.
func (e *ReasoningMessageChunk) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ReasoningEnd) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ReasoningEnd event.
func (e *ReasoningEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ReasoningEncryptedValue) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ReasoningEncryptedValue event.
func (e *ReasoningEncryptedValue) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *SubagentStarted) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a SubagentStarted event.
func (e *SubagentStarted) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *SubagentFinished) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a SubagentFinished event.
func (e *SubagentFinished) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *SubagentError) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a SubagentError event.
func (e *SubagentError) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ThinkingStart) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ThinkingStart event.
func (e *ThinkingStart) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ThinkingEnd) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ThinkingEnd event.
func (e *ThinkingEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ThinkingTextMessageStart) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ThinkingTextMessageStart event.
func (e *ThinkingTextMessageStart) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ThinkingTextMessageContent) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ThinkingTextMessageContent event.
func (e *ThinkingTextMessageContent) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }

// MarshalJSON returns Encode(e).
func (e *ThinkingTextMessageEnd) MarshalJSON() ([]byte, error) { return Encode(e) }

// UnmarshalJSON decodes data with Decode; it must hold a ThinkingTextMessageEnd event.
func (e *ThinkingTextMessageEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(data, e) }
