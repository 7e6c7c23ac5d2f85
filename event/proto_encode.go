package event

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agview/agview/internal/wire"
)

// MaxProtoFrame is the largest ag_ui.Event message the protobuf framing
// carries, 10 MiB, as the reference client's limit.
const MaxProtoFrame = 10 << 20

// AppendProto appends the protobuf form of e, one ag_ui.Event message
// without a length prefix, to dst.
//
// Fields are written in field-number order, absent optional fields and
// proto3 fields at their zero value are left out, and JSON objects keep their
// member order, which is what @ag-ui/proto@1.0.0's encoder writes for the
// same event. For every event e that Decode or DecodeProto returns,
// DecodeProto(AppendProto(nil, e)) equals e, except where protobuf cannot
// tell apart what JSON can: an empty optional list reads back absent, and a
// raw JSON number reads back as the float64 it denotes, formatted as
// JavaScript formats it.
//
// AppendProto returns *EncodeError for an event with no protobuf form: a
// THINKING_* event, a string holding a lone UTF-16 surrogate (protobuf
// strings are UTF-8), a JSON Patch op outside RFC 6902's six, a content part
// or source type the schema has no arm for, and whatever Encode refuses.
func AppendProto(dst []byte, e Event) ([]byte, error) {
	if e == nil {
		return dst, &EncodeError{Reason: "nil event"}
	}
	if b, ok := appendProtoFast(dst, e); ok {
		return b, nil
	}
	t := e.EventType()
	arm := armOf[t]
	if arm == 0 {
		return dst, &EncodeError{Type: t, Reason: "the type has no protobuf form (deprecated; no ag_ui.Event arm)"}
	}
	js, err := Encode(e)
	if err != nil {
		return dst, err
	}
	return appendProtoMembers(dst, t, arm, members(js))
}

// AppendProtoJSON appends the protobuf form of one event's wire JSON to dst,
// without checking it as Decode does: the members the schema has a field for
// are carried as they are, the others are left out. It is for tools that must
// put a producer's mistakes on the wire too (package agenttest serves its
// scripts' frames so); what Decode refuses may decode from protobuf (a
// missing string reads as "") or be refused differently. It returns
// *EncodeError when data is not a JSON object with a known "type" or a member
// has a JSON type its field cannot carry.
func AppendProtoJSON(dst, data []byte) ([]byte, error) {
	if !json.Valid(data) {
		return dst, &EncodeError{Reason: "not valid JSON"}
	}
	ms := members(data)
	if ms == nil && (len(data) == 0 || data[wire.SkipWS(data, 0)] != '{') {
		return dst, &EncodeError{Reason: "not a JSON object"}
	}
	raw := find(ms, "type")
	var t Type
	if len(raw) > 1 && raw[0] == '"' {
		s, _ := unescapeJSON(raw)
		t = Type(s)
	}
	arm := armOf[t]
	if arm == 0 {
		return dst, &EncodeError{Type: t, Pointer: "/type", Reason: "no ag_ui.Event arm carries this type"}
	}
	return appendProtoMembers(dst, t, arm, ms)
}

// appendProtoMembers writes the event of type t, whose JSON members are ms,
// in the Event arm arm.
func appendProtoMembers(dst []byte, t Type, arm protowire.Number, ms []jmember) ([]byte, error) {
	w := &penc{b: dst, typ: t}
	a := &eventArms[arm]
	start := w.open(arm)
	bs := w.open(1)
	if a.enum != 0 {
		w.b = protowire.AppendTag(w.b, 1, protowire.VarintType)
		w.b = protowire.AppendVarint(w.b, uint64(a.enum))
	}
	if raw := find(ms, "timestamp"); raw != nil {
		w.push("timestamp")
		w.int64(2, raw)
		w.pop()
	}
	if raw := find(ms, "rawEvent"); raw != nil {
		w.push("rawEvent")
		w.value(3, raw)
		w.pop()
	}
	if raw := find(ms, "metadata"); raw != nil {
		w.push("metadata")
		w.structObj(4, raw)
		w.pop()
	}
	w.close(bs)
	w.fields(a.msg, ms)
	w.close(start)
	if w.err != nil {
		return dst, w.err
	}
	return w.b, nil
}

