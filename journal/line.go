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
// lines as an AG-UI stream skips them with a warning (docs/protocol.md G2) and
// folds everything else; agview replay and verify read them as the run
// boundaries they are (ParseLine, client.JournalFolder).

// InputType and EndType are the "type" of input and end lines.
const (
	InputType = "agview.input"
	EndType   = "agview.end"
)

var (
	inputPrefix = []byte(`{"type":"` + InputType + `","input":`)
	endPrefix   = []byte(`{"type":"` + EndType + `","end":`)
)

// AppendLine appends r's line, ending in '\n', to dst: the form the file
// journal stores and ParseLine reads, for backends outside this package.
func AppendLine(dst []byte, r *Record) []byte { return appendLine(dst, r) }

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
		n := len(dst)
		dst = appendOneLine(dst, r.Data)
		if body := dst[n:]; len(body) > 0 && (body[0] == ' ' || bytes.HasPrefix(body, inputPrefix) || bytes.HasPrefix(body, endPrefix)) {
			// An event that looks like one of ours (a producer sent that
			// type), or that begins with a space: one more leading space
			// keeps it an event, and is removed when it is read.
			dst = append(dst, 0)
			copy(dst[n+1:], dst[n:len(dst)-1])
			dst[n] = ' '
		}
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

// ParseLine reads one line of the file journal's form (without its line
// end; see the package documentation): an input or end line gives a
// KindInput or KindEnd record holding the RunAgentInput or End, any other
// line an event, its wire JSON (without the leading space that keeps an
// event that looks like one of those lines an event). Data aliases line;
// Seq is zero. agview replay reads journal files with it.
func ParseLine(line []byte) Record {
	kind, data := KindEvent, line
	switch {
	case bytes.HasPrefix(line, inputPrefix) && bytes.HasSuffix(line, []byte{'}'}):
		kind, data = KindInput, line[len(inputPrefix):len(line)-1]
	case bytes.HasPrefix(line, endPrefix) && bytes.HasSuffix(line, []byte{'}'}):
		kind, data = KindEnd, line[len(endPrefix):len(line)-1]
	case len(line) > 0 && line[0] == ' ':
		data = line[1:]
	}
	return Record{Kind: kind, Data: data}
}

// parseLine returns the record of one line (without its '\n'), owning its
// bytes.
func parseLine(line []byte, seq uint64) Record {
	r := ParseLine(line)
	r.Seq, r.Data = seq, bytes.Clone(r.Data)
	return r
}
