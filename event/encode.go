package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/agview/agview/internal/jsonstr"
)

// Encode returns the wire JSON of e: one compact JSON object, "type" first.
//
// Absent optional fields (nil pointers, nil raw values, nil optional slices)
// are left out, never written as null; an optional raw value holding the JSON
// literal null is left out too, since the protocol means absent by it. The
// required payloads that may be null (STATE_SNAPSHOT.snapshot, RAW.event,
// CUSTOM.value) are written as null when nil. RunAgentInput's messages, tools
// and context are written as [] when nil.
//
// Encode checks that raw JSON values are well-formed and of the JSON type the
// protocol requires (an object for metadata and activity content, an array
// for STATE_DELTA.delta and ACTIVITY_DELTA.patch), returning *EncodeError
// otherwise; it does not check the protocol's other rules, which Decode does.
// For every event Decode returns, Decode(Encode(e)) equals e up to the
// formatting of its raw values and its warnings.
func Encode(e Event) ([]byte, error) {
	if e == nil {
		return nil, &EncodeError{Reason: "nil event"}
	}
	w := &encoder{typ: e.EventType()}
	e.encode(w)
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

// EncodeError reports an event Encode cannot write: a raw JSON value that is
// not well-formed or not of the JSON type the protocol requires.
type EncodeError struct {
	// Type is the event's type, "" for a nil event or a RunAgentInput.
	Type Type
	// Pointer is the JSON pointer of the offending field, e.g. "/delta".
	Pointer string
	// Reason says what is wrong.
	Reason string
}

// Error returns the type, pointer and reason.
func (e *EncodeError) Error() string {
	t := string(e.Type)
	if t == "" {
		t = "event"
	}
	if e.Pointer == "" {
		return "encode " + t + ": " + e.Reason
	}
	return "encode " + t + " " + e.Pointer + ": " + e.Reason
}

// encoder appends compact JSON to b, tracking the JSON pointer of the member
// being written for errors.
type encoder struct {
	b     []byte
	typ   Type
	first bool   // no member written yet in the current object
	path  []byte // JSON pointer of the current object
	err   *EncodeError
	// lenient writes raw members of any JSON type (Message.MarshalJSON).
	lenient bool
}

func (w *encoder) open() {
	w.b = append(w.b, '{')
	w.first = true
}

func (w *encoder) close() {
	w.b = append(w.b, '}')
	w.first = false
}

func (w *encoder) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = jsonstr.Append(w.b, k, jsonstr.Go)
	w.b = append(w.b, ':')
}

// nest writes member k as an object built by fn.
func (w *encoder) nest(k string, fn func()) {
	w.key(k)
	n := len(w.path)
	w.path = append(append(w.path, '/'), escapePointer(k)...)
	w.open()
	fn()
	w.close()
	w.path = w.path[:n]
}

// list writes member k as an array of n elements written by fn.
func (w *encoder) list(k string, n int, fn func(i int)) {
	w.key(k)
	w.b = append(w.b, '[')
	base := len(w.path)
	w.path = append(append(w.path, '/'), escapePointer(k)...)
	for i := 0; i < n; i++ {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		m := len(w.path)
		w.path = strconv.AppendInt(append(w.path, '/'), int64(i), 10)
		fn(i)
		w.path = w.path[:m]
	}
	w.b = append(w.b, ']')
	w.path = w.path[:base]
	w.first = false
}

func (w *encoder) begin(t Type) {
	w.open()
	w.str("type", string(t))
}

func (w *encoder) str(k, v string) {
	w.key(k)
	w.b = jsonstr.Append(w.b, v, jsonstr.Go)
}

func (w *encoder) optStr(k string, v *string) {
	if v != nil {
		w.str(k, *v)
	}
}

func (w *encoder) optRole(k string, v *Role) {
	if v != nil {
		w.str(k, string(*v))
	}
}

func (w *encoder) optInt(k string, v *int64) {
	if v != nil {
		w.key(k)
		w.b = strconv.AppendInt(w.b, *v, 10)
	}
}

func (w *encoder) optBool(k string, v *bool) {
	if v != nil {
		w.key(k)
		w.b = strconv.AppendBool(w.b, *v)
	}
}

// strs writes an optional string list: nil is absent, empty is [].
func (w *encoder) strs(k string, v []string) {
	if v == nil {
		return
	}
	w.list(k, len(v), func(i int) { w.b = jsonstr.Append(w.b, v[i], jsonstr.Go) })
}

