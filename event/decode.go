package event

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agview/agview/internal/jsonstr"
	"github.com/agview/agview/internal/wire"
)

// Decode decodes one event from its wire JSON (one JSON object).
//
// It reads the "type" first and then decodes the object into the concrete
// type of that event (*TextMessageContent, *RunStarted, …), checking the
// schema of docs/protocol.md §3 on the way:
//
//   - An unknown type returns *UnknownTypeError: callers treat it as a warning
//     and go on (E1, G2).
//   - Invalid JSON, a value that is not an object, a missing, empty or
//     non-string type, a missing required field, a wrong JSON type on a known
//     field, null on an optional field, a non-integer timestamp and a value
//     outside its enum return *DecodeError, with the JSON pointer and byte
//     offset of the offending value (E3), and so does a malformed JSON Patch
//     operation in STATE_DELTA.delta or ACTIVITY_DELTA.patch (not an object;
//     a path, or a from on move and copy, that is missing, null, not a
//     string or not a JSON pointer; no value on add, replace or test: G8).
//     subagentRunId: null anywhere is refused with rule R1.
//   - Member names match exactly, and of duplicate members the last wins, as
//     with JavaScript's JSON.parse.
//   - What the protocol tolerates decodes with a Warning (see Base.Warnings):
//     an unknown member, at any depth, is left out, the warning naming its
//     JSON pointer (E2, G20; the members of a JSON Patch operation are kept,
//     as RFC 6902 says); the legacy nulls of §6.1 E4 read as absent; a
//     subagentRunId on RUN_STARTED, RUN_FINISHED, RUN_ERROR or
//     MESSAGES_SNAPSHOT is dropped (G3); an unknown RUN_FINISHED outcome type
//     reads as success, that is Outcome nil (E2); a message of unknown role,
//     a content part of unknown type and, in a tool result, a media part whose
//     source type is unknown are removed (E2, G22); a THINKING_* event is
//     deprecated (§3.8), and its subagentRunId is kept for the REASONING_*
//     event the reducer translates it to (G22).
//
// Empty input (no byte at all) returns ErrEmpty: there is no event to
// decode.
//
// Some checks are left to the reducer on purpose: a SUBAGENT_FINISHED outcome
// whose type is neither "success" nor "suspended", or is missing or null,
// decodes (Type kept, "" when missing or null) so that the reducer rejects it
// with rule R14.
//
// The returned event owns its memory: data may be reused once Decode returns.
// The flat events (every type but MESSAGES_SNAPSHOT and the deprecated
// THINKING_* ones) in their common shapes take a hand-written fast path: two
// allocations per event (three with a raw value such as a patch, a snapshot
// or a tool result's content). The events that carry a history,
// RUN_STARTED with its input and MESSAGES_SNAPSHOT, take one too, in one
// pass over the bytes and about one allocation per message, for messages
// whose content is a string (an object for activity) and an input without
// resume. Everything else, and anything unusual in those (a member the
// schema does not know, rawEvent or metadata, a null, a surrogate escape, a
// role outside its enum, content parts, a run's outcome or usage…), goes
// through encoding/json. Both give the same result, warnings and errors
// included.
func Decode(data []byte) (Event, error) {
	if len(data) == 0 {
		return nil, ErrEmpty
	}
	if e, ok := decodeFast(data); ok {
		return e, nil
	}
	return decodeReference(data)
}

// decodeReference is the general decoder: encoding/json checks the syntax
// and splits the object into members (names match exactly, the last
// duplicate wins, as JSON.parse does), then the decoder of the event's type
// checks and converts each member. A struct unmarshal would do in one step
// but cannot tell null from absent and matches names case-insensitively, and
// both matter to the protocol.
func decodeReference(data []byte) (Event, error) {
	d := &decoding{data: data}
	m, err := d.split(`an event is {"type":…}`)
	if err != nil {
		return nil, err
	}
	root := d.object("", m)
	raw, ok := root.get("type")
	if !ok {
		d.fail("/type", RuleSchema, "required field is missing; every event names its type")
		return nil, d.error()
	}
	if k := kindOf(raw); k != kindString {
		d.fail("/type", RuleSchema, "want a string, got "+k.String())
		return nil, d.error()
	}
	t := Type(unquote(raw))
	if t == "" {
		d.fail("/type", RuleSchema, "must not be empty")
		return nil, d.error()
	}
	if !t.Known() {
		return nil, &UnknownTypeError{Type: t}
	}
	d.typ = t
	e := decodeBody(t, root)
	if d.err != nil {
		return nil, d.error()
	}
	d.unknownMembers()
	e.Common().warnings = d.warnings
	return e, nil
}

