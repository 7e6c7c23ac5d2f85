package event

import (
	"bytes"
	"unicode/utf8"
	"unsafe"

	"github.com/agview/agview/internal/wire"
)

// The fast path decodes the events that dominate real streams,
// TEXT_MESSAGE_CONTENT, TOOL_CALL_ARGS and REASONING_MESSAGE_CONTENT (and
// STATE_DELTA, which dominates state-heavy ones), in one hand-written pass
// and two or three allocations: the event, one string holding all its string
// fields, and the copied delta of a STATE_DELTA. It accepts the common shapes
// only: the input starts with {"type":"<TYPE>", member names carry no escapes
// and occur once, the string values are valid UTF-8 and need no
// surrogate-pair escapes, a timestamp is a plain integer, and rawEvent and
// metadata are absent. Anything else returns ok == false and Decode takes the
// reference path, which gives every error. FuzzFastPath checks that both
// paths agree on every input.

// fastSpec describes the members of a fast-path type besides type,
// subagentRunId and timestamp.
type fastSpec struct {
	typ Type
	id  string // name of the required string id member
	raw bool   // delta is a raw JSON array (STATE_DELTA), not a string
}

var fastSpecs = [...]fastSpec{
	{typ: TypeTextMessageContent, id: "messageId"},
	{typ: TypeToolCallArgs, id: "toolCallId"},
	{typ: TypeReasoningMessageContent, id: "messageId"},
	{typ: TypeStateDelta, raw: true},
}

// fastBits marks the members the fast path has seen.
const (
	seenType = 1 << iota
	seenID
	seenDelta
	seenTag
	seenTimestamp
)

// span is a JSON string literal's content: data[lo:hi], between the quotes.
type span struct {
	lo, hi  int
	escaped bool
}

// flat is what the fast scanner found: the id (messageId or toolCallId), the
// delta (a string, or the raw array patch of a STATE_DELTA), the tag and the
// timestamp.
type flat struct {
	id, delta, tag span
	patch          span // raw value bounds, data[lo:hi]
	ts             int64
	seen           uint8
}

// fastSpecOf returns the spec of the fast-path type the input starts with.
func fastSpecOf(data []byte) *fastSpec {
	const prefix = `{"type":"`
	if len(data) < len(prefix) || string(data[:len(prefix)]) != prefix {
		return nil
	}
	rest := data[len(prefix):]
	for i := range fastSpecs {
		t := fastSpecs[i].typ
		if len(rest) > len(t) && string(rest[:len(t)]) == string(t) && rest[len(t)] == '"' {
			return &fastSpecs[i]
		}
	}
	return nil
}

// decodeFast decodes data on the fast path if it can.
func decodeFast(data []byte) (Event, bool) {
	spec := fastSpecOf(data)
	if spec == nil {
		return nil, false
	}
	f, ok := scanFlat(data, spec)
	if !ok {
		return nil, false
	}
	strs, ok := joinSpans(data, &f)
	if !ok {
		return nil, false
	}
	id, delta, tag := strs[0], strs[1], strs[2]
	switch spec.typ {
	case TypeTextMessageContent:
		return boxed(TextMessageContent{MessageID: id, Delta: delta}, &f, tag), true
	case TypeToolCallArgs:
		return boxed(ToolCallArgs{ToolCallID: id, Delta: delta}, &f, tag), true
	case TypeReasoningMessageContent:
		return boxed(ReasoningMessageContent{MessageID: id, Delta: delta}, &f, tag), true
	default: // STATE_DELTA, whose id and delta string spans are empty
		return boxed(StateDelta{Delta: bytes.Clone(data[f.patch.lo:f.patch.hi])}, &f, tag), true
	}
}

// fastBox holds an event with the targets of its tag and timestamp
// pointers, so that the three take one allocation.
type fastBox[T any] struct {
	e   T
	tag string
	ts  int64
}

// boxed returns e in a fastBox, its tag and timestamp set from f.
func boxed[T any, P interface {
	*T
	Event
	attribution() *Attribution
}](e T, f *flat, tag string) Event {
	b := &fastBox[T]{e: e, tag: tag, ts: f.ts}
	p := P(&b.e)
	if f.seen&seenTag != 0 {
		p.attribution().Subagent = &b.tag
	}
	if f.seen&seenTimestamp != 0 {
		p.Common().Timestamp = &b.ts
	}
	return p
}

