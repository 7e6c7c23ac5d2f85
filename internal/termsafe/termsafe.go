// Package termsafe makes untrusted text (from an agent, a recording or a
// journal) safe to write to a terminal: no character that a terminal
// interprets (C0 and C1 controls, DEL, and so every escape sequence that
// could retitle a window, clear the screen, move the cursor over earlier
// lines or write the clipboard with OSC 52), no invisible character that
// reorders what follows (bidi overrides), no byte that is not UTF-8 (a lone
// 0x9b is CSI to a terminal in an 8-bit mode).
//
// [Unsafe] is the one definition of such a character: the terminal UI
// (package tui) drops them, and the CLI's text output escapes them visibly
// with [Escape], so that a hostile value is still readable as what it is.
//
// # Concurrency
//
// Every function may be called from any goroutine.
package termsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r must not reach a terminal as it is: a C0 control
// (line breaks and tabs included: in a one-line field they forge lines), DEL,
// a C1 control, U+2028 and U+2029 (line breaks to some terminals), or a
// Unicode format character (bidi overrides and the like, which are invisible
// and reorder the text after them), the zero-width joiner excepted (emoji
// sequences need it and it moves nothing).
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r < 0xa0:
		return false
	case r == '\u2028', r == '\u2029':
		return true
	case r == '\u200d':
		return false
	}
	return unicode.Is(unicode.Cf, r)
}

// Escape returns s with every unsafe character written visibly as an escape
// in Go's notation: \n, \r, \t and the like, \x1b for other ASCII controls,
// \u009b for C1 controls and \u202e for format characters, and \xff for a
// byte that is not UTF-8. Everything else, backslashes included, is left as
// it is: Escape is for a person reading a line, not for parsing it back. A
// string with nothing to escape is returned as it is, without allocating.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case !Unsafe(r):
			b.WriteString(s[i : i+size])
		default:
			b.WriteString(escapeRune(r))
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the index of the first unsafe character or invalid
// byte in s, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || Unsafe(r) {
			return i
		}
		i += size
	}
	return -1
}

// escapeRune writes an unsafe rune as Go would quote it.
func escapeRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	if r < 0x80 {
		return `\x` + hex2(byte(r))
	}
	h := strconv.FormatInt(int64(r), 16)
	if len(h) <= 4 {
		return `\u` + strings.Repeat("0", 4-len(h)) + h
	}
	return `\U` + strings.Repeat("0", 8-len(h)) + h
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// Contains reports whether s holds an unsafe character or a byte that is
// not UTF-8: whether Escape would change it.
func Contains(s string) bool { return firstUnsafe(s) >= 0 }