// decoding is the state of one reference decode: the input, the event type
// once known, the warnings so far and the first error (later ones are moot).
type decoding struct {
	data     []byte
	typ      Type
	warnings []Warning
	err      *DecodeError
	objects  []*object // every object read, in the order they were met
	objBuf   [6]*object
}

// object returns the object at ptr with members m, registered for
// unknownMembers.
func (d *decoding) object(ptr string, m map[string]json.RawMessage) *object {
	o := &object{d: d, ptr: ptr, m: m}
	o.seen = &o.own
	if d.objects == nil {
		d.objects = d.objBuf[:0]
	}
	o.own.known = o.own.buf[:0]
	d.objects = append(d.objects, o)
	return o
}

// unknownMembers warns about every member of every object read that its
// decoder did not ask for: the schema does not describe it, so it is left
// out of the event (G20; the reference strips it with a warning). The
// members of removed material are not reported one by one.
func (d *decoding) unknownMembers() {
	for _, o := range d.objects {
		if o.seen.removed || o.seen.present == len(o.m) {
			continue
		}
		var unknown []string
		for name := range o.m {
			if !slices.Contains(o.seen.known, name) {
				unknown = append(unknown, name)
			}
		}
		slices.Sort(unknown)
		for _, name := range unknown {
			d.warn(o.at(name), WarnUnknownMember, "unknown member: the schema does not describe it, so it is left out (G20)")
		}
	}
}

func (d *decoding) fail(ptr, rule, reason string) {
	if d.err == nil {
		d.err = &DecodeError{Type: d.typ, Pointer: ptr, Offset: -1, Rule: rule, Reason: reason}
	}
}

func (d *decoding) warn(ptr, rule, msg string) {
	d.warnings = append(d.warnings, Warning{Type: d.typ, Pointer: ptr, Rule: rule, Message: msg})
}

// error completes the first error with the byte offset of its pointer.
func (d *decoding) error() *DecodeError {
	d.err.Offset = int64(locate(d.data, d.err.Pointer))
	return d.err
}

// split checks that the input is one valid JSON object and splits it into
// members; shape says what the object should look like, for the error.
func (d *decoding) split(shape string) (map[string]json.RawMessage, *DecodeError) {
	var m map[string]json.RawMessage
	err := json.Unmarshal(d.data, &m)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// encoding/json counts the offending byte in Offset; point at it
		// instead, or at the end of the input when it ended too soon.
		off := se.Offset
		if off > 0 && !strings.HasPrefix(se.Error(), "unexpected end") {
			off--
		}
		return nil, &DecodeError{Type: typeBefore(d.data[:min(max(off, 0), int64(len(d.data)))]), Offset: off, Rule: RuleSchema,
			Reason: "invalid JSON: " + strings.TrimPrefix(se.Error(), "json: "), Err: err}
	}
	if err != nil || m == nil { // not an object, or the literal null
		i := wire.SkipWS(d.data, 0)
		got := "nothing"
		if i < len(d.data) {
			got = kindOf(d.data[i:]).String()
		}
		return nil, &DecodeError{Offset: int64(i), Rule: RuleSchema,
			Reason: "not a JSON object: " + shape + ", got " + got}
	}
	return m, nil
}

// typeBefore returns the type an event that is not valid JSON names before
// its syntax error, data being the bytes before the error: the value of its
// first "type" member when that reads as an event type, else "". It lets a
// diagnostic say which event broke ("type": "TEXT_MESSAGE_CONTENT", not "").
func typeBefore(data []byte) Type {
	m := typeMember.FindSubmatch(data)
	if m == nil {
		return ""
	}
	return Type(m[1])
}

