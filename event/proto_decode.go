package event

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agview/agview/internal/jsonstr"
)

// MediaTypeProto is the media type of AG-UI's protobuf framing (docs/protocol.md
// §2.4): each event is a 4-byte big-endian length and one ag_ui.Event
// message.
const MediaTypeProto = "application/vnd.ag-ui.event+proto"

// maxProtoDepth bounds the nesting of google.protobuf.Value (one level per
// JSON value, a Struct's or a ListValue's included) and of messages inside one
// event, as the JSON decoder bounds documents (G21).
const maxProtoDepth = 10000

// DecodeProto decodes one event from its protobuf form: the bytes of one
// ag_ui.Event message (a frame without its length prefix).
//
// The result is what Decode returns for the same event's JSON, with the same
// errors and warnings: the oneof arm gives the type, base_event's fields and
// the arm's fields give the members, and the JSON decoder's checks apply to
// them (a missing required value, a role or outcome it refuses, a timestamp
// outside the safe-integer range, rule R1…R4, E2, E3, E4). A reducer cannot
// tell which encoding an event came from. What only protobuf can get wrong is
// refused the same way, with *DecodeError (rule E3) naming the field's JSON
// pointer and the byte offset in msg where the offending field starts:
// malformed wire data, a field number out of range, a known field of the
// wrong wire type, a string that is not UTF-8, a base_event.type or
// JsonPatchOperationType value the schema does not define, a base_event.type
// naming another type than the arm's, a google.protobuf.Value with no kind,
// two kinds or a non-finite number, nesting deeper than 10,000 levels, an
// Event with no arm or with two, and a message field given twice (protobuf
// would merge the two; no encoder writes that). Of a scalar field given
// several times the last wins, as in protobuf's own decoders. An arm the
// schema does not define returns *UnknownTypeError with its field number
// (Arm): callers skip it with a warning, as they skip an unknown JSON type.
// Unknown fields inside a known message are ignored, as unknown JSON members
// are.
//
// The schema is ../shared/spec/proto's with the additions of
// @ag-ui/proto@1.0.0 (see the field tables in proto_schema.go), so the 31
// event types of the 1.0 release all have a protobuf form; the THINKING_*
// types have none. A proto3 string without presence that is absent reads as
// "", a required list that is absent as [].
//
// Like Decode, DecodeProto may be called from any goroutine, and the event
// owns its memory: msg may be reused once it returns.
func DecodeProto(msg []byte) (Event, error) {
	if e, ok := decodeProtoFast(msg); ok {
		return e, nil
	}
	return decodeProtoGeneral(msg)
}

// decodeProtoGeneral is DecodeProto without the fast path.
func decodeProtoGeneral(msg []byte) (Event, error) {
	d := pdecPool.Get().(*pdec)
	defer d.release()
	if err := d.transcode(msg); err != nil {
		return nil, err
	}
	e, err := Decode(d.out)
	if err != nil {
		// Transcode again, noting where each JSON value came from, to
		// turn the error's JSON offset into one in msg.
		d.out, d.path, d.typ, d.depth, d.track = d.out[:0], d.path[:0], "", 0, true
		d.event()
		d.relocate(err)
	}
	return e, err
}

// ProtoJSON returns the JSON form of one ag_ui.Event message as DecodeProto
// reads it before checking it: the event's type, base_event's fields and the
// arm's fields under their JSON names, nothing checked beyond the wire (so
// that a producer can read what it sent, mistakes included). Its error is a
// *DecodeError for what DecodeProto refuses on the wire (malformed data, a
// wrong wire type, a string that is not UTF-8, an undefined enum value, a
// google.protobuf.Value with no kind), or an *UnknownTypeError for an arm
// the schema does not define.
func ProtoJSON(msg []byte) ([]byte, error) {
	d := pdecPool.Get().(*pdec)
	defer d.release()
	if err := d.transcode(msg); err != nil {
		return nil, err
	}
	return bytes.Clone(d.out), nil
}

