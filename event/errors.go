package event

import (
	"errors"
	"fmt"
	"strconv"
)

// Rule ids a DecodeError carries (docs/protocol.md §5, §6.1).
const (
	// RuleNullTag: a subagentRunId spelled null, on an event, a lifecycle
	// event, a message or an interrupt (R1).
	RuleNullTag = "R1"
	// RuleLifecycleRequired: a SUBAGENT_* event lacks its subagentRunId, or a
	// SUBAGENT_STARTED its name, or a SUBAGENT_ERROR its message, or one of
	// them is not a string (R3).
	RuleLifecycleRequired = "R3"
	// RuleLifecycleNull: an optional field of a SUBAGENT_* event (description,
	// parent ids, outcome, code, outcome.interruptIds) is null, or an
	// interruptIds entry is not a string (R4).
	RuleLifecycleNull = "R4"
	// RuleSchema: every other schema violation: invalid JSON, not an object,
	// no usable type, a missing required field, a wrong JSON type, a null on
	// an optional field, a non-integer timestamp, a value outside its enum (E3).
	RuleSchema = "E3"
)

// Rule ids a Warning carries.
const (
	// WarnUnknownMaterial: an unknown member of a union in an optional
	// position was removed: a RUN_FINISHED outcome, a message, a content
	// part (E2, G2).
	WarnUnknownMaterial = "E2"
	// WarnUnknownMember: a member the schema does not describe, at any depth
	// (of the event, an outcome, an interrupt, a message, a tool call, the
	// input, a resume entry, a content part), was left out; the warning's
	// pointer names it (E2, G20).
	WarnUnknownMember = "E2"
	// WarnLegacyNull: a legacy null was read as absent (E4).
	WarnLegacyNull = "E4"
	// WarnMisplacedTag: a subagentRunId on a type that cannot carry one was
	// dropped (G3).
	WarnMisplacedTag = "G3"
	// WarnDeprecated: a deprecated THINKING_* type was decoded (§3.8; the
	// protocol gives this no rule id).
	WarnDeprecated = "deprecated"
)

// DecodeError reports an event that does not decode: invalid JSON, not a
// JSON object, no usable "type", or a value that breaks the schema of its
// type (docs/protocol.md §3, §6.1 E3, R1, R3, R4). The reducer refuses such an
// event alone (G1). Match it with errors.As.
type DecodeError struct {
	// Type is the event's wire type when it could be read, else "".
	Type Type
	// Pointer is the RFC 6901 JSON pointer of the offending value, relative to
	// the event object, e.g. "/outcome/interruptIds". It names the missing
	// field for a missing required field, and is "" when the event as a whole
	// is at fault (invalid JSON, not an object).
	Pointer string
	// Offset is the byte offset in the decoded input where the offending value
	// starts (for a missing field: where the object that lacks it starts; for
	// invalid JSON: where the syntax error was found), or -1 when unknown.
	Offset int64
	// Rule is the rule id the event breaks: RuleNullTag ("R1"),
	// RuleLifecycleRequired ("R3"), RuleLifecycleNull ("R4"), or RuleSchema
	// ("E3") for everything else.
	Rule string
	// Reason says what is wrong and, where it helps, what to send instead.
	Reason string
	// Err is the underlying error (a *json.SyntaxError for invalid JSON), or nil.
	Err error
}

// Error returns the type, pointer, reason and byte offset, e.g.
// `SUBAGENT_FINISHED /outcome/interruptIds: null is not allowed; omit the field (byte 57)`.
func (e *DecodeError) Error() string {
	b := make([]byte, 0, 64+len(e.Pointer)+len(e.Reason))
	if e.Type == "" {
		b = append(b, "event"...)
	} else {
		b = append(b, e.Type...)
	}
	if e.Pointer != "" {
		b = append(b, ' ')
		b = append(b, e.Pointer...)
	}
	b = append(b, ": "...)
	b = append(b, e.Reason...)
	if e.Offset > 0 { // byte 0, the event's start, says nothing
		b = append(b, " (byte "...)
		b = strconv.AppendInt(b, e.Offset, 10)
		b = append(b, ')')
	}
	return string(b)
}

// Unwrap returns the underlying error, if any.
func (e *DecodeError) Unwrap() error { return e.Err }

// ErrEmpty is what Decode returns for empty input: a frame that holds no
// data at all, such as an SSE event whose data is empty (a bare "data"
// line). It is not an event; callers skip it with a warning, as they skip an
// unknown type (docs/protocol.md G18; the reference would fail to parse it).
var ErrEmpty = errors.New("event: the frame is empty: no event to decode; skipped")

// UnknownTypeError reports an event whose "type" names no event type this
// package knows. Callers treat it as a warning and go on with the next event:
// the protocol tolerates unknown types (docs/protocol.md E1, G2).
type UnknownTypeError struct {
	// Type is the unknown wire type, verbatim; "" for a protobuf event, whose
	// type is its oneof arm.
	Type Type
	// Arm is the field number of the ag_ui.Event oneof arm that DecodeProto
	// does not know, 0 for a JSON event.
	Arm int
}

// Error says which type is unknown.
func (e *UnknownTypeError) Error() string {
	if e.Arm != 0 {
		return fmt.Sprintf("event: unknown protobuf event (ag_ui.Event field %d): skipped", e.Arm)
	}
	return fmt.Sprintf("event: unknown event type %q: skipped", string(e.Type))
}

// LineError is an event on one line of a JSON Lines stream read by a Decoder
// that did not decode. Err is the *DecodeError or *UnknownTypeError.
type LineError struct {
	// Line is the 1-based line number.
	Line int
	// Err is the error found on that line.
	Err error
}

// Error prefixes the line's error with its line number.
func (e *LineError) Error() string { return "line " + strconv.Itoa(e.Line) + ": " + e.Err.Error() }

// Unwrap returns the line's error.
func (e *LineError) Unwrap() error { return e.Err }

// LineTooLongError reports a line of a JSON Lines stream longer than the
// Decoder's limit. The line is skipped; decoding goes on with the next one.
type LineTooLongError struct {
	// Line is the 1-based line number.
	Line int
	// Limit is the maximum line size in bytes.
	Limit int
}

// Error names the line and the limit.
func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("event: line %d is longer than the %d-byte limit; skipped", e.Line, e.Limit)
}