var typeMember = regexp.MustCompile(`^\s*\{\s*(?:"[^"\\]*"\s*:\s*(?:"[^"\\]*"|[-0-9.eE+a-z]+)\s*,\s*)*"type"\s*:\s*"([A-Z][A-Z0-9_]{0,63})"`)

// kind is the JSON type of a value, read from its first byte.
type kind uint8

const (
	kindNull kind = 1 << iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject

	kindAny = kindNull | kindBool | kindNumber | kindString | kindArray | kindObject
)

// kindOf returns the kind of a valid JSON value without leading space.
func kindOf(raw []byte) kind {
	if len(raw) == 0 {
		return 0
	}
	switch raw[0] {
	case 'n':
		return kindNull
	case 't', 'f':
		return kindBool
	case '"':
		return kindString
	case '[':
		return kindArray
	case '{':
		return kindObject
	}
	return kindNumber
}

func (k kind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindArray:
		return "an array"
	case kindObject:
		return "an object"
	case kindString | kindArray:
		return "a string or an array of content parts"
	case kindAny &^ kindNull:
		return "any JSON value but null"
	}
	return "any JSON value"
}

// nulls says what a null on an optional field means.
type nulls uint8

const (
	nullRefused nulls = iota // a decode error: omit the field instead
	nullLegacy               // a legacy null (E4): read as absent, with a warning
	nullValue                // a legal value, kept as the raw literal null
)

// object is one JSON object of the event being decoded, split into members.
type object struct {
	d   *decoding
	ptr string // JSON pointer of the object within the event
	m   map[string]json.RawMessage
	// seen is own, shared by the copies with makes; it is part of the
	// object's allocation, and so are the first names it notes.
	seen *seen
	own  seen
	// missingRule and nullRule override RuleSchema for a missing or
	// wrongly-typed required field and for a null optional field.
	missingRule, nullRule string
}

// seen holds the names of the members the decoder of an object asked for
// (get), once each; removed is set when the whole object was left out as
// unknown material.
type seen struct {
	known   []string
	present int // how many of known are members
	removed bool
	buf     [10]string
}

// get returns member name, and notes that the schema knows it.
func (o *object) get(name string) (json.RawMessage, bool) {
	raw, ok := o.m[name]
	if !slices.Contains(o.seen.known, name) {
		o.seen.known = append(o.seen.known, name)
		if ok {
			o.seen.present++
		}
	}
	return raw, ok
}

// at returns the JSON pointer of member name.
func (o *object) at(name string) string { return o.ptr + "/" + escapePointer(name) }

// with returns o with the given rules for missing and null fields (R3, R4).
func (o *object) with(missingRule, nullRule string) *object {
	c := *o
	c.missingRule, c.nullRule = missingRule, nullRule
	return &c
}

func (o *object) ruleMissing() string {
	if o.missingRule != "" {
		return o.missingRule
	}
	return RuleSchema
}

func (o *object) ruleNull() string {
	if o.nullRule != "" {
		return o.nullRule
	}
	return RuleSchema
}

func (o *object) missing(name string) {
	o.d.fail(o.at(name), o.ruleMissing(), "required field is missing")
}

func (o *object) wrongKind(ptr string, want, got kind, rule string) {
	if got == kindNull {
		o.d.fail(ptr, rule, "null is not allowed; want "+want.String())
		return
	}
	o.d.fail(ptr, rule, "want "+want.String()+", got "+got.String())
}

// child splits the object value raw found at ptr.
func (o *object) child(ptr string, raw json.RawMessage) *object {
	c := o.d.object(ptr, nil)
	if err := json.Unmarshal(raw, &c.m); err != nil || c.m == nil {
		// raw was checked to be an object by the caller; keep going safely.
		o.d.fail(ptr, RuleSchema, "want an object")
		c.m = map[string]json.RawMessage{}
	}
	return c
}