// transcode writes the JSON of the ag_ui.Event msg to d.out. Its error is a
// *DecodeError, or an *UnknownTypeError for an arm the schema lacks.
func (d *pdec) transcode(msg []byte) error {
	d.src = msg
	if arm, err := d.event(); err != nil {
		return err
	} else if arm != 0 {
		return &UnknownTypeError{Arm: int(arm)}
	}
	return nil
}

var pdecPool = sync.Pool{New: func() any { return new(pdec) }}

// pdec transcodes one ag_ui.Event into the event's JSON, which the JSON
// decoder then checks and converts: the two encodings share one set of
// rules.
type pdec struct {
	src   []byte
	out   []byte   // the event's JSON
	path  []string // JSON pointer of the value being written
	marks []pmark  // where each written value came from
	typ   Type
	depth int
	track bool // record marks
	err   *DecodeError
}

// pmark says that the JSON written from out offset j on came from the
// protobuf field starting at src offset p.
type pmark struct{ j, p int }

// pocc is one field occurrence in a message.
type pocc struct {
	num protowire.Number
	typ protowire.Type
	off int    // where the field's tag starts in src
	v   uint64 // a varint or fixed64 value
	b   []byte // a length-delimited value
}

func (d *pdec) release() {
	if cap(d.out) > 1<<20 || cap(d.marks) > 1<<14 {
		return // let an unusually large buffer go
	}
	d.src, d.out, d.path, d.marks, d.typ, d.depth, d.track, d.err = nil, d.out[:0], d.path[:0], d.marks[:0], "", 0, false, nil
	pdecPool.Put(d)
}

// relocate makes the offset of a *DecodeError from the event's JSON an
// offset in src.
func (d *pdec) relocate(err error) {
	var de *DecodeError
	if errors.As(err, &de) {
		de.Offset = d.protoOffset(de.Offset)
	}
}

// protoOffset maps an offset in the JSON to the offset in src of the field
// the JSON there was written from.
func (d *pdec) protoOffset(j int64) int64 {
	if j < 0 {
		return j
	}
	p := 0
	for _, m := range d.marks {
		if int64(m.j) > j {
			break
		}
		p = m.p
	}
	return int64(p)
}

// fail records the first error: the JSON pointer of the current path, at
// src offset off.
func (d *pdec) fail(off int, reason string) {
	if d.err != nil {
		return
	}
	d.err = &DecodeError{Type: d.typ, Pointer: pointerOf(d.path), Offset: int64(off), Rule: RuleSchema, Reason: reason}
}

// pointerOf returns the JSON pointer of the path's members and indices.
func pointerOf(path []string) string {
	var ptr strings.Builder
	for _, s := range path {
		ptr.WriteByte('/')
		ptr.WriteString(escapePointer(s))
	}
	return ptr.String()
}

func (d *pdec) push(s string) { d.path = append(d.path, s) }
func (d *pdec) pop()          { d.path = d.path[:len(d.path)-1] }

// scan appends the field occurrences of the message b, which starts at src
// offset base, to occs.
func (d *pdec) scan(b []byte, base int, occs []pocc) []pocc {
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			d.fail(base+i, "malformed protobuf: "+protowire.ParseError(n).Error())
			return occs
		}
		if num > protowire.MaxValidNumber {
			d.fail(base+i, "malformed protobuf: field number "+strconv.FormatInt(int64(num), 10)+" is out of range")
			return occs
		}
		o := pocc{num: num, typ: typ, off: base + i}
		i += n
		var m int
		switch typ {
		case protowire.VarintType:
			o.v, m = protowire.ConsumeVarint(b[i:])
		case protowire.Fixed64Type:
			o.v, m = protowire.ConsumeFixed64(b[i:])
		case protowire.Fixed32Type:
			var v uint32
			v, m = protowire.ConsumeFixed32(b[i:])
			o.v = uint64(v)
		case protowire.BytesType:
			o.b, m = protowire.ConsumeBytes(b[i:])
		default:
			m = protowire.ConsumeFieldValue(num, typ, b[i:])
		}
		if m < 0 {
			d.fail(o.off, "malformed protobuf in field "+strconv.Itoa(int(num))+": "+protowire.ParseError(m).Error())
			return occs
		}
		i += m
		occs = append(occs, o)
	}
	return occs
}

