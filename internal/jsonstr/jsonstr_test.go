package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestAppend(t *testing.T) {
	for _, tc := range []struct{ in, js, goStyle string }{
		{"", `""`, `""`},
		{"plain", `"plain"`, `"plain"`},
		{"q\"b\\s/", `"q\"b\\s/"`, `"q\"b\\s/"`},
		{"\b\f\n\r\t\x00\x1f", `"\b\f\n\r\t\u0000\u001f"`, `"\b\f\n\r\t\u0000\u001f"`},
		{"<&>", `"<&>"`, `"<&>"`},
		{"é中😀", `"é中😀"`, `"é中😀"`},
		{"a\u2028b\u2029", "\"a\u2028b\u2029\"", `"a\u2028b\u2029"`},
		{"bad\xffend", "\"bad\ufffdend\"", `"bad\ufffdend"`},
	} {
		assert.Equal(t, tc.js, string(Append(nil, tc.in, JS)), "JS %q", tc.in)
		assert.Equal(t, tc.goStyle, string(Append(nil, tc.in, Go)), "Go %q", tc.in)
		if utf8.ValidString(tc.in) {
			assert.Equal(t, len(tc.js), Len(tc.in), "Len %q", tc.in)
		}
	}
}

// FuzzAppend checks the Go style against encoding/json (HTML escaping off),
// and that the JS style decodes to the same string and has the length Len
// gives for valid UTF-8.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\x00\u2028", "bad\xff", "é中😀<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(buf.String(), "\n")
		if got := string(Append(nil, s, Go)); got != want {
			t.Fatalf("Go style %q: got %s, encoding/json %s", s, got, want)
		}
		js := Append(nil, s, JS)
		var back string
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatalf("JS style %q: %s does not decode: %v", s, js, err)
		}
		var valid strings.Builder // each invalid byte becomes U+FFFD
		for _, r := range s {
			valid.WriteRune(r)
		}
		if back != valid.String() {
			t.Fatalf("JS style %q decodes to %q", s, back)
		}
		if utf8.ValidString(s) && string(AppendValid(nil, s)) != string(js) {
			t.Fatalf("AppendValid(%q) differs from Append(JS)", s)
		}
		if utf8.ValidString(s) && Len(s) != len(js) {
			t.Fatalf("Len(%q) = %d, want %d", s, Len(s), len(js))
		}
	})
}
