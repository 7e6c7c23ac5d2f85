package event

import (
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
)

// The protobuf fast path decodes and encodes TEXT_MESSAGE_CONTENT,
// TOOL_CALL_ARGS and REASONING_MESSAGE_CONTENT, the events that dominate real
// streams, in one pass and two allocations (the event, one string holding its
// strings), as the JSON fast path does. It accepts the common shape only: one
// arm, a base_event holding at most its matching type and a safe-integer
// timestamp, each string field once and valid UTF-8, no unknown field.
// Anything else takes the general path, which gives every error;
// FuzzDecodeProto checks that both paths agree.

// protoFast describes a fast-path arm: the field numbers of its id, delta
// and tag.
type protoFast struct {
	typ            Type
	enum           int32
	id, delta, tag protowire.Number
}

var protoFasts = [...]protoFast{
	2:  {TypeTextMessageContent, 1, 2, 3, 4},
	5:  {TypeToolCallArgs, 4, 2, 3, 4},
	27: {TypeReasoningMessageContent, 26, 3, 4, 2},
}

// decodeProtoFast decodes msg on the fast path if it can.
func decodeProtoFast(msg []byte) (Event, bool) {
	num, typ, n := protowire.ConsumeTag(msg)
	if n < 0 || typ != protowire.BytesType || int(num) >= len(protoFasts) || protoFasts[num].typ == "" {
		return nil, false
	}
	spec := &protoFasts[num]
	body, m := protowire.ConsumeBytes(msg[n:])
	if m < 0 || n+m != len(msg) {
		return nil, false
	}
	var f flat
	var id, delta, tag []byte
	for i := 0; i < len(body); {
		num, typ, n := protowire.ConsumeTag(body[i:])
		if n < 0 || typ != protowire.BytesType {
			return nil, false
		}
		i += n
		v, m := protowire.ConsumeBytes(body[i:])
		if m < 0 {
			return nil, false
		}
		i += m
		var bit uint8
		switch num {
		case 1:
			if !fastBase(v, spec.enum, &f) {
				return nil, false
			}
			bit = seenType
		case spec.id:
			id, bit = v, seenID
		case spec.delta:
			delta, bit = v, seenDelta
		case spec.tag:
			tag, bit = v, seenTag
		default:
			return nil, false
		}
		if f.seen&bit != 0 {
			return nil, false
		}
		f.seen |= bit
	}
	if !utf8.Valid(id) || !utf8.Valid(delta) || !utf8.Valid(tag) {
		return nil, false
	}
	total := len(id) + len(delta) + len(tag)
	var s string
	if total > 0 {
		b := make([]byte, 0, total)
		b = append(append(append(b, id...), delta...), tag...)
		s = unsafe.String(unsafe.SliceData(b), len(b))
	}
	is, ds, ts := s[:len(id)], s[len(id):len(id)+len(delta)], s[len(id)+len(delta):]
	switch spec.typ {
	case TypeTextMessageContent:
		return boxed(TextMessageContent{MessageID: is, Delta: ds}, &f, ts), true
	case TypeToolCallArgs:
		return boxed(ToolCallArgs{ToolCallID: is, Delta: ds}, &f, ts), true
	default:
		return boxed(ReasoningMessageContent{MessageID: is, Delta: ds}, &f, ts), true
	}
}

// fastBase reads a base_event holding at most the type enum and a safe
// integer timestamp, each once.
func fastBase(b []byte, enum int32, f *flat) bool {
	seen := 0
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 || typ != protowire.VarintType || num < 1 || num > 2 || seen&(1<<num) != 0 {
			return false
		}
		seen |= 1 << num
		i += n
		v, m := protowire.ConsumeVarint(b[i:])
		if m < 0 {
			return false
		}
		i += m
		if num == 1 {
			if v != uint64(enum) {
				return false
			}
			continue
		}
		ts := int64(v)
		if ts > maxSafeInt || ts < -maxSafeInt {
			return false
		}
		f.ts = ts
		f.seen |= seenTimestamp
	}
	return true
}

// appendProtoFast encodes e on the fast path if it can: a fast-path type
// with no rawEvent or metadata and valid UTF-8 strings.
func appendProtoFast(dst []byte, e Event) ([]byte, bool) {
	var arm protowire.Number
	var id, delta string
	var base *Base
	var attr *Attribution
	switch e := e.(type) {
	case *TextMessageContent:
		arm, id, delta, base, attr = 2, e.MessageID, e.Delta, &e.Base, &e.Attribution
	case *ToolCallArgs:
		arm, id, delta, base, attr = 5, e.ToolCallID, e.Delta, &e.Base, &e.Attribution
	case *ReasoningMessageContent:
		arm, id, delta, base, attr = 27, e.MessageID, e.Delta, &e.Base, &e.Attribution
	default:
		return dst, false
	}
	if base.RawEvent != nil || base.Metadata != nil || !utf8.ValidString(id) || !utf8.ValidString(delta) ||
		attr.Subagent != nil && !utf8.ValidString(*attr.Subagent) {
		return dst, false
	}
	spec := &protoFasts[arm]
	baseLen := 2 // the enum, never 0 here
	if base.Timestamp != nil {
		baseLen += 1 + protowire.SizeVarint(uint64(*base.Timestamp))
	}
	size := 1 + protowire.SizeBytes(baseLen)
	str := func(s string) int { return 1 + protowire.SizeBytes(len(s)) }
	if id != "" {
		size += str(id)
	}
	if delta != "" {
		size += str(delta)
	}
	if attr.Subagent != nil {
		size += str(*attr.Subagent)
	}
	b := protowire.AppendTag(dst, arm, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(size))
	put := func(num protowire.Number, s string) {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	b = append(b, 1<<3|byte(protowire.BytesType), byte(baseLen), 1<<3|byte(protowire.VarintType), byte(spec.enum))
	if base.Timestamp != nil {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(*base.Timestamp))
	}
	// Field-number order: the reasoning arm's tag (2) comes first.
	if spec.tag < spec.id && attr.Subagent != nil {
		put(spec.tag, *attr.Subagent)
	}
	if id != "" {
		put(spec.id, id)
	}
	if delta != "" {
		put(spec.delta, delta)
	}
	if spec.tag > spec.delta && attr.Subagent != nil {
		put(spec.tag, *attr.Subagent)
	}
	return b, true
}
