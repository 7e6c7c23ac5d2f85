package event

import (
	"bytes"
	"encoding/json"

	"github.com/agview/agview/internal/wire"
)

// The fast path decodes the flat events, which are nearly all of a real
// stream (the streamed deltas TEXT_MESSAGE_CONTENT, TOOL_CALL_ARGS and
// REASONING_MESSAGE_CONTENT, and the starts, ends and results of messages,
// tool calls, steps, reasoning, subagents and runs), in one pass of
// internal/wire's scanner (wire.ScanFlat, given the type's wire.Spec) and
// two allocations: the event with the targets of its pointers, and one
// string holding all its strings; a raw JSON value (a patch, a snapshot, a
// tool result's content) is one more. It accepts the common shapes only: the
// input starts with {"type":"<TYPE>", member names carry no escapes and
// occur once, the string values are valid UTF-8 and need no surrogate
// escapes, a timestamp is a plain integer, nothing is null (but where null
// is a value), and rawEvent, metadata and members the schema does not know
// (which the reference path warns about, G20) are absent. Anything else
// returns ok == false and Decode takes the reference path, which gives every
// error and every warning. RUN_STARTED with its input and MESSAGES_SNAPSHOT,
// which are not flat, take the history fast path of fast_history.go.
// FuzzFastPath checks that both paths agree on every input.

// fastType is a type the fast path decodes: the members the scanner reads,
// and how to build the event from them.
type fastType struct {
	spec *wire.Spec
	// build builds the event from what the scanner found in data and the
	// decoded strings (s[k] is member k's). It reports false for values the
	// reference path refuses or warns about (an enum's other values).
	build func(data []byte, f wire.Flat, s strs) (Event, bool)
}

// strs are the decoded string members of a flat event, by member index.
type strs = [wire.MaxMembers]string

// Members of the fast specs. In every attributable type's Spec the tag,
// subagentRunId, is member 0 (wire.DeltaTag for the deltas).
func tagMember() wire.Member { return wire.Member{Name: "subagentRunId", Kind: wire.String} }
func requiredString(name string) wire.Member {
	return wire.Member{Name: name, Kind: wire.String, Required: true}
}
func optionalString(name string) wire.Member { return wire.Member{Name: name, Kind: wire.String} }
func rawMember(name string, k wire.Kind, required bool) wire.Member {
	return wire.Member{Name: name, Kind: k, Required: required}
}

// fastSpec returns the Spec of type t with the given members.
func fastSpec(t Type, members ...wire.Member) *wire.Spec {
	return &wire.Spec{Type: string(t), Members: members}
}

