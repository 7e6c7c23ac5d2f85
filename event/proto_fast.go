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

// decodeProtoFast decodes msg on the fast path if it can.
func decodeProtoFast(msg []byte) (Event, bool) {
	d, ok := wire.ScanProtoDelta(msg)
	if !ok {
		return decodeProtoFlat(msg)
	}
	id, delta, tag := d.ID, d.Text, d.Tag
	total := len(id) + len(delta) + len(tag)
	var s string
	if total > 0 {
		b := make([]byte, 0, total)
		b = append(append(append(b, id...), delta...), tag...)
		s = unsafe.String(unsafe.SliceData(b), len(b))
	}
	is, ds, ts := s[:len(id)], s[len(id):len(id)+len(delta)], s[len(id)+len(delta):]
	switch Type(d.Type) {
	case TypeTextMessageContent:
		b := &box[TextMessageContent, struct{}]{e: TextMessageContent{MessageID: is, Delta: ds}}
		return attribute(b, d.Tagged, ts, d.Timed, d.Timestamp), true
	case TypeToolCallArgs:
		b := &box[ToolCallArgs, struct{}]{e: ToolCallArgs{ToolCallID: is, Delta: ds}}
		return attribute(b, d.Tagged, ts, d.Timed, d.Timestamp), true
	default:
		b := &box[ReasoningMessageContent, struct{}]{e: ReasoningMessageContent{MessageID: is, Delta: ds}}
		return attribute(b, d.Tagged, ts, d.Timed, d.Timestamp), true
	}
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
	spec := wire.ProtoDeltaArm(string(e.EventType()))
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
	b = append(b, 1<<3|byte(protowire.BytesType), byte(baseLen), 1<<3|byte(protowire.VarintType), byte(spec.Enum))
	if base.Timestamp != nil {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(*base.Timestamp))
	}
	// Field-number order: the reasoning arm's tag (2) comes first.
	if spec.Tag < spec.ID && attr.Subagent != nil {
		put(spec.Tag, *attr.Subagent)
	}
	if id != "" {
		put(spec.ID, id)
	}
	if delta != "" {
		put(spec.Delta, delta)
	}
	if spec.Tag > spec.Delta && attr.Subagent != nil {
		put(spec.Tag, *attr.Subagent)
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
	build func(s *[4]string, has uint8, c *protoCommon, tag string) (Event, bool)
}

var protoFlats = [...]protoFlat{
	1: {0, [4]protowire.Number{2, 3, 4}, 5, func(s *[4]string, has uint8, c *protoCommon, tag string) (Event, bool) {
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
		return boxed(e, c, tag), true
	}},
	3: {2, [4]protowire.Number{2}, 3, func(s *[4]string, _ uint8, c *protoCommon, tag string) (Event, bool) {
		return boxed(TextMessageEnd{MessageID: s[0]}, c, tag), true
	}},
	4: {3, [4]protowire.Number{2, 3, 4}, 5, func(s *[4]string, has uint8, c *protoCommon, tag string) (Event, bool) {
		e := ToolCallStart{ToolCallID: s[0], ToolCallName: s[1]}
		if has&4 != 0 {
			e.ParentMessageID = &s[2]
		}
		return boxed(e, c, tag), true
	}},
	6: {5, [4]protowire.Number{2}, 3, func(s *[4]string, _ uint8, c *protoCommon, tag string) (Event, bool) {
		return boxed(ToolCallEnd{ToolCallID: s[0]}, c, tag), true
	}},
	15: {14, [4]protowire.Number{2}, 3, func(s *[4]string, _ uint8, c *protoCommon, tag string) (Event, bool) {
		return boxed(StepStarted{StepName: s[0]}, c, tag), true
	}},
	16: {15, [4]protowire.Number{2}, 3, func(s *[4]string, _ uint8, c *protoCommon, tag string) (Event, bool) {
		return boxed(StepFinished{StepName: s[0]}, c, tag), true
	}},
	25: {24, [4]protowire.Number{3}, 2, func(s *[4]string, _ uint8, c *protoCommon, tag string) (Event, bool) {
		return boxed(ReasoningStart{MessageID: s[0]}, c, tag), true
	}},
	26: {25, [4]protowire.Number{3, 4}, 2, func(s *[4]string, _ uint8, c *protoCommon, tag string) (Event, bool) {
		if Role(s[1]) != RoleReasoning {
			return nil, false
		}
		return boxed(ReasoningMessageStart{MessageID: s[0], Role: RoleReasoning}, c, tag), true
	}},
	28: {27, [4]protowire.Number{3}, 2, func(s *[4]string, _ uint8, c *protoCommon, tag string) (Event, bool) {
		return boxed(ReasoningMessageEnd{MessageID: s[0]}, c, tag), true
	}},
	30: {29, [4]protowire.Number{3}, 2, func(s *[4]string, _ uint8, c *protoCommon, tag string) (Event, bool) {
		return boxed(ReasoningEnd{MessageID: s[0]}, c, tag), true
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
	var c protoCommon
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
			var ok bool
			if c.base {
				return nil, false
			}
			if c.ts, c.timed, ok = wire.ProtoBase(v, uint64(spec.enum)); !ok {
				return nil, false
			}
			c.base = true
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
	c.tagged = has&16 != 0
	return spec.build(&s, has&15, &c, tag)
}

// protoCommon is what decodeProtoFlat found besides the arm's own fields:
// whether the base_event and the tag were given, and the timestamp.
type protoCommon struct {
	base, tagged, timed bool
	ts                  int64
}

// boxed returns e in a box with its tag and timestamp set from c.
func boxed[T any, P attributable[T]](e T, c *protoCommon, tag string) Event {
	return attribute[T, struct{}, P](&box[T, struct{}]{e: e}, c.tagged, tag, c.timed, c.ts)
}
