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
		// A byte that is not UTF-8 is kept (G19): replacing it would make
		// distinct strings equal.
		{"bad\xffend", "\"bad\xffend\"", "\"bad\xffend\""},
		// Lone surrogates (generalized UTF-8) are written as their escapes.
		{"k\xed\xa0\x80", `"k\ud800"`, `"k\ud800"`},
		{"k\xed\xaf\xbf", `"k\udbff"`, `"k\udbff"`},
		{"\xed\xb0\x80x\xed\xa0\x80", `"\udc00x\ud800"`, `"\udc00x\ud800"`},
		// A high surrogate then a low one (text streamed in two pieces) is
		// the one character.
		{"a\xed\xa0\xbd\xed\xb8\x80b", `"a😀b"`, `"a😀b"`},
		// A low one then a high one is two lone surrogates.
		{"\xed\xb8\x80\xed\xa0\xbd", `"\ude00\ud83d"`, `"\ude00\ud83d"`},
		// Bytes that only look like the start of a surrogate are not one.
		{"\xed\xa0", "\"\xed\xa0\"", "\"\xed\xa0\""},
	} {
		assert.Equal(t, tc.js, string(Append(nil, tc.in, JS)), "JS %q", tc.in)
		assert.Equal(t, tc.goStyle, string(Append(nil, tc.in, Go)), "Go %q", tc.in)
		assert.Equal(t, len(tc.js), Len(tc.in), "Len %q", tc.in)
	}
}

func TestAppendUnquoted(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{``, ""},
		{`plain`, "plain"},
		{`\"\\\/\b\f\n\r\t`, "\"\\/\b\f\n\r\t"},
		{`\u00e9\u4e2d`, "é中"},
		{`\ud83d\ude00`, "😀"},
		{`\uD83D\uDE00`, "😀"},
		{`k\ud800`, "k\xed\xa0\x80"},
		{`k\udbff`, "k\xed\xaf\xbf"},
		{`\ude00\ud83d`, "\xed\xb8\x80\xed\xa0\xbd"},
		{`\ud83dx\ude00`, "\xed\xa0\xbdx\xed\xb8\x80"},
		{"bad\xff", "bad\xff"},
		// Raw bytes that encode a surrogate read as it; a raw pair joins.
		{"\xed\xa0\x80", "\xed\xa0\x80"},
		{"\xed\xa0\xbd\xed\xb8\x80", "😀"},
		{"\\ud83d\xed\xb8\x80", "😀"},
	} {
		assert.Equal(t, tc.want, string(AppendUnquoted(nil, []byte(tc.body))), "body %q", tc.body)
	}
	assert.NotEqual(t, AppendUnquoted(nil, []byte(`k\ud800`)), AppendUnquoted(nil, []byte(`k\udbff`)),
		"lone surrogates keep distinct strings distinct")
}

func TestJoin(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain é", "plain é"},
		{"a\xed\xa0\xbd\xed\xb8\x80b", "a😀b"},
		{"\xed\xa0\xbd", "\xed\xa0\xbd"},
		{"\xed\xb8\x80\xed\xa0\xbd", "\xed\xb8\x80\xed\xa0\xbd"},
		{"\xed\xa0\xbd\xed\xa0\xbd\xed\xb8\x80", "\xed\xa0\xbd😀"},
	} {
		assert.Equal(t, tc.want, Join(tc.in), "Join(%q)", tc.in)
	}
}

// FuzzAppend checks the Go style against encoding/json (HTML escaping off)
// for UTF-8, that both styles read back (AppendUnquoted) to the string with
// its split surrogate pairs joined, that JS agrees with AppendValid and Len,
// and that AppendUnquoted's output is canonical: written and read again, it
// is the same.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\x00\u2028", "bad\xff", "é中😀<&>", "k\xed\xa0\x80", "\xed\xa0\xbd\xed\xb8\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if utf8.ValidString(s) {
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
			if string(AppendValid(nil, s)) != string(Append(nil, s, JS)) {
				t.Fatalf("AppendValid(%q) differs from Append(JS)", s)
			}
		}
		for _, st := range []Style{JS, Go} {
			lit := Append(nil, s, st)
			back := string(AppendUnquoted(nil, lit[1:len(lit)-1]))
			if back != Join(s) {
				t.Fatalf("style %d: %q written as %s reads back as %q", st, s, lit, back)
			}
		}
		if Len(s) != len(Append(nil, s, JS)) {
			t.Fatalf("Len(%q) = %d, want %d", s, Len(s), len(Append(nil, s, JS)))
		}
		canon := AppendUnquoted(nil, bytes.ReplaceAll([]byte(s), []byte(`\`), nil))
		lit := Append(nil, string(canon), JS)
		if again := AppendUnquoted(nil, lit[1:len(lit)-1]); !bytes.Equal(again, canon) {
			t.Fatalf("%q: canonical %q written as %s reads back as %q", s, canon, lit, again)
		}
	})
}