// value returns member name, applying the null policy of an optional field:
// ok is false when the member is absent, null and not a legal value, or
// (required) missing.
func (o *object) value(name string, required bool, null nulls) (json.RawMessage, bool) {
	raw, ok := o.get(name)
	if !ok {
		if required {
			o.missing(name)
		}
		return nil, false
	}
	if !required && kindOf(raw) == kindNull {
		switch null {
		case nullLegacy:
			o.d.warn(o.at(name), WarnLegacyNull, "legacy null read as absent; omit the field instead")
			return nil, false
		case nullRefused:
			o.d.fail(o.at(name), o.ruleNull(), "null is not allowed; omit the field")
			return nil, false
		}
	}
	return raw, true
}

// str reads a string member; present is false when it is absent or failed.
func (o *object) str(name string, required bool, null nulls) (s string, present bool) {
	raw, ok := o.value(name, required, null)
	if !ok {
		return "", false
	}
	if k := kindOf(raw); k != kindString {
		rule := RuleSchema
		if required {
			rule = o.ruleMissing()
		}
		o.wrongKind(o.at(name), kindString, k, rule)
		return "", false
	}
	return unquote(raw), true
}

func (o *object) reqString(name string) string {
	s, _ := o.str(name, true, nullRefused)
	return s
}

func (o *object) optString(name string) *string {
	if s, ok := o.str(name, false, nullRefused); ok {
		return &s
	}
	return nil
}

func (o *object) legacyString(name string) *string {
	if s, ok := o.str(name, false, nullLegacy); ok {
		return &s
	}
	return nil
}

// enum reads a string member that must be one of allowed.
func (o *object) enum(name string, required bool, allowed ...string) (string, bool) {
	s, ok := o.str(name, required, nullRefused)
	if !ok {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	o.d.fail(o.at(name), RuleSchema, fmt.Sprintf("want %s, got %q", oneOf(allowed), s))
	return "", false
}

func oneOf(allowed []string) string {
	if len(allowed) == 1 {
		return strconv.Quote(allowed[0])
	}
	var b strings.Builder
	b.WriteString("one of ")
	for i, a := range allowed {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(a))
	}
	return b.String()
}

func (o *object) optRole(name string, allowed ...string) *Role {
	if s, ok := o.enum(name, false, allowed...); ok {
		r := Role(s)
		return &r
	}
	return nil
}

// raw reads a member kept as raw JSON, which must be of one of the kinds want.
func (o *object) raw(name string, required bool, want kind, null nulls) json.RawMessage {
	raw, ok := o.value(name, required, null)
	if !ok {
		return nil
	}
	if k := kindOf(raw); k&want == 0 {
		o.wrongKind(o.at(name), want, k, RuleSchema)
		return nil
	}
	return raw
}

func (o *object) optBool(name string) *bool {
	raw, ok := o.value(name, false, nullRefused)
	if !ok {
		return nil
	}
	if k := kindOf(raw); k != kindBool {
		o.wrongKind(o.at(name), kindBool, k, RuleSchema)
		return nil
	}
	b := raw[0] == 't'
	return &b
}

// maxSafeInt is 2^53−1, the largest integer a JavaScript number holds exactly.
const maxSafeInt = 1<<53 - 1

// integer reads an optional safe integer (docs/protocol.md §3: |n| ≤ 2^53−1; a
// number with a fraction or exponent counts when its value is integral, as
// in JavaScript).
func (o *object) integer(name string, nonNegative bool) *int64 {
	raw, ok := o.value(name, false, nullRefused)
	if !ok {
		return nil
	}
	if k := kindOf(raw); k != kindNumber {
		o.wrongKind(o.at(name), kindNumber, k, RuleSchema)
		return nil
	}
	n, ok := safeInt(raw)
	if !ok {
		o.d.fail(o.at(name), RuleSchema, "want an integer between -(2^53-1) and 2^53-1, got "+string(raw))
		return nil
	}
	if nonNegative && n < 0 {
		o.d.fail(o.at(name), RuleSchema, "want a non-negative integer, got "+string(raw))
		return nil
	}
	return &n
}

// safeInt parses a valid JSON number that holds a safe integer.
func safeInt(raw []byte) (int64, bool) {
	s := string(raw)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, n >= -maxSafeInt && n <= maxSafeInt
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInt {
		return 0, false
	}
	return int64(f), true
}