// fastTypes are the types the fast path decodes, by wire type.
var fastTypes = map[string]fastType{
	// The streamed deltas, whose specs package reducer reads in place too.
	string(TypeTextMessageContent): {wire.DeltaSpec(TypeTextMessageContent),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[TextMessageContent, struct{}]{}
			b.e.MessageID, b.e.Delta = s[wire.DeltaID], s[wire.DeltaText]
			return attributed(b, &f, &s), true
		}},
	string(TypeToolCallArgs): {wire.DeltaSpec(TypeToolCallArgs),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ToolCallArgs, struct{}]{}
			b.e.ToolCallID, b.e.Delta = s[wire.DeltaID], s[wire.DeltaText]
			return attributed(b, &f, &s), true
		}},
	string(TypeReasoningMessageContent): {wire.DeltaSpec(TypeReasoningMessageContent),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ReasoningMessageContent, struct{}]{}
			b.e.MessageID, b.e.Delta = s[wire.DeltaID], s[wire.DeltaText]
			return attributed(b, &f, &s), true
		}},

	string(TypeTextMessageStart): {fastSpec(TypeTextMessageStart, tagMember(), requiredString("messageId"), optionalString("role"), optionalString("name")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[TextMessageStart, struct {
				role Role
				name string
			}]{}
			b.e.MessageID = s[1]
			if f.Present(2) {
				var ok bool
				if b.e.Role, ok = textRole(s[2], &b.x.role); !ok {
					return nil, false
				}
			}
			b.e.Name = optional(&f, &s, 3, &b.x.name)
			return attributed(b, &f, &s), true
		}},
	string(TypeTextMessageEnd): {fastSpec(TypeTextMessageEnd, tagMember(), requiredString("messageId")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[TextMessageEnd, struct{}]{}
			b.e.MessageID = s[1]
			return attributed(b, &f, &s), true
		}},
	string(TypeTextMessageChunk): {fastSpec(TypeTextMessageChunk, tagMember(), optionalString("messageId"), optionalString("role"), optionalString("delta"), optionalString("name")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[TextMessageChunk, struct {
				role            Role
				id, delta, name string
			}]{}
			b.e.MessageID = optional(&f, &s, 1, &b.x.id)
			if f.Present(2) {
				var ok bool
				if b.e.Role, ok = textRole(s[2], &b.x.role); !ok {
					return nil, false
				}
			}
			b.e.Delta = optional(&f, &s, 3, &b.x.delta)
			b.e.Name = optional(&f, &s, 4, &b.x.name)
			return attributed(b, &f, &s), true
		}},

	string(TypeToolCallStart): {fastSpec(TypeToolCallStart, tagMember(), requiredString("toolCallId"), requiredString("toolCallName"), optionalString("parentMessageId")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ToolCallStart, string]{}
			b.e.ToolCallID, b.e.ToolCallName = s[1], s[2]
			b.e.ParentMessageID = optional(&f, &s, 3, &b.x)
			return attributed(b, &f, &s), true
		}},
	string(TypeToolCallEnd): {fastSpec(TypeToolCallEnd, tagMember(), requiredString("toolCallId")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ToolCallEnd, struct{}]{}
			b.e.ToolCallID = s[1]
			return attributed(b, &f, &s), true
		}},
	string(TypeToolCallChunk): {fastSpec(TypeToolCallChunk, tagMember(), optionalString("toolCallId"), optionalString("toolCallName"), optionalString("parentMessageId"), optionalString("delta")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ToolCallChunk, [4]string]{}
			b.e.ToolCallID = optional(&f, &s, 1, &b.x[0])
			b.e.ToolCallName = optional(&f, &s, 2, &b.x[1])
			b.e.ParentMessageID = optional(&f, &s, 3, &b.x[2])
			b.e.Delta = optional(&f, &s, 4, &b.x[3])
			return attributed(b, &f, &s), true
		}},
	string(TypeToolCallResult): {fastSpec(TypeToolCallResult, tagMember(), requiredString("messageId"), requiredString("toolCallId"), rawMember("content", wire.Literal, true), optionalString("role")),
		func(data []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ToolCallResult, Role]{}
			b.e.MessageID, b.e.ToolCallID = s[1], s[2]
			if f.Present(4) {
				if Role(s[4]) != RoleTool {
					return nil, false
				}
				b.x = RoleTool
				b.e.Role = &b.x
			}
			b.e.Content = rawValue(data, &f, 3)
			return attributed(b, &f, &s), true
		}},

	string(TypeStepStarted): {fastSpec(TypeStepStarted, tagMember(), requiredString("stepName")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[StepStarted, struct{}]{}
			b.e.StepName = s[1]
			return attributed(b, &f, &s), true
		}},
	string(TypeStepFinished): {fastSpec(TypeStepFinished, tagMember(), requiredString("stepName")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[StepFinished, struct{}]{}
			b.e.StepName = s[1]
			return attributed(b, &f, &s), true
		}},

	string(TypeReasoningStart): {fastSpec(TypeReasoningStart, tagMember(), requiredString("messageId")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ReasoningStart, struct{}]{}
			b.e.MessageID = s[1]
			return attributed(b, &f, &s), true
		}},
	string(TypeReasoningMessageStart): {fastSpec(TypeReasoningMessageStart, tagMember(), requiredString("messageId"), requiredString("role")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			if Role(s[2]) != RoleReasoning {
				return nil, false
			}
			b := &box[ReasoningMessageStart, struct{}]{}
			b.e.MessageID, b.e.Role = s[1], RoleReasoning
			return attributed(b, &f, &s), true
		}},
	string(TypeReasoningMessageEnd): {fastSpec(TypeReasoningMessageEnd, tagMember(), requiredString("messageId")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ReasoningMessageEnd, struct{}]{}
			b.e.MessageID = s[1]
			return attributed(b, &f, &s), true
		}},
	string(TypeReasoningMessageChunk): {fastSpec(TypeReasoningMessageChunk, tagMember(), optionalString("messageId"), optionalString("delta")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ReasoningMessageChunk, [2]string]{}
			b.e.MessageID = optional(&f, &s, 1, &b.x[0])
			b.e.Delta = optional(&f, &s, 2, &b.x[1])
			return attributed(b, &f, &s), true
		}},
	string(TypeReasoningEnd): {fastSpec(TypeReasoningEnd, tagMember(), requiredString("messageId")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ReasoningEnd, struct{}]{}
			b.e.MessageID = s[1]
			return attributed(b, &f, &s), true
		}},
	string(TypeReasoningEncryptedValue): {fastSpec(TypeReasoningEncryptedValue, tagMember(), requiredString("subtype"), requiredString("entityId"), requiredString("encryptedValue")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			if s[1] != EncryptedToolCall && s[1] != EncryptedMessage {
				return nil, false
			}
			b := &box[ReasoningEncryptedValue, struct{}]{}
			b.e.Subtype, b.e.EntityID, b.e.EncryptedValue = s[1], s[2], s[3]
			return attributed(b, &f, &s), true
		}},

	string(TypeStateSnapshot): {fastSpec(TypeStateSnapshot, tagMember(), rawMember("snapshot", wire.Any, true)),
		func(data []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[StateSnapshot, struct{}]{}
			b.e.Snapshot = rawValue(data, &f, 1)
			return attributed(b, &f, &s), true
		}},
	string(TypeStateDelta): {fastSpec(TypeStateDelta, tagMember(), rawMember("delta", wire.Patch, true)),
		func(data []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[StateDelta, struct{}]{}
			b.e.Delta = rawValue(data, &f, 1)
			return attributed(b, &f, &s), true
		}},
	string(TypeActivitySnapshot): {fastSpec(TypeActivitySnapshot, tagMember(), requiredString("messageId"), requiredString("activityType"), rawMember("content", wire.Object, true), rawMember("replace", wire.Bool, false)),
		func(data []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ActivitySnapshot, bool]{}
			b.e.MessageID, b.e.ActivityType = s[1], s[2]
			b.e.Content = rawValue(data, &f, 3)
			if f.Present(4) {
				b.x = f.Bytes(data, 4)[0] == 't'
				b.e.Replace = &b.x
			}
			return attributed(b, &f, &s), true
		}},
	string(TypeActivityDelta): {fastSpec(TypeActivityDelta, tagMember(), requiredString("messageId"), requiredString("activityType"), rawMember("patch", wire.Patch, true)),
		func(data []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[ActivityDelta, struct{}]{}
			b.e.MessageID, b.e.ActivityType = s[1], s[2]
			b.e.Patch = rawValue(data, &f, 3)
			return attributed(b, &f, &s), true
		}},
	string(TypeRaw): {fastSpec(TypeRaw, tagMember(), rawMember("event", wire.Any, true), optionalString("source")),
		func(data []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[Raw, string]{}
			b.e.Event = rawValue(data, &f, 1)
			b.e.Source = optional(&f, &s, 2, &b.x)
			return attributed(b, &f, &s), true
		}},
	string(TypeCustom): {fastSpec(TypeCustom, tagMember(), requiredString("name"), rawMember("value", wire.Any, true)),
		func(data []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[Custom, struct{}]{}
			b.e.Name = s[1]
			b.e.Value = rawValue(data, &f, 2)
			return attributed(b, &f, &s), true
		}},

	// The lifecycle types: subagentRunId is the required identity.
	string(TypeSubagentStarted): {fastSpec(TypeSubagentStarted, requiredString("subagentRunId"), requiredString("name"), optionalString("description"), optionalString("parentSubagentRunId"), optionalString("parentToolCallId"), optionalString("parentMessageId")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[SubagentStarted, [4]string]{}
			b.e.ID, b.e.Name = s[0], s[1]
			b.e.Description = optional(&f, &s, 2, &b.x[0])
			b.e.ParentSubagentRunID = optional(&f, &s, 3, &b.x[1])
			b.e.ParentToolCallID = optional(&f, &s, 4, &b.x[2])
			b.e.ParentMessageID = optional(&f, &s, 5, &b.x[3])
			return stamped(b, f.Timed, f.Timestamp), true
		}},
	string(TypeSubagentFinished): {fastSpec(TypeSubagentFinished, requiredString("subagentRunId"), rawMember("result", wire.NotNull, false)),
		func(data []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[SubagentFinished, struct{}]{}
			b.e.ID = s[0]
			b.e.Result = rawValue(data, &f, 1)
			return stamped(b, f.Timed, f.Timestamp), true
		}},
	string(TypeSubagentError): {fastSpec(TypeSubagentError, requiredString("subagentRunId"), requiredString("message"), optionalString("code")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[SubagentError, string]{}
			b.e.ID, b.e.Message = s[0], s[1]
			b.e.Code = optional(&f, &s, 2, &b.x)
			return stamped(b, f.Timed, f.Timestamp), true
		}},

	// The run types carry no tag: the reference path drops one with a
	// warning (G3).
	string(TypeRunStarted): {fastSpec(TypeRunStarted, requiredString("threadId"), requiredString("runId"), optionalString("protocolVersion"), optionalString("parentRunId")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[RunStarted, [2]string]{}
			b.e.ThreadID, b.e.RunID = s[0], s[1]
			b.e.ProtocolVersion = optional(&f, &s, 2, &b.x[0])
			b.e.ParentRunID = optional(&f, &s, 3, &b.x[1])
			return stamped(b, f.Timed, f.Timestamp), true
		}},
	string(TypeRunFinished): {fastSpec(TypeRunFinished, requiredString("threadId"), requiredString("runId"), rawMember("result", wire.NotNull, false)),
		func(data []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[RunFinished, struct{}]{}
			b.e.ThreadID, b.e.RunID = s[0], s[1]
			b.e.Result = rawValue(data, &f, 2)
			return stamped(b, f.Timed, f.Timestamp), true
		}},
	string(TypeRunError): {fastSpec(TypeRunError, requiredString("message"), optionalString("code")),
		func(_ []byte, f wire.Flat, s strs) (Event, bool) {
			b := &box[RunError, string]{}
			b.e.Message = s[0]
			b.e.Code = optional(&f, &s, 1, &b.x)
			return stamped(b, f.Timed, f.Timestamp), true
		}},
}