// raw writes a required raw value; nil is written as null, which must be
// allowed by want.
func (w *encoder) raw(k string, v json.RawMessage, want kind) {
	if v == nil {
		v = json.RawMessage("null")
	}
	w.key(k)
	w.rawValue(k, v, want)
}

// optRaw writes an optional raw value; nil and null are absent.
func (w *encoder) optRaw(k string, v json.RawMessage, want kind) {
	if v == nil || isNullLiteral(v) {
		return
	}
	w.key(k)
	w.rawValue(k, v, want)
}

func (w *encoder) rawValue(k string, v json.RawMessage, want kind) {
	buf := bytes.NewBuffer(w.b)
	n := buf.Len()
	if err := json.Compact(buf, v); err != nil {
		w.fail(k, "not valid JSON: "+err.Error())
		w.b = append(buf.Bytes()[:n], "null"...)
		return
	}
	w.b = buf.Bytes()
	if got := kindOf(w.b[n:]); got&want == 0 && !w.lenient {
		w.fail(k, "want "+want.String()+", got "+got.String())
	}
}

func (w *encoder) fail(k, reason string) {
	if w.err == nil {
		w.err = &EncodeError{Type: w.typ, Pointer: string(w.path) + "/" + escapePointer(k), Reason: reason}
	}
}

func isNullLiteral(v []byte) bool {
	v = bytes.TrimSpace(v)
	return string(v) == "null"
}

// base writes the fields every event may carry, then closes the object.
func (w *encoder) end(b *Base) {
	w.optInt("timestamp", b.Timestamp)
	w.optRaw("rawEvent", b.RawEvent, kindAny)
	w.optRaw("metadata", b.Metadata, kindObject)
	w.close()
}

func (w *encoder) tag(a *Attribution) { w.optStr("subagentRunId", a.Subagent) }

// ---------------------------------------------------------------------------
// Data types

func (w *encoder) message(m *Message) {
	w.open()
	w.str("id", m.ID)
	w.str("role", string(m.Role))
	want := kindString | kindArray
	if m.Role == RoleActivity {
		want = kindObject
	}
	w.optRaw("content", m.Content, want)
	w.optStr("name", m.Name)
	if m.ToolCalls != nil {
		w.list("toolCalls", len(m.ToolCalls), func(i int) { w.toolCall(&m.ToolCalls[i]) })
	}
	w.optStr("toolCallId", m.ToolCallID)
	w.optStr("error", m.Error)
	w.optStr("activityType", m.ActivityType)
	w.optStr("encryptedValue", m.EncryptedValue)
	w.optStr("subagentRunId", m.Subagent)
	w.optRaw("metadata", m.Metadata, kindObject)
	w.close()
}