// array reads an array member into its elements.
func (o *object) array(name string, required bool) ([]json.RawMessage, bool) {
	raw, ok := o.value(name, required, nullRefused)
	if !ok {
		return nil, false
	}
	if k := kindOf(raw); k != kindArray {
		o.wrongKind(o.at(name), kindArray, k, RuleSchema)
		return nil, false
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		o.d.fail(o.at(name), RuleSchema, "want an array")
		return nil, false
	}
	if elems == nil {
		elems = []json.RawMessage{}
	}
	return elems, true
}

// objects reads an array member whose elements must all be objects, calling
// fn on each; ok is false when the member is absent or failed.
func (o *object) objects(name string, required bool, fn func(i int, e *object)) bool {
	elems, ok := o.array(name, required)
	if !ok {
		return false
	}
	for i, raw := range elems {
		ptr := o.at(name) + "/" + strconv.Itoa(i)
		if k := kindOf(raw); k != kindObject {
			o.wrongKind(ptr, kindObject, k, RuleSchema)
			return false
		}
		fn(i, o.child(ptr, raw))
	}
	return o.d.err == nil
}

// strings reads an array of strings; elemRule is the rule of a non-string
// element.
func (o *object) strings(name string, required bool, elemRule string) []string {
	elems, ok := o.array(name, required)
	if !ok {
		return nil
	}
	out := make([]string, len(elems))
	for i, raw := range elems {
		if k := kindOf(raw); k != kindString {
			o.wrongKind(o.at(name)+"/"+strconv.Itoa(i), kindString, k, elemRule)
			return nil
		}
		out[i] = unquote(raw)
	}
	return out
}

// tag reads the optional attribution subagentRunId; null is refused (R1).
func (o *object) tag() *string {
	raw, ok := o.get("subagentRunId")
	if !ok {
		return nil
	}
	if kindOf(raw) == kindNull {
		o.d.fail(o.at("subagentRunId"), RuleNullTag,
			"null is not allowed (R1): omit subagentRunId to attribute to the parent agent")
		return nil
	}
	if k := kindOf(raw); k != kindString {
		o.wrongKind(o.at("subagentRunId"), kindString, k, RuleSchema)
		return nil
	}
	s := unquote(raw)
	return &s
}

// dropTag drops a subagentRunId from a type that cannot carry one (G3).
func (o *object) dropTag() {
	if _, ok := o.get("subagentRunId"); ok {
		o.d.warn(o.at("subagentRunId"), WarnMisplacedTag,
			"this type cannot carry subagentRunId (only the 24 attributable types do); dropped")
	}
}

// lifecycleID reads the required identity of a SUBAGENT_* event.
func (o *object) lifecycleID() string {
	raw, ok := o.get("subagentRunId")
	switch {
	case !ok:
		o.d.fail(o.at("subagentRunId"), RuleLifecycleRequired,
			"required field is missing; a lifecycle event names its invocation")
		return ""
	case kindOf(raw) == kindNull:
		o.d.fail(o.at("subagentRunId"), RuleNullTag, "null is not allowed (R1); send the invocation's id")
		return ""
	case kindOf(raw) != kindString:
		o.wrongKind(o.at("subagentRunId"), kindString, kindOf(raw), RuleLifecycleRequired)
		return ""
	}
	return unquote(raw)
}

// base reads the fields every event may carry.
func (o *object) base(b *Base) {
	b.Timestamp = o.integer("timestamp", false)
	b.RawEvent = o.raw("rawEvent", false, kindAny, nullLegacy)
	b.Metadata = o.raw("metadata", false, kindObject, nullRefused)
}

// unquote returns the value of a valid JSON string literal, exactly
// (docs/protocol.md G19): a lone surrogate escape is kept (as package jsonstr
// describes) and bytes that are not UTF-8 stay as they are, where
// encoding/json would make both U+FFFD and so make distinct ids equal.
func unquote(raw []byte) string {
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' || c >= 0x80 {
			return string(jsonstr.AppendUnquoted(make([]byte, 0, len(body)), body))
		}
	}
	return string(body)
}

// escapePointer escapes a member name as an RFC 6901 reference token.
func escapePointer(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}
