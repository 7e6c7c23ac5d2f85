package reducer

import (
	"strconv"

	"github.com/agview/agview/event"
)

// Violation reports a refused event: the rule it breaks (a docs/protocol.md id
// such as R15, V7, A1, G9, or the decoder's E3/R1/R3/R4), the index of the
// wire event in the stream, its wire type, and a message naming the ids
// involved. Match it with errors.As.
type Violation struct {
	// Rule is the docs/protocol.md rule id.
	Rule string
	// Index is the index of the wire event in the stream (0-based): the
	// view's EventCount when the event came.
	Index int
	// Type is the wire type of the event; "" when it could not be read.
	Type event.Type
	// Message says what is wrong, naming the ids involved.
	Message string
	// Err is the underlying error for an event that did not decode (an
	// *event.DecodeError), else nil.
	Err error

	// stale are the lanes (owner keys) of the stale chunk streams the event
	// met; Fold drops them from the view it records the violation in.
	stale []string
}

// Error returns e.g.
//
//	event 7 (TEXT_MESSAGE_CONTENT): R15: subagentRunId 'sub-2' does not match the text message 'msg-1' opener's subagent 'sub-1'
func (v *Violation) Error() string {
	b := make([]byte, 0, 32+len(v.Type)+len(v.Rule)+len(v.Message))
	b = append(b, "event "...)
	b = strconv.AppendInt(b, int64(v.Index), 10)
	if v.Type != "" {
		b = append(b, " ("...)
		b = append(b, v.Type...)
		b = append(b, ')')
	}
	b = append(b, ": "...)
	b = append(b, v.Rule...)
	b = append(b, ": "...)
	b = append(b, v.Message...)
	return string(b)
}

// Unwrap returns Err.
func (v *Violation) Unwrap() error { return v.Err }