// last returns the last occurrence of field num, or nil.
func last(occs []pocc, num protowire.Number) *pocc {
	for i := len(occs) - 1; i >= 0; i-- {
		if occs[i].num == num {
			return &occs[i]
		}
	}
	return nil
}

// once checks the occurrences of the singular field num other than the
// last, which the caller reads: a message field may appear once (protobuf
// would merge the occurrences, which no encoder writes); a scalar may repeat,
// the last winning, but each occurrence must be well-formed (scalar says it
// is one: a string when str, else a varint).
func (d *pdec) once(occs []pocc, num protowire.Number, scalar, str bool) {
	var lastOne *pocc
	for i := len(occs) - 1; i >= 0; i-- {
		o := &occs[i]
		if o.num != num {
			continue
		}
		if lastOne == nil {
			lastOne = o
			continue
		}
		switch {
		case !scalar:
			d.fail(lastOne.off, "protobuf field "+strconv.Itoa(int(num))+" appears more than once")
		case str && d.want(o, protowire.BytesType) && !utf8.Valid(o.b):
			d.fail(o.off, "string is not valid UTF-8, which protobuf requires")
		case !str:
			d.want(o, protowire.VarintType)
		}
		if d.err != nil {
			return
		}
	}
}

// want checks o's wire type.
func (d *pdec) want(o *pocc, t protowire.Type) bool {
	if o.typ == t {
		return true
	}
	d.fail(o.off, "protobuf field "+strconv.Itoa(int(o.num))+" has wire type "+wireTypeName(o.typ)+", want "+wireTypeName(t))
	return false
}

// view returns b as a string without copying it, for a call that does not
// keep the string.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func wireTypeName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "varint"
	case protowire.Fixed32Type:
		return "fixed32"
	case protowire.Fixed64Type:
		return "fixed64"
	case protowire.BytesType:
		return "length-delimited"
	case protowire.StartGroupType, protowire.EndGroupType:
		return "group"
	}
	return strconv.Itoa(int(t))
}

func (d *pdec) mark(p int) {
	if d.track {
		d.marks = append(d.marks, pmark{j: len(d.out), p: p})
	}
}

// key writes the member name k, after a comma unless it is the first.
func (d *pdec) key(k string) {
	if c := d.out[len(d.out)-1]; c != '{' {
		d.out = append(d.out, ',')
	}
	d.out = jsonstr.AppendValid(d.out, k)
	d.out = append(d.out, ':')
}

// elem writes the comma before an array element unless it is the first.
func (d *pdec) elem() {
	if c := d.out[len(d.out)-1]; c != '[' {
		d.out = append(d.out, ',')
	}
}

// str writes o's bytes as a JSON string.
func (d *pdec) str(o *pocc) {
	if !d.want(o, protowire.BytesType) {
		return
	}
	if !utf8.Valid(o.b) {
		d.fail(o.off, "string is not valid UTF-8, which protobuf requires")
		return
	}
	d.out = jsonstr.Append(d.out, view(o.b), jsonstr.Go)
}

