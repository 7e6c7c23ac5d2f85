package event

import (
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agview/agview/internal/jsonstr"
	"github.com/agview/agview/internal/wire"
)

// The protobuf fast path decodes and encodes TEXT_MESSAGE_CONTENT,
// TOOL_CALL_ARGS and REASONING_MESSAGE_CONTENT, the events that dominate real
// streams, in one pass (internal/wire's ScanProtoDelta, which package reducer
// folds them in place with) and two allocations (the event, one string
// holding its strings), as the JSON fast path does. It also decodes the
// other arms made of strings (the text, tool call, step, reasoning, subagent
// and run openers and closers, and a tool result with string content) in two
// allocations, three for a tool result. It accepts the common shape only:
// one arm, a base_event holding at most its matching type and a safe-integer
// timestamp, each string field once and valid UTF-8, no other field (a run's
// input, outcome or usage, a subagent's result or outcome). Anything else
// takes the general path, which gives every error and warning;
// FuzzDecodeProto checks that both paths agree exactly.

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

// protoFlat describes an arm whose fields are strings, which the fast path
// also decodes: its EventType value, the field numbers of up to six string
// slots (0 for an unused slot) and of the tag (0 for none), and how to build
// the event from the slots' values (has: bit i set when slot i was given).
// A field with no presence in proto3 reads as "" when absent, as the general
// path reads it. build reports false for values the JSON decoder would
// refuse or warn about, which the general path then reports.
type protoFlat struct {
	enum  int32
	nums  [6]protowire.Number
	tag   protowire.Number
	build func(s pslots, has uint8, c protoCommon) (Event, bool)
}

// pslots are the values of a protoFlat's string slots.
type pslots = [6]string