// scanFlat scans an event object of spec's type whose members are type, the
// id, delta, subagentRunId and timestamp.
func scanFlat(data []byte, spec *fastSpec) (f flat, ok bool) {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return f, false
	}
	i = skipWS(data, i+1)
	for {
		if i >= len(data) || data[i] != '"' {
			return f, false
		}
		ks, ok := scanString(data, i)
		if !ok || ks.escaped {
			return f, false
		}
		key := data[i+1 : ks.end-1]
		i = skipWS(data, ks.end)
		if i >= len(data) || data[i] != ':' {
			return f, false
		}
		i = skipWS(data, i+1)
		if i >= len(data) {
			return f, false
		}
		var bit uint8
		switch {
		case string(key) == "type":
			bit = seenType
			s, ok := scanStr(data, i)
			if !ok || s.escaped || string(data[s.lo:s.hi]) != string(spec.typ) {
				return f, false
			}
			i = s.hi + 1
		case spec.id != "" && string(key) == spec.id:
			bit = seenID
			if i, ok = strInto(data, i, &f.id); !ok {
				return f, false
			}
		case string(key) == "delta" && spec.raw:
			bit = seenDelta
			if data[i] != '[' {
				return f, false
			}
			end, ok := scanPatch(data, i)
			if !ok {
				return f, false // not JSON, or not a patch this pass vouches for
			}
			f.patch, i = span{lo: i, hi: end}, end
		case string(key) == "delta":
			bit = seenDelta
			if i, ok = strInto(data, i, &f.delta); !ok {
				return f, false
			}
		case string(key) == "subagentRunId":
			bit = seenTag
			if i, ok = strInto(data, i, &f.tag); !ok {
				return f, false
			}
		case string(key) == "timestamp":
			bit = seenTimestamp
			end, plain, ok := scanNumber(data, i)
			if !ok || !plain || end-i > 17 {
				return f, false
			}
			n, ok := plainInt(data[i:end])
			if !ok {
				return f, false
			}
			f.ts, i = n, end
		default:
			// rawEvent, metadata, and unknown members, which the reference
			// path reports (G20).
			return f, false
		}
		if f.seen&bit != 0 {
			return f, false // a duplicate: the reference path decides which wins
		}
		f.seen |= bit
		i = skipWS(data, i)
		if i >= len(data) {
			return f, false
		}
		if data[i] == '}' {
			break
		}
		if data[i] != ',' {
			return f, false
		}
		i = skipWS(data, i+1)
	}
	if skipWS(data, i+1) != len(data) {
		return f, false
	}
	required := uint8(seenType | seenDelta)
	if spec.id != "" {
		required |= seenID
	}
	return f, f.seen&required == required
}

// scanStr scans the string value at data[i].
func scanStr(data []byte, i int) (span, bool) {
	if data[i] != '"' {
		return span{}, false
	}
	s, ok := scanString(data, i)
	if !ok || (s.wide && !utf8.Valid(data[i+1:s.end-1])) {
		return span{}, false // invalid UTF-8 is replaced by encoding/json: leave it to it
	}
	return span{lo: i + 1, hi: s.end - 1, escaped: s.escaped}, true
}

// strInto scans the string value at data[i] into sp; it returns the index
// past the value.
func strInto(data []byte, i int, sp *span) (int, bool) {
	s, ok := scanStr(data, i)
	*sp = s
	return s.hi + 1, ok
}