// AppendProtoFrame appends e as one frame of the protobuf framing: the
// message's length as a 4-byte big-endian integer, then the message.
func AppendProtoFrame(dst []byte, e Event) ([]byte, error) {
	n := len(dst)
	b, err := AppendProto(append(dst, 0, 0, 0, 0), e)
	if err != nil {
		return dst, err
	}
	size := len(b) - n - 4
	if size > MaxProtoFrame {
		return dst, &EncodeError{Type: e.EventType(), Reason: "the message is " + strconv.Itoa(size) +
			" bytes, over the 10 MiB frame limit"}
	}
	binary.BigEndian.PutUint32(b[n:], uint32(size))
	return b, nil
}

// penc writes protobuf from an event's JSON.
type penc struct {
	b    []byte
	typ  Type
	path []string
	err  *EncodeError
}

func (w *penc) push(s string) { w.path = append(w.path, s) }
func (w *penc) pop()          { w.path = w.path[:len(w.path)-1] }

func (w *penc) fail(reason string) {
	if w.err != nil {
		return
	}
	w.err = &EncodeError{Type: w.typ, Pointer: pointerOf(w.path), Reason: reason}
}

// open starts the length-delimited field num and returns where its content
// starts; close writes its length.
func (w *penc) open(num protowire.Number) int {
	w.b = protowire.AppendTag(w.b, num, protowire.BytesType)
	w.b = append(w.b, 0)
	return len(w.b)
}

func (w *penc) close(start int) {
	n := len(w.b) - start
	size := protowire.SizeVarint(uint64(n))
	if size > 1 {
		w.b = append(w.b, make([]byte, size-1)...)
		copy(w.b[start+size-1:], w.b[start:start+n])
	}
	protowire.AppendVarint(w.b[:start-1], uint64(n))
}

// jmember is one member of a JSON object.
type jmember struct {
	name string
	raw  []byte
}

// members splits a well-formed JSON object into its members.
func members(raw []byte) []jmember {
	var out []jmember
	i := wire.SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil
	}
	i = wire.SkipWS(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		s, ok := wire.ScanString(raw, i)
		if !ok {
			return out
		}
		name, _ := unescapeJSON(raw[i:s.End])
		i = wire.SkipWS(raw, s.End)
		i = wire.SkipWS(raw, i+1) // ':'
		end, ok := skipValid(raw, i)
		if !ok {
			return out
		}
		out = append(out, jmember{name: name, raw: raw[i:end]})
		i = wire.SkipWS(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = wire.SkipWS(raw, i+1)
		}
	}
	return out
}

// skipValid returns the index just past the value that starts at raw[i] in
// well-formed JSON, however deeply it nests: without a loop per level (as
// wire.SkipValue, bounded at wire.MaxDepth, has), a member or element nested
// deeper than that would be silently left out of the protobuf form, and a
// state the fold accepted (docs/protocol.md G21: up to patch.MaxNesting
// levels) would not survive the encoding. It reports false when raw ends
// inside the value.
func skipValid(raw []byte, i int) (int, bool) {
	if i < len(raw) && raw[i] != '"' && raw[i] != '{' && raw[i] != '[' {
		// A number or a literal ends where a delimiter begins.
		start := i
		for i < len(raw) && !strings.ContainsRune(",:]} \t\n\r", rune(raw[i])) {
			i++
		}
		return i, i > start
	}
	depth := 0
	for i < len(raw) {
		switch raw[i] {
		case '"':
			s, ok := wire.ScanString(raw, i)
			if !ok {
				return 0, false
			}
			i = s.End
			if depth == 0 {
				return i, true
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth <= 0 {
				return i + 1, depth == 0
			}
		}
		i++
	}
	return 0, false
}

// elements splits a well-formed JSON array into its elements.
func elements(raw []byte) [][]byte {
	var out [][]byte
	i := wire.SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil
	}
	i = wire.SkipWS(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		end, ok := skipValid(raw, i)
		if !ok {
			return out
		}
		out = append(out, raw[i:end])
		i = wire.SkipWS(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = wire.SkipWS(raw, i+1)
		}
	}
	return out
}