// event transcodes src, an ag_ui.Event. It returns the field number of the
// last arm when that is one the schema does not define and none it defines
// is present.
func (d *pdec) event() (protowire.Number, *DecodeError) {
	var arr [4]pocc
	occs := d.scan(d.src, 0, arr[:0])
	if d.err != nil {
		return 0, d.err
	}
	var arm *pocc
	unknown := protowire.Number(0)
	for i := range occs {
		n := occs[i].num
		if int(n) < len(eventArms) && eventArms[n].msg != nil {
			if arm != nil {
				d.push("type")
				d.fail(occs[i].off, "the ag_ui.Event sets more than one oneof arm")
				d.pop()
				return 0, d.err
			}
			arm = &occs[i]
		} else {
			unknown = n
		}
	}
	if arm == nil {
		if unknown != 0 {
			return unknown, nil
		}
		d.push("type")
		d.fail(0, "the ag_ui.Event sets no oneof arm; every event names its type")
		d.pop()
		return 0, d.err
	}
	a := &eventArms[arm.num]
	d.typ = a.typ
	if !d.want(arm, protowire.BytesType) {
		return 0, d.err
	}
	var arr2 [8]pocc
	fields := d.scan(arm.b, d.valueStart(arm), arr2[:0])
	if d.err != nil {
		return 0, d.err
	}
	d.mark(arm.off)
	d.out = append(d.out, `{"type":`...)
	d.out = jsonstr.AppendValid(d.out, string(a.typ))
	d.once(fields, 1, false, false)
	if be := last(fields, 1); be != nil && d.err == nil {
		d.base(a, be)
	}
	d.fields(a.msg, fields)
	d.out = append(d.out, '}')
	return 0, d.err
}

// valueStart returns the src offset where o's length-delimited bytes start.
func (d *pdec) valueStart(o *pocc) int {
	_, _, n := protowire.ConsumeTag(d.src[o.off:])
	_, m := protowire.ConsumeVarint(d.src[o.off+n:])
	return o.off + n + m
}

// base writes base_event's timestamp, rawEvent and metadata after checking
// its type against the arm's.
func (d *pdec) base(a *parm, be *pocc) {
	if !d.want(be, protowire.BytesType) {
		return
	}
	var arr [4]pocc
	occs := d.scan(be.b, d.valueStart(be), arr[:0])
	d.once(occs, 1, true, false)
	d.once(occs, 2, true, false)
	d.once(occs, 3, false, false)
	d.once(occs, 4, false, false)
	if d.err != nil {
		return
	}
	if o := last(occs, 1); o != nil && d.want(o, protowire.VarintType) {
		if v := int32(o.v); int64(o.v) != int64(v) || v < 0 || int(v) >= len(enumNames) {
			d.push("type")
			d.fail(o.off, "base_event.type "+strconv.FormatInt(int64(o.v), 10)+" is not an EventType value")
			d.pop()
		} else if v != a.enum {
			d.push("type")
			d.fail(o.off, "base_event.type is "+string(enumNames[v])+" but the ag_ui.Event arm is "+string(a.typ))
			d.pop()
		}
	}
	if o := last(occs, 2); o != nil && d.want(o, protowire.VarintType) {
		d.mark(o.off)
		d.key("timestamp")
		d.out = strconv.AppendInt(d.out, int64(o.v), 10)
	}
	if o := last(occs, 3); o != nil {
		d.key("rawEvent")
		d.push("rawEvent")
		d.value(o)
		d.pop()
	}
	if o := last(occs, 4); o != nil {
		d.key("metadata")
		d.push("metadata")
		d.structObj(o)
		d.pop()
	}
}

// enter checks that o is a message and that it may nest one level deeper;
// when it may, the caller calls leave once done with it.
func (d *pdec) enter(o *pocc) bool {
	if !d.want(o, protowire.BytesType) {
		return false
	}
	if d.depth >= maxProtoDepth {
		d.fail(o.off, "nested deeper than 10000 levels")
		return false
	}
	d.depth++
	return true
}

func (d *pdec) leave() { d.depth-- }

// object writes the message of o as a JSON object of m's fields.
func (d *pdec) object(m *pmsg, o *pocc) {
	if !d.enter(o) {
		return
	}
	defer d.leave()
	var arr [12]pocc
	occs := d.scan(o.b, d.valueStart(o), arr[:0])
	d.mark(o.off)
	d.out = append(d.out, '{')
	d.fields(m, occs)
	d.out = append(d.out, '}')
}

