package wire

import (
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// ProtoArm describes a streamed delta's arm of ag_ui.Event: its type, its
// field number in the event oneof, its EventType enum value and the field
// numbers of its id, delta and tag.
type ProtoArm struct {
	Type           string
	Arm            protowire.Number
	Enum           uint64
	ID, Delta, Tag protowire.Number
}

// protoArms are indexed by the arm's field number.
var protoArms = [...]ProtoArm{
	2:  {"TEXT_MESSAGE_CONTENT", 2, 1, 2, 3, 4},
	5:  {"TOOL_CALL_ARGS", 5, 4, 2, 3, 4},
	27: {"REASONING_MESSAGE_CONTENT", 27, 26, 3, 4, 2},
}

// ProtoDeltaArm returns the arm of the streamed delta type typ, or nil when
// typ is not one. The ProtoArm is shared: it must not be written.
func ProtoDeltaArm(typ string) *ProtoArm {
	for i := range protoArms {
		if protoArms[i].Type == typ && typ != "" {
			return &protoArms[i]
		}
	}
	return nil
}

// The bits of what a protobuf scan has seen.
const (
	seenBase = 1 << iota
	seenID
	seenText
	seenTag
)

// ScanProtoDelta is ScanDelta for one ag_ui.Event protobuf message: a
// streamed delta's arm holding a base_event (see ProtoBase) and its id,
// delta and tag strings, each at most once and valid UTF-8, and no other
// field. Its Text holds no escapes (Escaped is false); its byte slices alias
// msg. It reports false for anything else, which event.DecodeProto decides.
func ScanProtoDelta(msg []byte) (Delta, bool) {
	num, typ, n := protowire.ConsumeTag(msg)
	if n < 0 || typ != protowire.BytesType || int(num) >= len(protoArms) || protoArms[num].Type == "" {
		return Delta{}, false
	}
	spec := &protoArms[num]
	body, m := protowire.ConsumeBytes(msg[n:])
	if m < 0 || n+m != len(msg) {
		return Delta{}, false
	}
	d := Delta{Type: spec.Type}
	seen, ok := 0, false
	for i := 0; i < len(body); {
		num, typ, n := protowire.ConsumeTag(body[i:])
		if n < 0 || typ != protowire.BytesType {
			return Delta{}, false
		}
		i += n
		v, m := protowire.ConsumeBytes(body[i:])
		if m < 0 {
			return Delta{}, false
		}
		i += m
		var bit int
		switch num {
		case 1:
			bit = seenBase
			if d.Timestamp, d.Timed, ok = ProtoBase(v, spec.Enum); !ok {
				return Delta{}, false
			}
		case spec.ID:
			d.ID, bit = v, seenID
		case spec.Delta:
			d.Text, bit = v, seenText
		case spec.Tag:
			d.Tag, d.Tagged, bit = v, true, seenTag
		default:
			return Delta{}, false
		}
		if seen&bit != 0 {
			return Delta{}, false
		}
		seen |= bit
	}
	if !utf8.Valid(d.ID) || !utf8.Valid(d.Text) || !utf8.Valid(d.Tag) {
		return Delta{}, false
	}
	return d, true
}

// ProtoBase reads a base_event that holds at most the type enum, equal to
// enum, and a safe-integer timestamp, each once, as varints; it reports
// false for anything else.
func ProtoBase(b []byte, enum uint64) (ts int64, timed, ok bool) {
	seen := 0
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 || typ != protowire.VarintType || num < 1 || num > 2 || seen&(1<<num) != 0 {
			return 0, false, false
		}
		seen |= 1 << num
		i += n
		v, m := protowire.ConsumeVarint(b[i:])
		if m < 0 {
			return 0, false, false
		}
		i += m
		if num == 1 {
			if v != enum {
				return 0, false, false
			}
			continue
		}
		ts = int64(v)
		if ts > maxSafeInt || ts < -maxSafeInt {
			return 0, false, false
		}
		timed = true
	}
	return ts, timed, true
}