var protoFlats = [...]protoFlat{
	1: {0, [6]protowire.Number{2, 3, 4}, 5, func(s pslots, has uint8, c protoCommon) (Event, bool) {
		b := &box[TextMessageStart, struct {
			role Role
			name string
		}]{}
		b.e.MessageID = s[0]
		if has&2 != 0 {
			var ok bool
			if b.e.Role, ok = textRole(s[1], &b.x.role); !ok {
				return nil, false
			}
		}
		b.e.Name = slot(&s, has, 2, &b.x.name)
		return protoAttributed(&c, b), true
	}},
	3: {2, [6]protowire.Number{2}, 3, func(s pslots, _ uint8, c protoCommon) (Event, bool) {
		return protoAttributed(&c, &box[TextMessageEnd, struct{}]{e: TextMessageEnd{MessageID: s[0]}}), true
	}},
	4: {3, [6]protowire.Number{2, 3, 4}, 5, func(s pslots, has uint8, c protoCommon) (Event, bool) {
		b := &box[ToolCallStart, string]{e: ToolCallStart{ToolCallID: s[0], ToolCallName: s[1]}}
		b.e.ParentMessageID = slot(&s, has, 2, &b.x)
		return protoAttributed(&c, b), true
	}},
	6: {5, [6]protowire.Number{2}, 3, func(s pslots, _ uint8, c protoCommon) (Event, bool) {
		return protoAttributed(&c, &box[ToolCallEnd, struct{}]{e: ToolCallEnd{ToolCallID: s[0]}}), true
	}},
	12: {11, [6]protowire.Number{2, 3, 4, 6}, 0, func(s pslots, has uint8, c protoCommon) (Event, bool) {
		b := &box[RunStarted, [2]string]{e: RunStarted{ThreadID: s[0], RunID: s[1]}}
		b.e.ParentRunID = slot(&s, has, 2, &b.x[0])
		b.e.ProtocolVersion = slot(&s, has, 3, &b.x[1])
		return stamped(b, c.timed, c.ts), true
	}},
	13: {12, [6]protowire.Number{2, 3}, 0, func(s pslots, _ uint8, c protoCommon) (Event, bool) {
		return stamped(&box[RunFinished, struct{}]{e: RunFinished{ThreadID: s[0], RunID: s[1]}}, c.timed, c.ts), true
	}},
	14: {13, [6]protowire.Number{3, 2}, 0, func(s pslots, has uint8, c protoCommon) (Event, bool) {
		b := &box[RunError, string]{e: RunError{Message: s[0]}}
		b.e.Code = slot(&s, has, 1, &b.x)
		return stamped(b, c.timed, c.ts), true
	}},
	15: {14, [6]protowire.Number{2}, 3, func(s pslots, _ uint8, c protoCommon) (Event, bool) {
		return protoAttributed(&c, &box[StepStarted, struct{}]{e: StepStarted{StepName: s[0]}}), true
	}},
	16: {15, [6]protowire.Number{2}, 3, func(s pslots, _ uint8, c protoCommon) (Event, bool) {
		return protoAttributed(&c, &box[StepFinished, struct{}]{e: StepFinished{StepName: s[0]}}), true
	}},
	17: {19, [6]protowire.Number{2, 3, 4, 5}, 6, func(s pslots, has uint8, c protoCommon) (Event, bool) {
		b := &box[TextMessageChunk, struct {
			role            Role
			id, delta, name string
		}]{}
		b.e.MessageID = slot(&s, has, 0, &b.x.id)
		if has&2 != 0 {
			var ok bool
			if b.e.Role, ok = textRole(s[1], &b.x.role); !ok {
				return nil, false
			}
		}
		b.e.Delta = slot(&s, has, 2, &b.x.delta)
		b.e.Name = slot(&s, has, 3, &b.x.name)
		return protoAttributed(&c, b), true
	}},
	18: {20, [6]protowire.Number{2, 3, 4, 5}, 6, func(s pslots, has uint8, c protoCommon) (Event, bool) {
		b := &box[ToolCallChunk, [4]string]{}
		b.e.ToolCallID = slot(&s, has, 0, &b.x[0])
		b.e.ToolCallName = slot(&s, has, 1, &b.x[1])
		b.e.ParentMessageID = slot(&s, has, 2, &b.x[2])
		b.e.Delta = slot(&s, has, 3, &b.x[3])
		return protoAttributed(&c, b), true
	}},
	19: {16, [6]protowire.Number{2, 3, 4, 5, 6, 7}, 0, func(s pslots, has uint8, c protoCommon) (Event, bool) {
		b := &box[SubagentStarted, [4]string]{e: SubagentStarted{ID: s[0], Name: s[1]}}
		b.e.Description = slot(&s, has, 2, &b.x[0])
		b.e.ParentSubagentRunID = slot(&s, has, 3, &b.x[1])
		b.e.ParentToolCallID = slot(&s, has, 4, &b.x[2])
		b.e.ParentMessageID = slot(&s, has, 5, &b.x[3])
		return stamped(b, c.timed, c.ts), true
	}},
	20: {17, [6]protowire.Number{2}, 0, func(s pslots, _ uint8, c protoCommon) (Event, bool) {
		return stamped(&box[SubagentFinished, struct{}]{e: SubagentFinished{ID: s[0]}}, c.timed, c.ts), true
	}},
	21: {18, [6]protowire.Number{2, 3, 4}, 0, func(s pslots, has uint8, c protoCommon) (Event, bool) {
		b := &box[SubagentError, string]{e: SubagentError{ID: s[0], Message: s[1]}}
		b.e.Code = slot(&s, has, 2, &b.x)
		return stamped(b, c.timed, c.ts), true
	}},
	22: {21, [6]protowire.Number{3, 4, 5, 6}, 2, func(s pslots, has uint8, c protoCommon) (Event, bool) {
		if has&4 == 0 {
			return nil, false // no string content: content parts, or none
		}
		b := &box[ToolCallResult, Role]{e: ToolCallResult{MessageID: s[0], ToolCallID: s[1]}}
		if has&8 != 0 {
			if Role(s[3]) != RoleTool {
				return nil, false
			}
			b.x = RoleTool
			b.e.Role = &b.x
		}
		// As the general path writes it, and the JSON decoder keeps it.
		b.e.Content = jsonstr.Append(make([]byte, 0, len(s[2])+8), s[2], jsonstr.Go)
		return protoAttributed(&c, b), true
	}},
	25: {24, [6]protowire.Number{3}, 2, func(s pslots, _ uint8, c protoCommon) (Event, bool) {
		return protoAttributed(&c, &box[ReasoningStart, struct{}]{e: ReasoningStart{MessageID: s[0]}}), true
	}},
	26: {25, [6]protowire.Number{3, 4}, 2, func(s pslots, _ uint8, c protoCommon) (Event, bool) {
		if Role(s[1]) != RoleReasoning {
			return nil, false
		}
		return protoAttributed(&c, &box[ReasoningMessageStart, struct{}]{e: ReasoningMessageStart{MessageID: s[0], Role: RoleReasoning}}), true
	}},
	28: {27, [6]protowire.Number{3}, 2, func(s pslots, _ uint8, c protoCommon) (Event, bool) {
		return protoAttributed(&c, &box[ReasoningMessageEnd, struct{}]{e: ReasoningMessageEnd{MessageID: s[0]}}), true
	}},
	29: {28, [6]protowire.Number{3, 4}, 2, func(s pslots, has uint8, c protoCommon) (Event, bool) {
		b := &box[ReasoningMessageChunk, [2]string]{}
		b.e.MessageID = slot(&s, has, 0, &b.x[0])
		b.e.Delta = slot(&s, has, 1, &b.x[1])
		return protoAttributed(&c, b), true
	}},
	30: {29, [6]protowire.Number{3}, 2, func(s pslots, _ uint8, c protoCommon) (Event, bool) {
		return protoAttributed(&c, &box[ReasoningEnd, struct{}]{e: ReasoningEnd{MessageID: s[0]}}), true
	}},
	31: {30, [6]protowire.Number{3, 4, 5}, 2, func(s pslots, _ uint8, c protoCommon) (Event, bool) {
		if s[0] != EncryptedToolCall && s[0] != EncryptedMessage {
			return nil, false
		}
		return protoAttributed(&c, &box[ReasoningEncryptedValue, struct{}]{e: ReasoningEncryptedValue{Subtype: s[0], EntityID: s[1], EncryptedValue: s[2]}}), true
	}},
}