// find returns the last member name of ms (the one JSON.parse keeps).
func find(ms []jmember, name string) []byte {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].name == name {
			return ms[i].raw
		}
	}
	return nil
}

// unescapeJSON decodes a JSON string literal (quotes included). ok is false
// for a lone surrogate, which UTF-8 cannot hold; the string then holds it as
// WTF-8, which is not valid UTF-8.
func unescapeJSON(lit []byte) (s string, ok bool) {
	body := lit[1 : len(lit)-1]
	if !strings.ContainsRune(string(body), '\\') {
		return string(body), true
	}
	ok = true
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch e := body[i+1]; e {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(body[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				paired := r < 0xDC00 && i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u'
				if paired {
					if r2 := hex4(body[i+2 : i+6]); r2 >= 0xDC00 && r2 <= 0xDFFF {
						out = utf8.AppendRune(out, utf16.DecodeRune(r, r2))
						i += 6
						continue
					}
				}
				ok = false
				out = append(out, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
				continue
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			out = append(out, e)
		}
		i += 2
	}
	return string(out), ok
}

func hex4(b []byte) rune {
	var r rune
	for _, h := range b {
		switch {
		case h <= '9':
			r = r<<4 | rune(h-'0')
		case h >= 'a':
			r = r<<4 | rune(h-'a'+10)
		default:
			r = r<<4 | rune(h-'A'+10)
		}
	}
	return r
}

// jstr decodes the JSON string raw, failing for anything else.
func (w *penc) jstr(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		w.fail("want a string")
		return "", false
	}
	s, ok := unescapeJSON(raw)
	if !ok {
		w.fail("the string holds a lone UTF-16 surrogate, which a protobuf string (UTF-8) cannot carry")
	}
	return s, ok
}

func (w *penc) string(num protowire.Number, s string) {
	w.b = protowire.AppendTag(w.b, num, protowire.BytesType)
	w.b = protowire.AppendString(w.b, s)
}

func (w *penc) int64(num protowire.Number, raw []byte) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		w.fail("want an integer")
		return
	}
	w.b = protowire.AppendTag(w.b, num, protowire.VarintType)
	w.b = protowire.AppendVarint(w.b, uint64(n))
}

// fields writes m's fields found in ms, in field-number order.
func (w *penc) fields(m *pmsg, ms []jmember) {
	for i := range m.fields {
		if w.err != nil {
			return
		}
		f := &m.fields[i]
		raw := find(ms, f.name)
		if raw == nil {
			continue
		}
		w.push(f.name)
		w.field(f, raw)
		w.pop()
	}
}

func (w *penc) field(f *pfield, raw []byte) {
	switch f.kind {
	case pkString:
		if s, ok := w.jstr(raw); ok && (s != "" || !f.always) {
			w.string(f.num, s)
		}
	case pkInt64:
		w.int64(f.num, raw)
	case pkBool:
		w.b = protowire.AppendTag(w.b, f.num, protowire.VarintType)
		w.b = protowire.AppendVarint(w.b, protowire.EncodeBool(raw[0] == 't'))
	case pkValue:
		w.value(f.num, raw)
	case pkStruct:
		w.structObj(f.num, raw)
	case pkMsg:
		if !f.rep {
			w.message(f.num, f.msg, raw)
			return
		}
		for k, el := range elements(raw) {
			w.push(strconv.Itoa(k))
			w.message(f.num, f.msg, el)
			w.pop()
		}
	case pkOp:
		s, ok := w.jstr(raw)
		if !ok {
			return
		}
		for v, op := range patchOps {
			if op == s {
				if v != 0 {
					w.b = protowire.AppendTag(w.b, f.num, protowire.VarintType)
					w.b = protowire.AppendVarint(w.b, uint64(v))
				}
				return
			}
		}
		w.fail("op " + strconv.Quote(s) + " has no JsonPatchOperationType value")
	case pkRunOutcome, pkSubOutcome:
		om := members(raw)
		t, ok := w.jstr(find(om, "type"))
		if !ok {
			return
		}
		if t == "" {
			w.fail("an outcome without a type has no protobuf form: the flattened outcome \"\" means no outcome")
			return
		}
		w.string(f.num, t)
		if f.kind == pkRunOutcome {
			if list := find(om, "interrupts"); list != nil {
				w.field(&pfield{num: 6, kind: pkMsg, msg: pbInterrupt, rep: true}, list)
			}
		} else if ids := find(om, "interruptIds"); ids != nil {
			w.strings(5, ids)
		}
	case pkRunPending:
		om := members(raw)
		if ids := find(om, "pendingToolCallIds"); ids != nil {
			w.strings(8, ids)
		}
	case pkMsgContent, pkResultContent:
		if raw[0] == '"' {
			if s, ok := w.jstr(raw); ok {
				w.string(f.num, s)
			}
		}
	case pkMsgParts, pkResultParts:
		if raw[0] == '[' {
			for k, el := range elements(raw) {
				w.push(strconv.Itoa(k))
				w.part(f.num, el)
				w.pop()
			}
		}
	case pkMsgActivity:
		if raw[0] == '{' {
			w.structObj(f.num, raw)
		}
	case pkSource:
		w.oneof(f.num, sourceArms, raw, "source type", "InputContentSource")
	}
}