// plainInt parses -?[0-9]{1,16} and checks the safe-integer range.
func plainInt(b []byte) (int64, bool) {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var n int64
	for _, c := range b {
		n = n*10 + int64(c-'0')
	}
	if n > maxSafeInt {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// joinSpans decodes the id, delta and tag spans into one string and returns
// the three parts. ok is false for an escape the fast path leaves to
// encoding/json (a surrogate).
func joinSpans(data []byte, f *flat) (out [3]string, ok bool) {
	spans := [3]*span{&f.id, &f.delta, &f.tag}
	total := 0
	for _, sp := range spans {
		total += sp.hi - sp.lo
	}
	if total == 0 {
		return out, true
	}
	b := make([]byte, 0, total)
	var ends [3]int
	for k, sp := range spans {
		if !sp.escaped {
			b = append(b, data[sp.lo:sp.hi]...)
		} else if b, ok = wire.AppendUnescaped(b, data[sp.lo:sp.hi]); !ok {
			return out, false
		}
		ends[k] = len(b)
	}
	// b is never written again: the string may share it.
	s := unsafe.String(unsafe.SliceData(b), len(b))
	out[0], out[1], out[2] = s[:ends[0]], s[ends[0]:ends[1]], s[ends[1]:ends[2]]
	return out, true
}

func init() { wire.ScanDelta = scanDelta }

// scanDelta reads a TEXT_MESSAGE_CONTENT, TOOL_CALL_ARGS or
// REASONING_MESSAGE_CONTENT in place, in the shapes the fast path decodes,
// with an id and tag free of escapes (see internal/wire).
func scanDelta(data []byte) (wire.Delta, bool) {
	spec := fastSpecOf(data)
	if spec == nil || spec.raw {
		return wire.Delta{}, false
	}
	f, ok := scanFlat(data, spec)
	if !ok || f.id.escaped || f.tag.escaped {
		return wire.Delta{}, false
	}
	return wire.Delta{
		Type:    string(spec.typ),
		ID:      data[f.id.lo:f.id.hi],
		Tag:     data[f.tag.lo:f.tag.hi],
		Tagged:  f.seen&seenTag != 0,
		Text:    data[f.delta.lo:f.delta.hi],
		Escaped: f.delta.escaped,
	}, true
}

// scanPatch scans the JSON Patch array at data[i] == '[' and returns the
// index just past it, when it is valid JSON and passes the checks of
// patchOps: every operation an object, and one whose op is one of the six
// with the path, from and value it needs, path and from JSON pointers. It
// reports false for anything it does not read in place (escaped member
// names, op, path or from), leaving the reference path to decide.
func scanPatch(data []byte, i int) (int, bool) {
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '{' {
			return 0, false
		}
		var op, path, from []byte
		value := false
		i = skipWS(data, i+1)
		if i < len(data) && data[i] != '}' {
			for {
				if i >= len(data) || data[i] != '"' {
					return 0, false
				}
				ks, ok := scanString(data, i)
				if !ok || ks.escaped {
					return 0, false
				}
				key := data[i+1 : ks.end-1]
				i = skipWS(data, ks.end)
				if i >= len(data) || data[i] != ':' {
					return 0, false
				}
				i = skipWS(data, i+1)
				end, ok := skipValue(data, i, 2)
				if !ok {
					return 0, false
				}
				switch string(key) {
				case "op":
					op = data[i:end]
				case "path":
					path = data[i:end]
				case "from":
					from = data[i:end]
				case "value":
					value = true
				}
				i = skipWS(data, end)
				if i < len(data) && data[i] == '}' {
					break
				}
				if i >= len(data) || data[i] != ',' {
					return 0, false
				}
				i = skipWS(data, i+1)
			}
		}
		if i >= len(data) || bytes.IndexByte(op, '\\') >= 0 {
			return 0, false
		}
		switch string(op) {
		case `"add"`, `"replace"`, `"test"`:
			if !plainPointer(path) || !value {
				return 0, false
			}
		case `"move"`, `"copy"`:
			if !plainPointer(path) || !plainPointer(from) {
				return 0, false
			}
		case `"remove"`:
			if !plainPointer(path) {
				return 0, false
			}
		}
		i = skipWS(data, i+1) // past '}'
		if i < len(data) && data[i] == ']' {
			return i + 1, true
		}
		if i >= len(data) || data[i] != ',' {
			return 0, false
		}
		i = skipWS(data, i+1)
	}
}

// plainPointer reports whether v is a JSON string literal without escapes
// that holds a JSON pointer.
func plainPointer(v []byte) bool {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return false
	}
	return badPointer(v[1:len(v)-1]) == ""
}