// fields writes the members of m found in occs.
func (d *pdec) fields(m *pmsg, occs []pocc) {
	for i := range m.fields {
		if d.err != nil {
			return
		}
		f := &m.fields[i]
		switch f.kind {
		case pkRunOutcome:
			d.runOutcome(occs)
			continue
		case pkSubOutcome:
			d.subOutcome(occs)
			continue
		case pkMsgContent:
			d.msgContent(occs)
			continue
		case pkResultContent:
			d.resultContent(occs)
			continue
		case pkRunPending, pkMsgParts, pkMsgActivity, pkResultParts:
			continue // read with their outcome or content
		}
		if f.rep {
			d.list(f, occs)
			continue
		}
		d.once(occs, f.num, f.kind <= pkBool || f.kind == pkOp, f.kind == pkString)
		o := last(occs, f.num)
		if o == nil {
			if f.always {
				d.key(f.name)
				if f.kind == pkOp {
					d.out = append(d.out, `"add"`...) // ADD is the enum's zero
				} else {
					d.out = append(d.out, `""`...)
				}
			}
			continue
		}
		d.key(f.name)
		d.push(f.name)
		d.one(f, o)
		d.pop()
	}
}

// one writes the value of one occurrence of f.
func (d *pdec) one(f *pfield, o *pocc) {
	d.mark(o.off)
	switch f.kind {
	case pkString:
		d.str(o)
	case pkInt64:
		if d.want(o, protowire.VarintType) {
			d.out = strconv.AppendInt(d.out, int64(o.v), 10)
		}
	case pkBool:
		if d.want(o, protowire.VarintType) {
			d.out = strconv.AppendBool(d.out, o.v != 0)
		}
	case pkOp:
		if d.want(o, protowire.VarintType) {
			if o.v >= uint64(len(patchOps)) {
				d.fail(o.off, "JsonPatchOperationType "+strconv.FormatUint(o.v, 10)+" is not a defined value")
				return
			}
			d.out = jsonstr.AppendValid(d.out, patchOps[o.v])
		}
	case pkValue:
		d.value(o)
	case pkStruct:
		d.structObj(o)
	case pkMsg:
		d.object(f.msg, o)
	case pkSource:
		d.source(o)
	}
}

// list writes the repeated field f as an array, or nothing when it is absent
// and not required.
func (d *pdec) list(f *pfield, occs []pocc) {
	n := 0
	for i := range occs {
		if occs[i].num == f.num {
			n++
		}
	}
	if n == 0 && !f.always {
		return
	}
	d.key(f.name)
	d.push(f.name)
	d.out = append(d.out, '[')
	k := 0
	for i := range occs {
		if occs[i].num != f.num || d.err != nil {
			continue
		}
		d.elem()
		d.push(strconv.Itoa(k))
		d.one(f, &occs[i])
		d.pop()
		k++
	}
	d.out = append(d.out, ']')
	d.pop()
}

// strings writes the repeated string field num as the array member name.
func (d *pdec) strings(name string, num protowire.Number, occs []pocc) {
	d.key(name)
	d.push(name)
	d.out = append(d.out, '[')
	k := 0
	for i := range occs {
		if occs[i].num != num {
			continue
		}
		d.elem()
		d.push(strconv.Itoa(k))
		d.mark(occs[i].off)
		d.str(&occs[i])
		d.pop()
		k++
	}
	d.out = append(d.out, ']')
	d.pop()
}

func count(occs []pocc, num protowire.Number) int {
	n := 0
	for i := range occs {
		if occs[i].num == num {
			n++
		}
	}
	return n
}

// outcomeType reads a flattened outcome string (field num): "" when absent.
func (d *pdec) outcomeType(occs []pocc, num protowire.Number) (string, *pocc) {
	d.once(occs, num, true, true)
	o := last(occs, num)
	if o == nil || d.err != nil {
		return "", nil
	}
	if !d.want(o, protowire.BytesType) {
		return "", o
	}
	if !utf8.Valid(o.b) {
		d.push("outcome")
		d.fail(o.off, "string is not valid UTF-8, which protobuf requires")
		d.pop()
	}
	return string(o.b), o
}

