package journal

import (
	"bytes"
	"encoding/json"
)

// The line form of records, shared by the file journal (one line per record)
// and the NATS journal (a message holds the lines of a batch).
//
// An event is its wire JSON as received, on one line. An input is the line
//
//	{"type":"agview.input","input":RUN_AGENT_INPUT}
//
// and an end the line
//
//	{"type":"agview.end","end":END}
//
// Both are events of types AG-UI does not define, so a tool that reads the
// lines as an AG-UI stream (agview replay) skips them with a warning
// (PROTOCOL.md G2) and folds everything else.

// InputType and EndType are the "type" of input and end lines.
const (
	InputType = "agview.input"
	EndType   = "agview.end"
)

var (
	inputPrefix = []byte(`{"type":"` + InputType + `","input":`)
	endPrefix   = []byte(`{"type":"` + EndType + `","end":`)
)

// appendLine appends r's line, ending in '\n', to dst.
func appendLine(dst []byte, r *Record) []byte {
	switch r.Kind {
	case KindInput:
		dst = append(dst, inputPrefix...)
		dst = appendOneLine(dst, r.Data)
		dst = append(dst, '}')
	case KindEnd:
		dst = append(dst, endPrefix...)
		dst = appendOneLine(dst, r.Data)
		dst = append(dst, '}')
	default:
		if bytes.HasPrefix(r.Data, inputPrefix) || bytes.HasPrefix(r.Data, endPrefix) {
			// An event that looks like one of ours (a producer sent that
			// type): a leading space keeps it an event.
			dst = append(dst, ' ')
		}
		dst = appendOneLine(dst, r.Data)
	}
	return append(dst, '\n')
}

// appendOneLine appends data without line ends: compacted when it is JSON,
// with each CR and LF turned into a space when it is not (a frame that will
// not decode either way).
func appendOneLine(dst, data []byte) []byte {
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') < 0 {
		return append(dst, data...)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, data) == nil {
		return append(dst, buf.Bytes()...)
	}
	n := len(dst)
	dst = append(dst, data...)
	for i := n; i < len(dst); i++ {
		if dst[i] == '\n' || dst[i] == '\r' {
			dst[i] = ' '
		}
	}
	return dst
}

// parseLine returns the record of one line (without its '\n'), owning its
// bytes.
func parseLine(line []byte, seq uint64) Record {
	kind, data := KindEvent, line
	switch {
	case bytes.HasPrefix(line, inputPrefix) && bytes.HasSuffix(line, []byte{'}'}):
		kind, data = KindInput, line[len(inputPrefix):len(line)-1]
	case bytes.HasPrefix(line, endPrefix) && bytes.HasSuffix(line, []byte{'}'}):
		kind, data = KindEnd, line[len(endPrefix):len(line)-1]
	case len(line) > 0 && line[0] == ' ' && (bytes.HasPrefix(line[1:], inputPrefix) || bytes.HasPrefix(line[1:], endPrefix)):
		data = line[1:]
	}
	return Record{Seq: seq, Kind: kind, Data: bytes.Clone(data)}
}
