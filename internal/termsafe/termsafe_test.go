package termsafe

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"café ☕ 👩‍💻", "café ☕ 👩‍💻"},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\a`},
		{"\x1b]52;c;aGVsbG8=\x1b\\", `\x1b]52;c;aGVsbG8=\x1b\`},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"line\rforged", `line\rforged`},
		{"two\nlines", `two\nlines`},
		{"tab\there", `tab\there`},
		{"c1 \u009b31m csi", `c1 \u009b31m csi`},
		{"raw \x9b byte", `raw \x9b byte`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"del\x7f", `del\x7f`},
		{"ls\u2028", `ls\u2028`},
		{"tag \U000E0041", `tag \U000e0041`},
		{`back\slash`, `back\slash`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			got := Escape(tc.in)
			assert.Equal(t, tc.want, got)
			assert.False(t, Contains(got), "the escaped form is safe")
			assert.Equal(t, tc.in != tc.want, Contains(tc.in))
		})
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "x", "\x1b[31m", "\u009b", "\xff\xfe", "é\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q: not UTF-8", s, got)
		}
		for _, r := range got {
			if Unsafe(r) {
				t.Fatalf("Escape(%q) = %q holds %U", s, got, r)
			}
		}
	})
}
