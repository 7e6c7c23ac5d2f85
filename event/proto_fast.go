package event

import (
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agview/agview/internal/wire"
)

// The protobuf fast path decodes and encodes TEXT_MESSAGE_CONTENT,
// TOOL_CALL_ARGS and REASONING_MESSAGE_CONTENT, the events that dominate real
// streams, in one pass and two allocations (the event, one string holding its
// strings), as the JSON fast path does; it also decodes the other arms made of
// strings only (the text, tool call, step and reasoning openers and closers),
// in two allocations and one per optional field given besides the tag. It accepts the common shape only: one
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

func init() { wire.ScanProtoDelta = scanProtoDelta }

// scanProtoDelta reads a fast-path message in place for package reducer
// (see internal/wire): its byte slices alias msg.
func scanProtoDelta(msg []byte) (wire.Delta, bool) {
	spec, f, id, delta, tag, ok := scanProtoFast(msg)
	if !ok {
		return wire.Delta{}, false
	}
	return wire.Delta{Type: string(spec.typ), ID: id, Tag: tag, Tagged: f.seen&seenTag != 0, Text: delta}, true
}

// decodeProtoFast decodes msg on the fast path if it can.
func decodeProtoFast(msg []byte) (Event, bool) {
	spec, f, id, delta, tag, ok := scanProtoFast(msg)
	if !ok {
		return decodeProtoFlat(msg)
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

// scanProtoFast reads msg in the fast-path shape: its spec, the tag and
// timestamp found (f), and the id, delta and tag bytes, which alias msg.
func scanProtoFast(msg []byte) (spec *protoFast, f flat, id, delta, tag []byte, ok bool) {
	num, typ, n := protowire.ConsumeTag(msg)
	if n < 0 || typ != protowire.BytesType || int(num) >= len(protoFasts) || protoFasts[num].typ == "" {
		return nil, f, nil, nil, nil, false
	}
	spec = &protoFasts[num]
	body, m := protowire.ConsumeBytes(msg[n:])
	if m < 0 || n+m != len(msg) {
		return nil, f, nil, nil, nil, false
	}
	for i := 0; i < len(body); {
		num, typ, n := protowire.ConsumeTag(body[i:])
		if n < 0 || typ != protowire.BytesType {
			return nil, f, nil, nil, nil, false
		}
		i += n
		v, m := protowire.ConsumeBytes(body[i:])
		if m < 0 {
			return nil, f, nil, nil, nil, false
		}
		i += m
		var bit uint8
		switch num {
		case 1:
			if !fastBase(v, spec.enum, &f) {
				return nil, f, nil, nil, nil, false
			}
			bit = seenType
		case spec.id:
			id, bit = v, seenID
		case spec.delta:
			delta, bit = v, seenDelta
		case spec.tag:
			tag, bit = v, seenTag
		default:
			return nil, f, nil, nil, nil, false
		}
		if f.seen&bit != 0 {
			return nil, f, nil, nil, nil, false
		}
		f.seen |= bit
	}
	if !utf8.Valid(id) || !utf8.Valid(delta) || !utf8.Valid(tag) {
		return nil, f, nil, nil, nil, false
	}
	return spec, f, id, delta, tag, true
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

// protoFlat describes an arm whose fields are all strings, which the fast
// path also decodes: the field numbers of up to four string slots (0 for an
// unused slot) and of the tag, and how to build the event from the slots'
// values (has: bit i set when slot i was given). build reports false for
// values the JSON decoder would refuse or warn about, which the general path
// then reports.
type protoFlat struct {
	enum  int32
	nums  [4]protowire.Number
	tag   protowire.Number
	build func(s *[4]string, has uint8, f *flat, tag string) (Event, bool)
}

var protoFlats = [...]protoFlat{
	1: {0, [4]protowire.Number{2, 3, 4}, 5, func(s *[4]string, has uint8, f *flat, tag string) (Event, bool) {
		e := TextMessageStart{MessageID: s[0]}
		if has&2 != 0 {
			switch r := Role(s[1]); r {
			case RoleDeveloper, RoleSystem, RoleAssistant, RoleUser:
				e.Role = &r
			default:
				return nil, false
			}
		}
		if has&4 != 0 {
			e.Name = &s[2]
		}
		return boxed(e, f, tag), true
	}},
	3: {2, [4]protowire.Number{2}, 3, func(s *[4]string, _ uint8, f *flat, tag string) (Event, bool) {
		return boxed(TextMessageEnd{MessageID: s[0]}, f, tag), true
	}},
	4: {3, [4]protowire.Number{2, 3, 4}, 5, func(s *[4]string, has uint8, f *flat, tag string) (Event, bool) {
		e := ToolCallStart{ToolCallID: s[0], ToolCallName: s[1]}
		if has&4 != 0 {
			e.ParentMessageID = &s[2]
		}
		return boxed(e, f, tag), true
	}},
	6: {5, [4]protowire.Number{2}, 3, func(s *[4]string, _ uint8, f *flat, tag string) (Event, bool) {
		return boxed(ToolCallEnd{ToolCallID: s[0]}, f, tag), true
	}},
	15: {14, [4]protowire.Number{2}, 3, func(s *[4]string, _ uint8, f *flat, tag string) (Event, bool) {
		return boxed(StepStarted{StepName: s[0]}, f, tag), true
	}},
	16: {15, [4]protowire.Number{2}, 3, func(s *[4]string, _ uint8, f *flat, tag string) (Event, bool) {
		return boxed(StepFinished{StepName: s[0]}, f, tag), true
	}},
	25: {24, [4]protowire.Number{3}, 2, func(s *[4]string, _ uint8, f *flat, tag string) (Event, bool) {
		return boxed(ReasoningStart{MessageID: s[0]}, f, tag), true
	}},
	26: {25, [4]protowire.Number{3, 4}, 2, func(s *[4]string, _ uint8, f *flat, tag string) (Event, bool) {
		if Role(s[1]) != RoleReasoning {
			return nil, false
		}
		return boxed(ReasoningMessageStart{MessageID: s[0], Role: RoleReasoning}, f, tag), true
	}},
	28: {27, [4]protowire.Number{3}, 2, func(s *[4]string, _ uint8, f *flat, tag string) (Event, bool) {
		return boxed(ReasoningMessageEnd{MessageID: s[0]}, f, tag), true
	}},
	30: {29, [4]protowire.Number{3}, 2, func(s *[4]string, _ uint8, f *flat, tag string) (Event, bool) {
		return boxed(ReasoningEnd{MessageID: s[0]}, f, tag), true
	}},
}

// decodeProtoFlat decodes msg on the fast path for all-string arms if it can.
func decodeProtoFlat(msg []byte) (Event, bool) {
	num, typ, n := protowire.ConsumeTag(msg)
	if n < 0 || typ != protowire.BytesType || int(num) >= len(protoFlats) || protoFlats[num].build == nil {
		return nil, false
	}
	spec := &protoFlats[num]
	body, m := protowire.ConsumeBytes(msg[n:])
	if m < 0 || n+m != len(msg) {
		return nil, false
	}
	var f flat
	var vals [5][]byte // the slots, then the tag
	var has uint8      // bits 0..3: slots; bit 4: tag
	total := 0
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
		if num == 1 {
			if f.seen&seenType != 0 || !fastBase(v, spec.enum, &f) {
				return nil, false
			}
			f.seen |= seenType
			continue
		}
		slot := -1
		if num == spec.tag {
			slot = 4
		} else {
			for k, sn := range spec.nums {
				if sn == num && sn != 0 {
					slot = k
				}
			}
		}
		if slot < 0 || has&(1<<slot) != 0 || !utf8.Valid(v) {
			return nil, false
		}
		vals[slot], has = v, has|1<<slot
		total += len(v)
	}
	var all string
	if total > 0 {
		b := make([]byte, 0, total)
		for _, v := range vals {
			b = append(b, v...)
		}
		all = unsafe.String(unsafe.SliceData(b), len(b))
	}
	var s [4]string
	at := 0
	for k, v := range vals[:4] {
		s[k], at = all[at:at+len(v)], at+len(v)
	}
	tag := all[at:]
	if has&16 != 0 {
		f.seen |= seenTag
	}
	return spec.build(&s, has&15, &f, tag)
}