// runOutcome writes RUN_FINISHED's outcome from outcome (5), interrupts (6)
// and pending_tool_call_ids (8): "" is no outcome, any other string the
// outcome's type, with the interrupts and ids given (the interrupts always
// for "interrupt"); the JSON decoder then judges the outcome as it judges
// JSON. Interrupts or ids without an outcome are refused.
func (d *pdec) runOutcome(occs []pocc) {
	t, o := d.outcomeType(occs, 5)
	n6, n8 := count(occs, 6), count(occs, 8)
	if d.err != nil || !d.outcomeGiven(t, occs, 6, 8) {
		return
	}
	d.key("outcome")
	d.push("outcome")
	d.mark(o.off)
	d.out = append(d.out, `{"type":`...)
	d.out = jsonstr.Append(d.out, t, jsonstr.Go)
	if t == "interrupt" || n6 > 0 {
		d.list(&pfield{num: 6, name: "interrupts", kind: pkMsg, msg: pbInterrupt, rep: true, always: true}, occs)
	}
	if n8 > 0 {
		d.strings("pendingToolCallIds", 8, occs)
	}
	d.out = append(d.out, '}')
	d.pop()
}

// outcomeGiven reports whether the flattened outcome t is given; when it is
// not, the lists of the fields nums must be empty too (else the event is
// refused).
func (d *pdec) outcomeGiven(t string, occs []pocc, nums ...protowire.Number) bool {
	if t != "" {
		return true
	}
	for _, n := range nums {
		if o := last(occs, n); o != nil {
			d.push("outcome")
			d.fail(o.off, "protobuf field "+strconv.Itoa(int(n))+" belongs to an outcome, and none is given")
			d.pop()
		}
	}
	return false
}

// subOutcome writes SUBAGENT_FINISHED's outcome from outcome (4) and
// interrupt_ids (5), the ids whatever the type (the reducer refuses them on
// anything but "suspended", rule R14).
func (d *pdec) subOutcome(occs []pocc) {
	t, o := d.outcomeType(occs, 4)
	if d.err != nil || !d.outcomeGiven(t, occs, 5) {
		return
	}
	d.key("outcome")
	d.push("outcome")
	d.mark(o.off)
	d.out = append(d.out, `{"type":`...)
	d.out = jsonstr.Append(d.out, t, jsonstr.Go)
	if count(occs, 5) > 0 {
		d.strings("interruptIds", 5, occs)
	}
	d.out = append(d.out, '}')
	d.pop()
}

// parts writes the repeated InputContent field num as the array "content".
func (d *pdec) parts(num protowire.Number, occs []pocc) {
	d.key("content")
	d.push("content")
	d.out = append(d.out, '[')
	k := 0
	for i := range occs {
		if occs[i].num != num || d.err != nil {
			continue
		}
		d.push(strconv.Itoa(k))
		d.part(&occs[i])
		d.pop()
		k++
	}
	d.out = append(d.out, ']')
	d.pop()
}

// part writes one InputContent as a content part, or nothing for one whose
// arm the schema does not define (the JSON decoder drops an unknown part
// type the same way, with a warning, which this cannot give: the part has no
// type to name).
func (d *pdec) part(o *pocc) {
	arm, a, fields := d.oneof(o, partArms, "content part")
	if arm == nil {
		return
	}
	d.elem()
	d.mark(o.off)
	d.typed(a.typ, a.msg, fields)
}

// source writes an InputContentSource; one whose arm the schema does not
// define as {}, which has no type: the JSON decoder drops the part whose
// source type it does not know (G22).
func (d *pdec) source(o *pocc) {
	arm, a, fields := d.oneof(o, sourceArms, "source")
	switch {
	case d.err != nil:
	case arm == nil:
		d.out = append(d.out, `{}`...)
	default:
		d.typed(a.typ, a.msg, fields)
	}
}

