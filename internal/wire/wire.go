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

import "unicode/utf8"

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
// body b to dst. It reports false for a \u escape of a surrogate, which
// encoding/json pairs or replaces and the fast paths leave to it.
func AppendUnescaped(dst, b []byte) ([]byte, bool) {
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && b[j] != '\\' {
			j++
		}
		dst = append(dst, b[i:j]...)
		if j == len(b) {
			break
		}
		switch c := b[j+1]; c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			var r rune
			for _, h := range b[j+2 : j+6] {
				r = r<<4 | rune(hexVal(h))
			}
			if utf8.RuneLen(r) < 0 || r >= 0xD800 && r < 0xE000 {
				return dst, false
			}
			dst = utf8.AppendRune(dst, r)
			i = j + 6
			continue
		}
		i = j + 2
	}
	return dst, true
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
