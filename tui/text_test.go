package tui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
)

func TestClean(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"plain", "hello\nworld", "hello\nworld"},
		{"CSI", "a\x1b[2Jb\x1b[31mc", "abc"},
		{"OSC title", "a\x1b]0;pwned\x07b", "ab"},
		{"C0 and DEL", "a\x00b\x07c\x08d\x7fe", "abcde"},
		{"C1", "a\u009bb\u0085c", "abc"},
		{"tab", "a\tb", "a    b"},
		{"CRLF and CR", "a\r\nb\rc", "a\nb\nc"},
		{"line separators", "a\u2028b\u2029c", "a\nb\nc"},
		{"bidi override", "a\u202eb\u2066c", "abc"},
		{"ZWJ kept", "👩\u200d💻", "👩\u200d💻"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"unicode", "naïve 日本 °C", "naïve 日本 °C"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, clean(tc.in))
		})
	}
	assert.Equal(t, "a b c", oneLine("  a\n\tb  \r\n c "), "oneLine folds white space")
}

func TestWidthTruncateTail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in           string
		w            int
		width        int
		trunc, tail_ string
	}{
		{"hello", 10, 5, "hello", "hello"},
		{"hello world", 5, 11, "hell…", "…orld"},
		{"日本語です", 5, 10, "日本…", "…です"},
		{"日本語です", 4, 10, "日…", "…す"},
		{"abc", 0, 3, "", ""},
		{"abc", 1, 3, "…", "…"},
		{"e\u0301te", 3, 3, "e\u0301te", "e\u0301te"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.width, width(tc.in), "width(%q)", tc.in)
		assert.Equal(t, tc.trunc, truncate(tc.in, tc.w), "truncate(%q, %d)", tc.in, tc.w)
		assert.Equal(t, tc.tail_, tail(tc.in, tc.w), "tail(%q, %d)", tc.in, tc.w)
		assert.LessOrEqual(t, width(truncate(tc.in, tc.w)), max(tc.w, 0))
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		w    int
		want []string
	}{
		{"fits", "short line", 20, []string{"short line"}},
		{"at spaces", "the quick brown fox jumps", 10, []string{"the quick", "brown fox", "jumps"}},
		{"long word", "abcdefghijkl", 5, []string{"abcde", "fghij", "kl"}},
		{"word after a break", "ab cdefghij", 5, []string{"ab", "cdefg", "hij"}},
		{"line breaks kept", "a\n\nb", 5, []string{"a", "", "b"}},
		{"wide runes", "日本語のテキスト", 6, []string{"日本語", "のテキ", "スト"}},
		{"wide rune at the edge", "a日本", 4, []string{"a日", "本"}},
		{"trailing spaces", "a    ", 3, []string{"a"}},
		{"many spaces", "a      b", 3, []string{"a", "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, wrap(tc.in, tc.w))
		})
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	got := line(10, plain("ab"), with(stBold, "cd"), plain("ef"))
	assert.Equal(t, "abcdef    ", ansi.Strip(got), "padded to the width")
	assert.Contains(t, got, stBold.render("cd"), "styled runs keep their style")
	got = line(5, plain("ab"), with(stBold, "cdef"), plain("gh"))
	assert.Equal(t, "abcd…", ansi.Strip(got), "cut with an ellipsis")
	assert.Contains(t, got, stBold.render("cd…"), "the ellipsis takes the style of the run it cuts")
	assert.Equal(t, "日… ", ansi.Strip(line(4, plain("日本語"))), "a wide rune that does not fit leaves padding")
	assert.Equal(t, "", line(0, plain("x")))
}

// FuzzLayout checks the layout helpers on any text: cleaned text has no
// control character, wrapped and cut lines never exceed the width, and
// line always fills it exactly.
func FuzzLayout(f *testing.F) {
	f.Add("the quick brown fox", 7)
	f.Add("日本語のテキスト and ascii", 5)
	f.Add("a\x1b[2Jb\tc\r\nd\u202e", 3)
	f.Add("👩\u200d💻 emoji e\u0301", 4)
	f.Add(strings.Repeat("x", 100), 2)
	f.Fuzz(func(t *testing.T, s string, w int) {
		w = 2 + abs(w)%120
		c := clean(s)
		if !utf8.ValidString(c) {
			t.Fatalf("clean(%q) is not valid UTF-8", s)
		}
		for _, r := range c {
			if r != '\n' && (r < 0x20 || r >= 0x7f && r < 0xa0) {
				t.Fatalf("clean(%q) keeps control %U", s, r)
			}
		}
		if strings.Contains(c, "\x1b") {
			t.Fatalf("clean(%q) keeps ESC", s)
		}
		for _, l := range wrap(c, w) {
			if width(l) > w {
				t.Fatalf("wrap(%q, %d): line %q is %d wide", c, w, l, width(l))
			}
		}
		o := oneLine(s)
		if got := width(truncate(o, w)); got > w {
			t.Fatalf("truncate(%q, %d) is %d wide", o, w, got)
		}
		if got := width(tail(o, w)); got > w {
			t.Fatalf("tail(%q, %d) is %d wide", o, w, got)
		}
		if got := ansi.StringWidthWc(line(w, plain(o), with(stBold, o))); got != w {
			t.Fatalf("line(%d, %q) is %d wide", w, o, got)
		}
	})
}

func abs(x int) int {
	if x < 0 {
		if -x < 0 {
			return 0
		}
		return -x
	}
	return x
}