// oneof reads the message of o, a oneof of arms: the arm given (nil for
// none the schema defines, or after an error), its description, and its
// fields. More than one arm is refused.
func (d *pdec) oneof(o *pocc, arms []oneofArm, what string) (*pocc, oneofArm, []pocc) {
	if !d.want(o, protowire.BytesType) {
		return nil, oneofArm{}, nil
	}
	var arr [2]pocc
	occs := d.scan(o.b, d.valueStart(o), arr[:0])
	var arm *pocc
	for i := range occs {
		if n := occs[i].num; n >= 1 && int(n) < len(arms) {
			if arm != nil {
				d.fail(occs[i].off, "the "+what+" sets more than one oneof arm")
				return nil, oneofArm{}, nil
			}
			arm = &occs[i]
		}
	}
	if arm == nil || d.err != nil || !d.want(arm, protowire.BytesType) {
		return nil, oneofArm{}, nil
	}
	return arm, arms[arm.num], d.scan(arm.b, d.valueStart(arm), nil)
}

// typed writes an object whose "type" is typ and whose other members are
// m's fields found in occs.
func (d *pdec) typed(typ string, m *pmsg, occs []pocc) {
	d.out = append(d.out, `{"type":`...)
	d.out = jsonstr.AppendValid(d.out, typ)
	d.fields(m, occs)
	d.out = append(d.out, '}')
}

// carriers counts which of a message's content forms are present.
func carriers(occs []pocc, str, parts, object protowire.Number) (s, p, m bool) {
	for i := range occs {
		switch occs[i].num {
		case str:
			s = true
		case parts:
			p = true
		case object:
			m = object != 0
		}
	}
	return s, p, m
}

