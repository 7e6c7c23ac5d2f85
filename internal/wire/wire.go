// Package wire lets package reducer fold the streamed deltas that dominate
// real streams (TEXT_MESSAGE_CONTENT, TOOL_CALL_ARGS and
// REASONING_MESSAGE_CONTENT) straight from their wire bytes, without
// decoding them into event values first: no event, no string is allocated
// for them. Package event owns the scanner and installs it in ScanDelta when
// it is initialised; package reducer, which imports event, calls it.
//
// The scanner accepts only the shapes event.Decode's fast path accepts (see
// event/fast.go) and that decode with no warning; for anything else it
// reports false and the caller must take event.Decode.
package wire

import "github.com/agview/agview/internal/jsonstr"

// Delta is a streamed delta read in place. Its byte slices alias the input:
// they are valid only while the input is, and must not be written.
type Delta struct {
	Type    string // the event type
	ID      []byte // messageId or toolCallId: the literal's body, which holds no escape
	Tag     []byte // subagentRunId: the literal's body, which holds no escape
	Tagged  bool   // subagentRunId is present
	Text    []byte // delta: the string literal's body, as on the wire
	Escaped bool   // Text holds escapes: decode it with AppendUnescaped
}

// ScanProtoDelta is ScanDelta for one ag_ui.Event protobuf message: it
// reads the shapes event.DecodeProto's fast path accepts. Its Text holds no
// escapes (Escaped is false). Package event sets it.
var ScanProtoDelta func(msg []byte) (Delta, bool)

// ScanDelta reads data as a streamed delta. It reports false when
// data is anything else, or a delta in a shape it leaves to event.Decode.
// Package event sets it; it is never nil once event is initialised.
var ScanDelta func(data []byte) (Delta, bool)

// AppendUnescaped appends the decoded content of a valid JSON string literal
// body b to dst, as package jsonstr decodes it. It reports false for a \u
// escape of a surrogate: the fast paths leave those to event.Decode.
func AppendUnescaped(dst, b []byte) ([]byte, bool) {
	for i := 0; i+5 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if b[i+1] == 'u' && (b[i+2] == 'd' || b[i+2] == 'D') && b[i+3] >= '8' && (b[i+3] <= '9' || b[i+3] >= 'A' && b[i+3] <= 'F' || b[i+3] >= 'a' && b[i+3] <= 'f') {
			return dst, false
		}
		i++ // the escaped character
	}
	return jsonstr.AppendUnquoted(dst, b), true
}
