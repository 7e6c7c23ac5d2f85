// Package wire reads agview's wire formats in place: a small JSON scanner
// that validates as encoding/json does, a scanner for the flat events (a
// JSON object whose members are strings, booleans, a timestamp and raw
// values), and the readers of the streamed deltas in JSON and protobuf.
//
// Package event decodes its fast path with ScanFlat: one function, given a
// Spec of the event type's members, reads every flat event type, the three
// streamed deltas (TEXT_MESSAGE_CONTENT, TOOL_CALL_ARGS and
// REASONING_MESSAGE_CONTENT) among them. Package reducer folds those deltas
// straight from their wire bytes with ScanDelta and ScanProtoDelta, which
// read them with the same scanners and the same specs, without decoding them
// into event values first: no event and no string is allocated for them.
//
// The scanners accept only the common shapes, and only inputs that
// event.Decode decodes without error and without warning; for anything else
// they report false and the caller must take event.Decode (or
// event.DecodeProto), which decides. Package event's FuzzFastPath and
// FuzzDecodeProto check that both paths agree on every input.
//
// # Concurrency
//
// The functions are pure and may be called from any goroutine.
package wire

import "github.com/agview/agview/internal/jsonstr"

// Delta is a streamed delta read in place. Its byte slices alias the input:
// they are valid only while the input is, and must not be written.
type Delta struct {
	Type      string // the event type
	ID        []byte // messageId or toolCallId: the literal's body, which holds no escape
	Tag       []byte // subagentRunId: the literal's body, which holds no escape
	Tagged    bool   // subagentRunId is present
	Text      []byte // delta: the string literal's body, as on the wire
	Escaped   bool   // Text holds escapes: decode it with AppendUnescaped
	Timestamp int64  // the timestamp, when Timed
	Timed     bool   // the timestamp is present
}

// The members of a delta's Spec, by index.
const (
	DeltaTag  = iota // subagentRunId (first, as in every attributable event's Spec in package event)
	DeltaID          // messageId or toolCallId
	DeltaText        // delta
)

// deltaSpecs are the specs of the streamed deltas.
var deltaSpecs = [...]Spec{
	{Type: "TEXT_MESSAGE_CONTENT", Members: deltaMembers("messageId")},
	{Type: "TOOL_CALL_ARGS", Members: deltaMembers("toolCallId")},
	{Type: "REASONING_MESSAGE_CONTENT", Members: deltaMembers("messageId")},
}

func deltaMembers(id string) []Member {
	return []Member{
		DeltaTag:  {Name: "subagentRunId", Kind: String},
		DeltaID:   {Name: id, Kind: String, Required: true},
		DeltaText: {Name: "delta", Kind: String, Required: true},
	}
}

// DeltaSpec returns the Spec of the streamed delta type typ (its members
// indexed by DeltaTag, DeltaID and DeltaText), or nil when typ is not one.
// The Spec is shared: it must not be written.
func DeltaSpec[T ~string | ~[]byte](typ T) *Spec {
	for i := range deltaSpecs {
		if deltaSpecs[i].Type == string(typ) {
			return &deltaSpecs[i]
		}
	}
	return nil
}

// ScanDelta reads data, one event's JSON, as a streamed delta, with ScanFlat
// and DeltaSpec. It reports false when data is anything else, or a delta in
// a shape it leaves to event.Decode, an id or tag that holds escapes
// included.
func ScanDelta(data []byte) (Delta, bool) {
	spec := DeltaSpec(TypePrefix(data))
	if spec == nil {
		return Delta{}, false
	}
	f, ok := ScanFlat(data, spec)
	if !ok || f.Vals[DeltaID].Escaped || f.Vals[DeltaTag].Escaped {
		return Delta{}, false
	}
	return Delta{
		Type:      spec.Type,
		ID:        f.Bytes(data, DeltaID),
		Tag:       f.Bytes(data, DeltaTag),
		Tagged:    f.Present(DeltaTag),
		Text:      f.Bytes(data, DeltaText),
		Escaped:   f.Vals[DeltaText].Escaped,
		Timestamp: f.Timestamp,
		Timed:     f.Timed,
	}, true
}

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