// decodeProtoFlat decodes msg on the fast path for string arms if it can.
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
	var vals [len(pslots{}) + 1][]byte // the slots, then the tag
	const tagSlot = len(vals) - 1
	var has uint8 // bit i: slot i; bit tagSlot: the tag
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
			slot = tagSlot
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
	var s pslots
	at := 0
	for k, v := range vals[:tagSlot] {
		s[k], at = all[at:at+len(v)], at+len(v)
	}
	c.tag, c.tagged = all[at:], has&(1<<tagSlot) != 0
	return spec.build(s, has&^(1<<tagSlot), c)
}

// protoCommon is what decodeProtoFlat found besides the arm's own fields:
// whether the base_event was given, the timestamp and the tag.
type protoCommon struct {
	base, tagged, timed bool
	ts                  int64
	tag                 string
}

// protoAttributed returns b's event with its tag and timestamp set from c.
func protoAttributed[T, X any, P attributable[T]](c *protoCommon, b *box[T, X]) Event {
	return attribute[T, X, P](b, c.tagged, c.tag, c.timed, c.ts)
}

// slot returns a pointer to slot k's string, stored at to, or nil when the
// slot was not given.
func slot(s *pslots, has uint8, k int, to *string) *string {
	if has&(1<<k) == 0 {
		return nil
	}
	*to = s[k]
	return to
}
