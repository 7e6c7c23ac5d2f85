package journal

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzLine checks the line form: any record becomes exactly one line, read
// back with its kind, and with its JSON unchanged up to insignificant
// whitespace (data that is not JSON keeps its bytes but line ends).
func FuzzLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		"{\n\"type\":\"CUSTOM\"}",
		`{"type":"agview.input","input":{}}`,
		` {"type":"agview.end","end":{}}`,
		"not json\r\nat all",
		``,
	} {
		for k := KindEvent; k <= KindEnd; k++ {
			f.Add(uint8(k), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		k := Kind(kind%3 + 1)
		if len(data) == 0 {
			return // refused by checkRecords
		}
		line := appendLine(nil, &Record{Kind: k, Data: data})
		if bytes.IndexByte(line[:len(line)-1], '\n') >= 0 || line[len(line)-1] != '\n' {
			t.Fatalf("not one line: %q", line)
		}
		r := parseLine(line[:len(line)-1], 7)
		if r.Seq != 7 {
			t.Fatalf("seq %d", r.Seq)
		}
		valid := json.Valid(data)
		if k != KindEvent && !valid {
			return // inputs and ends are JSON the client made
		}
		if r.Kind != k {
			t.Fatalf("kind %v read back as %v from %q", k, r.Kind, line)
		}
		if valid {
			var a, b bytes.Buffer
			if json.Compact(&a, data) != nil || json.Compact(&b, r.Data) != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("data %q read back as %q", data, r.Data)
			}
		} else if !bytes.Equal(r.Data, replaceEOL(data)) {
			t.Fatalf("data %q read back as %q", data, r.Data)
		}
	})
}

func replaceEOL(b []byte) []byte {
	out := bytes.Clone(b)
	for i, c := range out {
		if c == '\n' || c == '\r' {
			out[i] = ' '
		}
	}
	return out
}