// decodeFast decodes data on the fast path if it can.
func decodeFast(data []byte) (Event, bool) {
	typ := wire.TypePrefix(data)
	ft, ok := fastTypes[string(typ)]
	if !ok {
		return decodeHistoryFast(data, string(typ))
	}
	f, ok := wire.ScanFlat(data, ft.spec)
	if !ok {
		if string(typ) == string(TypeRunStarted) {
			return decodeHistoryFast(data, string(typ))
		}
		return nil, false
	}
	s, ok := f.Strings(data)
	if !ok {
		return nil, false
	}
	return ft.build(data, f, s)
}

// box holds an event with the targets of its pointers, so that they take
// one allocation with it: the tag, the timestamp and x, what the type needs
// besides (its optional strings, a role, a boolean).
type box[T, X any] struct {
	e   T
	tag string
	ts  int64
	x   X
}

// attributable is a pointer to an attributable event type.
type attributable[T any] interface {
	*T
	Event
	attribution() *Attribution
}

// attributed returns b's event with its timestamp and its tag (member 0)
// set from f and s.
func attributed[T, X any, P attributable[T]](b *box[T, X], f *wire.Flat, s *strs) Event {
	return attribute[T, X, P](b, f.Present(0), s[0], f.Timed, f.Timestamp)
}