func (w *penc) strings(num protowire.Number, raw []byte) {
	for _, el := range elements(raw) {
		if s, ok := w.jstr(el); ok {
			w.string(num, s)
		}
	}
}

// message writes the JSON object raw as the message m in field num.
func (w *penc) message(num protowire.Number, m *pmsg, raw []byte) {
	start := w.open(num)
	w.fields(m, members(raw))
	w.close(start)
}

// part writes a content part as an InputContent in field num.
func (w *penc) part(num protowire.Number, raw []byte) {
	w.oneof(num, partArms, raw, "content part type", "InputContent")
}

// oneof writes the JSON object raw, whose "type" names one of arms, as the
// oneof message (named msg in errors) in field num.
func (w *penc) oneof(num protowire.Number, arms []oneofArm, raw []byte, what, msg string) {
	t, ok := w.jstr(find(members(raw), "type"))
	if !ok {
		return
	}
	for n := range arms {
		if arms[n].typ == t && arms[n].msg != nil {
			start := w.open(num)
			w.message(protowire.Number(n), arms[n].msg, raw)
			w.close(start)
			return
		}
	}
	w.fail(what + " " + strconv.Quote(t) + " has no " + msg + " arm")
}

// value writes the JSON value raw as a google.protobuf.Value in field num.
func (w *penc) value(num protowire.Number, raw []byte) {
	start := w.open(num)
	switch raw[0] {
	case 'n':
		w.b = append(w.b, 1<<3|byte(protowire.VarintType), 0)
	case 't', 'f':
		w.b = protowire.AppendTag(w.b, 4, protowire.VarintType)
		w.b = protowire.AppendVarint(w.b, protowire.EncodeBool(raw[0] == 't'))
	case '"':
		if s, ok := w.jstr(raw); ok {
			w.string(3, s)
		}
	case '{':
		w.structObj(5, raw)
	case '[':
		list := w.open(6)
		for k, el := range elements(raw) {
			w.push(strconv.Itoa(k))
			w.value(1, el)
			w.pop()
		}
		w.close(list)
	default:
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil && !math.IsInf(f, 0) {
			w.fail("want a JSON number")
		} else if math.IsInf(f, 0) {
			w.fail("the number is beyond float64's range, which google.protobuf.Value holds")
		}
		w.b = protowire.AppendTag(w.b, 2, protowire.Fixed64Type)
		w.b = protowire.AppendFixed64(w.b, math.Float64bits(f))
	}
	w.close(start)
}

// structObj writes the JSON object raw as a google.protobuf.Struct in field
// num, its entries in member order.
func (w *penc) structObj(num protowire.Number, raw []byte) {
	start := w.open(num)
	for _, m := range members(raw) {
		if w.err != nil {
			break
		}
		w.push(m.name)
		if !utf8.ValidString(m.name) {
			w.fail("the key holds a lone UTF-16 surrogate, which a protobuf string (UTF-8) cannot carry")
		}
		entry := w.open(1)
		if m.name != "" {
			w.string(1, m.name)
		}
		w.value(2, m.raw)
		w.close(entry)
		w.pop()
	}
	w.close(start)
}
