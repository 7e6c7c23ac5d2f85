package tui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/agview/agview/internal/termsafe"
)

// Text from the wire is untrusted: it may hold escape sequences that would
// take over the terminal, control characters, invalid UTF-8 and lines of any
// length. Everything shown goes through clean first, and all layout is done
// on plain text, measured as the renderer measures cells (wcwidth), before
// any style is applied.

// clean makes untrusted text safe to print: escape sequences and control
// characters are removed (a tab becomes spaces, CR LF and CR become LF),
// invalid UTF-8 becomes U+FFFD.
func clean(s string) string {
	if isPlain(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.ContainsRune(s, 0x1b) || strings.ContainsAny(s, "\u009b\u009d\u0090\u009f\u009e\u0098") {
		s = ansi.Strip(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				continue
			}
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString("    ")
		case r == '\u2028', r == '\u2029':
			b.WriteByte('\n')
		case termsafe.Unsafe(r):
			// Other C0 and C1 controls, DEL, format characters (bidi
			// overrides and the like, invisible and able to reorder what
			// follows): dropped. The CLI's text output escapes the same
			// characters visibly (termsafe.Escape).
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII only (plus LF), the common case
// that clean returns unchanged.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n') || c >= 0x7f {
			return false
		}
	}
	return true
}

// oneLine cleans s and folds it onto one line: runs of white space, line
// breaks included, become one space; leading and trailing space is dropped.
func oneLine(s string) string {
	return strings.Join(strings.Fields(clean(s)), " ")
}

// runeWidth returns the cells r takes, as the renderer counts them.
func runeWidth(r rune) int {
	if r < 0x7f {
		if r < 0x20 {
			return 0
		}
		return 1
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	return ansi.StringWidthWc(string(buf[:n]))
}

// width returns the cells the plain string s takes.
func width(s string) int {
	if isPlain(s) {
		return len(s)
	}
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// truncate cuts the plain string s to at most w cells, ending it with "…"
// when something was cut.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if width(s) <= w {
		return s
	}
	return cut(s, w-1) + "…"
}

// cut returns the longest prefix of the plain string s that fits in w cells.
func cut(s string, w int) string {
	used := 0
	for i, r := range s {
		rw := runeWidth(r)
		if used+rw > w {
			return s[:i]
		}
		used += rw
	}
	return s
}

// tail keeps the end of the plain one-line string s within w cells,
// starting it with "…" when something was cut: the end of a text that is
// still streaming is the interesting part.
func tail(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if width(s) <= w {
		return s
	}
	rs := []rune(s)
	used := 0
	i := len(rs)
	for i > 0 {
		rw := runeWidth(rs[i-1])
		if used+rw > w-1 {
			break
		}
		used += rw
		i--
	}
	return "…" + string(rs[i:])
}

// pad fills the plain string s with spaces up to w cells (s must fit).
func pad(s string, w int) string {
	if n := w - width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// wrap breaks clean text into lines of at most w cells: at spaces where it
// can, inside a word where a word is longer than a line. Line breaks in s are
// kept; trailing spaces are dropped.
func wrap(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	var out []string
	for para := range strings.SplitSeq(s, "\n") {
		out = wrapLine(out, para, w)
	}
	return out
}

func wrapLine(out []string, s string, w int) []string {
	s = strings.TrimRight(s, " ")
	if width(s) <= w {
		return append(out, s)
	}
	var line []rune
	lineW := 0
	lastSpace := -1 // index in line of the last space, -1 if none
	flush := func(n int) {
		out = append(out, strings.TrimRight(string(line[:n]), " "))
	}
	for _, r := range s {
		rw := runeWidth(r)
		for lineW+rw > w && lineW > 0 {
			if r == ' ' {
				break
			}
			if lastSpace > 0 {
				// Break at the last space; the word after it moves on.
				flush(lastSpace)
				line = append(line[:0], line[lastSpace+1:]...)
			} else {
				// One word longer than a line: break inside it.
				flush(len(line))
				line = line[:0]
			}
			lastSpace = -1
			lineW = 0
			for _, x := range line {
				lineW += runeWidth(x)
			}
		}
		if r == ' ' {
			if lineW+rw > w {
				// A space that does not fit ends the line.
				flush(len(line))
				line, lineW, lastSpace = line[:0], 0, -1
				continue
			}
			if lineW == 0 {
				continue // no leading space on a wrapped line
			}
			lastSpace = len(line)
		}
		line = append(line, r)
		lineW += rw
	}
	if len(line) > 0 {
		flush(len(line))
	}
	return out
}