// msgContent writes a Message's content: content (3) for a string, the parts
// (8) for a user or tool message without one, activity_content (13) for an
// activity message. Several forms at once are refused, as
// @ag-ui/proto@1.0.0 refuses them.
func (d *pdec) msgContent(occs []pocc) {
	role := ""
	if o := last(occs, 2); o != nil && o.typ == protowire.BytesType {
		role = string(o.b)
	}
	d.once(occs, 3, true, true)
	d.once(occs, 13, false, false)
	s, p, m := carriers(occs, 3, 8, 13)
	fail := func(reason string) {
		off := 0
		if o := last(occs, 3); o != nil {
			off = o.off
		} else if o := last(occs, 8); o != nil {
			off = o.off
		} else if o := last(occs, 13); o != nil {
			off = o.off
		}
		d.push("content")
		d.fail(off, reason)
		d.pop()
	}
	known := role == "developer" || role == "system" || role == "assistant" || role == "user" ||
		role == "tool" || role == "activity" || role == "reasoning"
	usesParts := role == "user" || role == "tool"
	switch {
	case !known && btoi(s)+btoi(p)+btoi(m) > 1:
		fail("the message carries more than one content form")
	case known && p && !usesParts:
		fail("the message carries content parts, which a " + role + " message has none of")
	case known && m && role != "activity":
		fail("the message carries activity content, which a " + role + " message has none of")
	case role == "activity" && s:
		fail("an activity message's content is activity_content, not a string")
	case s && p:
		fail("the message carries both string content and content parts")
	}
	if d.err != nil {
		return
	}
	switch {
	case s:
		o := last(occs, 3)
		d.key("content")
		d.push("content")
		d.mark(o.off)
		d.str(o)
		d.pop()
	case m:
		o := last(occs, 13)
		d.key("content")
		d.push("content")
		d.structObj(o)
		d.pop()
	case p || usesParts:
		d.parts(8, occs)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// resultContent writes TOOL_CALL_RESULT's content: content (5), else the
// parts (7).
func (d *pdec) resultContent(occs []pocc) {
	d.once(occs, 5, true, true)
	s, p, _ := carriers(occs, 5, 7, 0)
	if d.err != nil {
		return
	}
	if s && p {
		d.push("content")
		d.fail(last(occs, 7).off, "the result carries both string content and content parts")
		d.pop()
		return
	}
	if s {
		o := last(occs, 5)
		d.key("content")
		d.push("content")
		d.mark(o.off)
		d.str(o)
		d.pop()
		return
	}
	d.parts(7, occs)
}

// value writes a google.protobuf.Value.
func (d *pdec) value(o *pocc) {
	d.mark(o.off)
	if !d.enter(o) {
		return
	}
	defer d.leave()
	var arr [2]pocc
	occs := d.scan(o.b, d.valueStart(o), arr[:0])
	var kind *pocc
	for i := range occs {
		if occs[i].num >= 1 && occs[i].num <= 6 {
			if kind != nil {
				d.fail(occs[i].off, "the google.protobuf.Value sets more than one kind")
				return
			}
			kind = &occs[i]
		}
	}
	if d.err != nil {
		return
	}
	if kind == nil {
		d.fail(o.off, "the google.protobuf.Value sets no kind")
		return
	}
	switch kind.num {
	case 1:
		if d.want(kind, protowire.VarintType) {
			d.out = append(d.out, "null"...)
		}
	case 2:
		if d.want(kind, protowire.Fixed64Type) {
			f := math.Float64frombits(kind.v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				d.fail(kind.off, "the number is not finite, which JSON cannot hold")
				return
			}
			d.out = appendNumber(d.out, f)
		}
	case 3:
		d.str(kind)
	case 4:
		if d.want(kind, protowire.VarintType) {
			d.out = strconv.AppendBool(d.out, kind.v != 0)
		}
	case 5:
		d.structObj(kind)
	case 6:
		if !d.want(kind, protowire.BytesType) {
			return
		}
		var arr2 [8]pocc
		elems := d.scan(kind.b, d.valueStart(kind), arr2[:0])
		d.out = append(d.out, '[')
		k := 0
		for i := range elems {
			if elems[i].num != 1 || d.err != nil {
				continue
			}
			d.elem()
			d.push(strconv.Itoa(k))
			d.value(&elems[i])
			d.pop()
			k++
		}
		d.out = append(d.out, ']')
	}
}

// structObj writes a google.protobuf.Struct as a JSON object, its entries in
// wire order.
func (d *pdec) structObj(o *pocc) {
	d.mark(o.off)
	if !d.want(o, protowire.BytesType) {
		return
	}
	var arr [8]pocc
	entries := d.scan(o.b, d.valueStart(o), arr[:0])
	d.out = append(d.out, '{')
	for i := range entries {
		e := &entries[i]
		if e.num != 1 || d.err != nil {
			continue
		}
		if !d.want(e, protowire.BytesType) {
			return
		}
		var arr2 [2]pocc
		kv := d.scan(e.b, d.valueStart(e), arr2[:0])
		d.once(kv, 1, true, true)
		d.once(kv, 2, false, false)
		if d.err != nil {
			return
		}
		key, v := "", last(kv, 2)
		if k := last(kv, 1); k != nil {
			if !d.want(k, protowire.BytesType) {
				return
			}
			if !utf8.Valid(k.b) {
				d.fail(k.off, "key is not valid UTF-8, which protobuf requires")
				return
			}
			key = string(k.b)
		}
		d.push(key)
		if v == nil {
			d.fail(e.off, "the entry has no value")
			d.pop()
			return
		}
		if c := d.out[len(d.out)-1]; c != '{' {
			d.out = append(d.out, ',')
		}
		d.out = jsonstr.Append(d.out, key, jsonstr.Go)
		d.out = append(d.out, ':')
		d.value(v)
		d.pop()
	}
	d.out = append(d.out, '}')
}

// appendNumber writes f as JavaScript's JSON.stringify does (and
// encoding/json): integers in plain digits below 1e21, exponents otherwise
// with no leading zeros.
func appendNumber(b []byte, f float64) []byte {
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		n := len(b)
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
		// e-07 → e-7, e+21 → e+21
		if m := len(b); m-n >= 4 && b[m-4] == 'e' && b[m-3] == '-' && b[m-2] == '0' {
			b[m-2] = b[m-1]
			b = b[:m-1]
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}