// attribute returns b's event with its tag and timestamp set when given.
func attribute[T, X any, P attributable[T]](b *box[T, X], tagged bool, tag string, timed bool, ts int64) Event {
	p := P(&b.e)
	if tagged {
		b.tag = tag
		p.attribution().Subagent = &b.tag
	}
	if timed {
		b.ts = ts
		p.Common().Timestamp = &b.ts
	}
	return p
}

// stamped returns b's event, of a type that carries no tag, with its
// timestamp set when given.
func stamped[T, X any, P interface {
	*T
	Event
}](b *box[T, X], timed bool, ts int64) Event {
	p := P(&b.e)
	if timed {
		b.ts = ts
		p.Common().Timestamp = &b.ts
	}
	return p
}

// optional returns a pointer to member k's string, stored at to, or nil
// when the member is absent.
func optional(f *wire.Flat, s *strs, k int, to *string) *string {
	if !f.Present(k) {
		return nil
	}
	*to = s[k]
	return to
}

// rawValue returns a copy of member k's raw value, or nil when it is
// absent.
func rawValue(data []byte, f *wire.Flat, k int) json.RawMessage {
	if !f.Present(k) {
		return nil
	}
	return bytes.Clone(f.Bytes(data, k))
}

// textRole stores r at to and returns to when r is a role
// TEXT_MESSAGE_START and TEXT_MESSAGE_CHUNK accept; ok is false otherwise.
func textRole(r string, to *Role) (_ *Role, ok bool) {
	switch Role(r) {
	case RoleDeveloper, RoleSystem, RoleAssistant, RoleUser:
		*to = Role(r)
		return to, true
	}
	return nil, false
}
