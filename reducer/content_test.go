package reducer

import (
	"encoding/json"
	"testing"
)

// FuzzJSONString checks jsonString, the shortcut content takes for JSON
// strings, against encoding/json: whenever it answers,
// encoding/json decodes the same literal to the same string.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"plain"`, `""`, `"caf\u00e9"`, `"a\nb"`, "\"caf\xc3\xa9\"", "\"bad\xff\"", `"tab	in"`, `"unterminated`, `"q"q"`, `x`, `"a\"b\\c\/d\u00e9\u4E2D\n"`, `"\ud83d\ude00"`, `"\u12"`, `"\x"`, `"end\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := jsonString(raw)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("jsonString accepted %q, which encoding/json refuses: %v", raw, err)
		}
		if got != want {
			t.Fatalf("jsonString(%q) = %q, encoding/json gives %q", raw, got, want)
		}
	})
}

// TestJSONStringTakesCommonLiterals checks that the shortcut answers for
// the literals real tool results hold, escapes included.
func TestJSONStringTakesCommonLiterals(t *testing.T) {
	for _, raw := range []string{`"plain"`, `""`, `"line\nbreak and \"quotes\""`, `"caf\u00e9 \/ \\"`, "\"caf\xc3\xa9\""} {
		got, ok := jsonString([]byte(raw))
		if !ok {
			t.Fatalf("jsonString(%s) left it to encoding/json", raw)
		}
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil || got != want {
			t.Fatalf("jsonString(%s) = %q, encoding/json gives %q (%v)", raw, got, want, err)
		}
	}
}

// FuzzResultContent checks resultContent, which reads a tool result's
// content sharing bytes between the call and its message, against content
// and the bytes as sent: the call keeps exactly what was sent, and the
// message reads exactly what content reads, escapes, bad UTF-8 and
// content parts included.
func FuzzResultContent(f *testing.F) {
	for _, s := range []string{`"plain"`, `""`, `"caf\u00e9"`, `"a\nb"`, "\"caf\xc3\xa9\"", "\"bad\xff\"", `"x\ud800y"`, `[{"type":"text","text":"hi"}]`, `"unterminated`, ``, `7`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sent, text, isText, other := resultContent(raw)
		if sent != string(raw) {
			t.Fatalf("resultContent(%q) keeps %q for the call", raw, sent)
		}
		wantText, wantIsText, wantOther := content(raw)
		if text.String() != wantText.String() || isText != wantIsText || string(other) != string(wantOther) || (other == nil) != (wantOther == nil) {
			t.Fatalf("resultContent(%q) gives the message (%q, %v, %q), content (%q, %v, %q)",
				raw, text.String(), isText, other, wantText.String(), wantIsText, wantOther)
		}
	})
}