// MarshalJSON writes the message as the reference client does (the form of
// MESSAGES_SNAPSHOT and RunAgentInput): absent optional fields left out, and
// strings exactly as they are (docs/protocol.md G19: a lone surrogate as its
// escape, where encoding/json's struct encoding writes U+FFFD). Raw members
// are written whatever their JSON type; invalid JSON in one is an error.
func (m Message) MarshalJSON() ([]byte, error) {
	w := &encoder{lenient: true}
	w.message(&m)
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

func (w *encoder) messages(k string, ms []Message) {
	w.list(k, len(ms), func(i int) { w.message(&ms[i]) })
}

func (w *encoder) toolCall(tc *ToolCall) {
	w.open()
	w.str("id", tc.ID)
	w.str("type", tc.Type)
	w.nest("function", func() {
		w.str("name", tc.Function.Name)
		w.str("arguments", tc.Function.Arguments)
	})
	w.optStr("encryptedValue", tc.EncryptedValue)
	w.optRaw("metadata", tc.Metadata, kindObject)
	w.close()
}

func (w *encoder) contentPart(p *ContentPart) {
	w.open()
	w.str("type", p.Type)
	w.optStr("text", p.Text)
	w.optRaw("source", p.Source, kindObject)
	w.optStr("id", p.ID)
	w.optRaw("metadata", p.Metadata, kindObject)
	w.close()
}

func (w *encoder) interrupt(in *Interrupt) {
	w.open()
	w.str("id", in.ID)
	w.str("reason", in.Reason)
	w.optStr("message", in.Message)
	w.optStr("toolCallId", in.ToolCallID)
	w.optRaw("responseSchema", in.ResponseSchema, kindObject)
	w.optStr("expiresAt", in.ExpiresAt)
	w.optRaw("metadata", in.Metadata, kindObject)
	w.optStr("subagentRunId", in.Subagent)
	w.close()
}

func (w *encoder) usage(u []TokenUsage) {
	if u == nil {
		return
	}
	w.list("usage", len(u), func(i int) {
		t := &u[i]
		w.open()
		w.optStr("provider", t.Provider)
		w.optStr("model", t.Model)
		w.optInt("inputTokens", t.InputTokens)
		w.optInt("outputTokens", t.OutputTokens)
		w.optInt("totalTokens", t.TotalTokens)
		w.optInt("reasoningTokens", t.ReasoningTokens)
		w.optInt("cachedInputTokens", t.CachedInputTokens)
		w.optInt("cacheWriteInputTokens", t.CacheWriteInputTokens)
		w.close()
	})
}

// input writes in with its members in the order the reference client's
// prepareRunAgentInput builds them, so that JSON.stringify of the
// reference's input and this encoding are the same bytes (PROTOCOL.md §2.1):
// threadId, runId, protocolVersion, tools, context, forwardedProps, state,
// messages, resume (parentRunId, which the reference never sets, after
// runId).
func (w *encoder) input(in *RunAgentInput) {
	w.open()
	w.str("threadId", in.ThreadID)
	w.str("runId", in.RunID)
	w.optStr("parentRunId", in.ParentRunID)
	w.optStr("protocolVersion", in.ProtocolVersion)
	w.list("tools", len(in.Tools), func(i int) {
		t := &in.Tools[i]
		w.open()
		w.str("name", t.Name)
		w.str("description", t.Description)
		w.optRaw("parameters", t.Parameters, kindAny)
		w.optRaw("metadata", t.Metadata, kindObject)
		w.close()
	})
	w.list("context", len(in.Context), func(i int) {
		w.open()
		w.str("description", in.Context[i].Description)
		w.str("value", in.Context[i].Value)
		w.close()
	})
	w.optRaw("forwardedProps", in.ForwardedProps, kindAny)
	w.optRaw("state", in.State, kindAny)
	w.messages("messages", in.Messages)
	if in.Resume != nil {
		w.list("resume", len(in.Resume), func(i int) {
			r := &in.Resume[i]
			w.open()
			w.str("interruptId", r.InterruptID)
			w.str("status", r.Status)
			w.optRaw("payload", r.Payload, kindAny)
			w.optRaw("metadata", r.Metadata, kindObject)
			w.close()
		})
	}
	w.close()
}

// MarshalJSON writes the input as the reference client sends it: absent
// optional fields left out, nil messages, tools and context as [].
func (in RunAgentInput) MarshalJSON() ([]byte, error) {
	w := &encoder{}
	w.input(&in)
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

// ---------------------------------------------------------------------------
// Events

func (e *RunStarted) encode(w *encoder) {
	w.begin(TypeRunStarted)
	w.str("threadId", e.ThreadID)
	w.str("runId", e.RunID)
	w.optStr("protocolVersion", e.ProtocolVersion)
	w.optStr("parentRunId", e.ParentRunID)
	if e.Input != nil {
		w.key("input")
		w.path = append(w.path, "/input"...)
		w.input(e.Input)
		w.path = w.path[:0]
	}
	w.end(&e.Base)
}

func (e *RunFinished) encode(w *encoder) {
	w.begin(TypeRunFinished)
	w.str("threadId", e.ThreadID)
	w.str("runId", e.RunID)
	w.optRaw("result", e.Result, kindAny)
	if o := e.Outcome; o != nil {
		w.nest("outcome", func() {
			w.str("type", o.Type)
			w.strs("pendingToolCallIds", o.PendingToolCallIDs)
			if o.Interrupts != nil {
				w.list("interrupts", len(o.Interrupts), func(i int) { w.interrupt(&o.Interrupts[i]) })
			}
		})
	}
	w.usage(e.Usage)
	w.end(&e.Base)
}

func (e *RunError) encode(w *encoder) {
	w.begin(TypeRunError)
	w.str("message", e.Message)
	w.optStr("code", e.Code)
	w.usage(e.Usage)
	w.end(&e.Base)
}

func (e *StepStarted) encode(w *encoder) {
	w.begin(TypeStepStarted)
	w.tag(&e.Attribution)
	w.str("stepName", e.StepName)
	w.end(&e.Base)
}

func (e *StepFinished) encode(w *encoder) {
	w.begin(TypeStepFinished)
	w.tag(&e.Attribution)
	w.str("stepName", e.StepName)
	w.end(&e.Base)
}

func (e *TextMessageStart) encode(w *encoder) {
	w.begin(TypeTextMessageStart)
	w.tag(&e.Attribution)
	w.str("messageId", e.MessageID)
	w.optRole("role", e.Role)
	w.optStr("name", e.Name)
	w.end(&e.Base)
}

func (e *TextMessageContent) encode(w *encoder) {
	w.begin(TypeTextMessageContent)
	w.tag(&e.Attribution)
	w.str("messageId", e.MessageID)
	w.str("delta", e.Delta)
	w.end(&e.Base)
}

func (e *TextMessageEnd) encode(w *encoder) {
	w.begin(TypeTextMessageEnd)
	w.tag(&e.Attribution)
	w.str("messageId", e.MessageID)
	w.end(&e.Base)
}

func (e *TextMessageChunk) encode(w *encoder) {
	w.begin(TypeTextMessageChunk)
	w.tag(&e.Attribution)
	w.optStr("messageId", e.MessageID)
	w.optRole("role", e.Role)
	w.optStr("delta", e.Delta)
	w.optStr("name", e.Name)
	w.end(&e.Base)
}

func (e *ToolCallStart) encode(w *encoder) {
	w.begin(TypeToolCallStart)
	w.tag(&e.Attribution)
	w.str("toolCallId", e.ToolCallID)
	w.str("toolCallName", e.ToolCallName)
	w.optStr("parentMessageId", e.ParentMessageID)
	w.end(&e.Base)
}

func (e *ToolCallArgs) encode(w *encoder) {
	w.begin(TypeToolCallArgs)
	w.tag(&e.Attribution)
	w.str("toolCallId", e.ToolCallID)
	w.str("delta", e.Delta)
	w.end(&e.Base)
}

func (e *ToolCallEnd) encode(w *encoder) {
	w.begin(TypeToolCallEnd)
	w.tag(&e.Attribution)
	w.str("toolCallId", e.ToolCallID)
	w.end(&e.Base)
}

func (e *ToolCallChunk) encode(w *encoder) {
	w.begin(TypeToolCallChunk)
	w.tag(&e.Attribution)
	w.optStr("toolCallId", e.ToolCallID)
	w.optStr("toolCallName", e.ToolCallName)
	w.optStr("parentMessageId", e.ParentMessageID)
	w.optStr("delta", e.Delta)
	w.end(&e.Base)
}

func (e *ToolCallResult) encode(w *encoder) {
	w.begin(TypeToolCallResult)
	w.tag(&e.Attribution)
	w.str("messageId", e.MessageID)
	w.str("toolCallId", e.ToolCallID)
	w.raw("content", e.Content, kindString|kindArray)
	w.optRole("role", e.Role)
	w.end(&e.Base)
}

func (e *StateSnapshot) encode(w *encoder) {
	w.begin(TypeStateSnapshot)
	w.tag(&e.Attribution)
	w.raw("snapshot", e.Snapshot, kindAny)
	w.end(&e.Base)
}

func (e *StateDelta) encode(w *encoder) {
	w.begin(TypeStateDelta)
	w.tag(&e.Attribution)
	w.raw("delta", e.Delta, kindArray)
	w.end(&e.Base)
}

func (e *MessagesSnapshot) encode(w *encoder) {
	w.begin(TypeMessagesSnapshot)
	w.messages("messages", e.Messages)
	w.end(&e.Base)
}

func (e *ActivitySnapshot) encode(w *encoder) {
	w.begin(TypeActivitySnapshot)
	w.tag(&e.Attribution)
	w.str("messageId", e.MessageID)
	w.str("activityType", e.ActivityType)
	w.raw("content", e.Content, kindObject)
	w.optBool("replace", e.Replace)
	w.end(&e.Base)
}

func (e *ActivityDelta) encode(w *encoder) {
	w.begin(TypeActivityDelta)
	w.tag(&e.Attribution)
	w.str("messageId", e.MessageID)
	w.str("activityType", e.ActivityType)
	w.raw("patch", e.Patch, kindArray)
	w.end(&e.Base)
}

func (e *Raw) encode(w *encoder) {
	w.begin(TypeRaw)
	w.tag(&e.Attribution)
	w.raw("event", e.Event, kindAny)
	w.optStr("source", e.Source)
	w.end(&e.Base)
}

func (e *Custom) encode(w *encoder) {
	w.begin(TypeCustom)
	w.tag(&e.Attribution)
	w.str("name", e.Name)
	w.raw("value", e.Value, kindAny)
	w.end(&e.Base)
}

func (e *ReasoningStart) encode(w *encoder) {
	w.begin(TypeReasoningStart)
	w.tag(&e.Attribution)
	w.str("messageId", e.MessageID)
	w.end(&e.Base)
}

func (e *ReasoningMessageStart) encode(w *encoder) {
	w.begin(TypeReasoningMessageStart)
	w.tag(&e.Attribution)
	w.str("messageId", e.MessageID)
	w.str("role", string(e.Role))
	w.end(&e.Base)
}

func (e *ReasoningMessageContent) encode(w *encoder) {
	w.begin(TypeReasoningMessageContent)
	w.tag(&e.Attribution)
	w.str("messageId", e.MessageID)
	w.str("delta", e.Delta)
	w.end(&e.Base)
}

func (e *ReasoningMessageEnd) encode(w *encoder) {
	w.begin(TypeReasoningMessageEnd)
	w.tag(&e.Attribution)
	w.str("messageId", e.MessageID)
	w.end(&e.Base)
}

func (e *ReasoningMessageChunk) encode(w *encoder) {
	w.begin(TypeReasoningMessageChunk)
	w.tag(&e.Attribution)
	w.optStr("messageId", e.MessageID)
	w.optStr("delta", e.Delta)
	w.end(&e.Base)
}

func (e *ReasoningEnd) encode(w *encoder) {
	w.begin(TypeReasoningEnd)
	w.tag(&e.Attribution)
	w.str("messageId", e.MessageID)
	w.end(&e.Base)
}

func (e *ReasoningEncryptedValue) encode(w *encoder) {
	w.begin(TypeReasoningEncryptedValue)
	w.tag(&e.Attribution)
	w.str("subtype", e.Subtype)
	w.str("entityId", e.EntityID)
	w.str("encryptedValue", e.EncryptedValue)
	w.end(&e.Base)
}

func (e *SubagentStarted) encode(w *encoder) {
	w.begin(TypeSubagentStarted)
	w.str("subagentRunId", e.ID)
	w.str("name", e.Name)
	w.optStr("description", e.Description)
	w.optStr("parentSubagentRunId", e.ParentSubagentRunID)
	w.optStr("parentToolCallId", e.ParentToolCallID)
	w.optStr("parentMessageId", e.ParentMessageID)
	w.end(&e.Base)
}

func (e *SubagentFinished) encode(w *encoder) {
	w.begin(TypeSubagentFinished)
	w.str("subagentRunId", e.ID)
	w.optRaw("result", e.Result, kindAny)
	if o := e.Outcome; o != nil {
		w.nest("outcome", func() {
			w.str("type", o.Type)
			w.strs("interruptIds", o.InterruptIDs)
		})
	}
	w.end(&e.Base)
}

func (e *SubagentError) encode(w *encoder) {
	w.begin(TypeSubagentError)
	w.str("subagentRunId", e.ID)
	w.str("message", e.Message)
	w.optStr("code", e.Code)
	w.end(&e.Base)
}

func (e *ThinkingStart) encode(w *encoder) {
	w.begin(TypeThinkingStart)
	w.tag(&e.Attribution)
	w.optStr("title", e.Title)
	w.end(&e.Base)
}

func (e *ThinkingEnd) encode(w *encoder) {
	w.begin(TypeThinkingEnd)
	w.tag(&e.Attribution)
	w.end(&e.Base)
}

func (e *ThinkingTextMessageStart) encode(w *encoder) {
	w.begin(TypeThinkingTextMessageStart)
	w.tag(&e.Attribution)
	w.end(&e.Base)
}

func (e *ThinkingTextMessageContent) encode(w *encoder) {
	w.begin(TypeThinkingTextMessageContent)
	w.tag(&e.Attribution)
	w.str("delta", e.Delta)
	w.end(&e.Base)
}

func (e *ThinkingTextMessageEnd) encode(w *encoder) {
	w.begin(TypeThinkingTextMessageEnd)
	w.tag(&e.Attribution)
	w.end(&e.Base)
}

// ---------------------------------------------------------------------------
// encoding/json integration

// unmarshalInto decodes data with Decode into *dst, which must be of the
// event's type.
func unmarshalInto[T any, P interface {
	*T
	Event
}](data []byte, dst P) error {
	e, err := Decode(data)
	if err != nil {
		return err
	}
	src, ok := e.(P)
	if !ok {
		return &DecodeError{Type: e.EventType(), Pointer: "/type", Offset: int64(locate(data, "/type")), Rule: RuleSchema,
			Reason: fmt.Sprintf("want %s, got %s", dst.EventType(), e.EventType())}
	}
	*dst = *src
	return nil
}
