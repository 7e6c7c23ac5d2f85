// Package jsonstr writes Go strings as JSON string literals, in the two
// conventions agview needs: JavaScript's JSON.stringify, which the reference
// client's messages and state documents follow, and encoding/json's (without
// its HTML escaping), which event.Encode follows.
//
// # Concurrency
//
// The functions are pure and may be called from any goroutine.
package jsonstr

import "unicode/utf8"

// Style is a convention for writing JSON strings.
type Style uint8

const (
	// JS writes strings as JavaScript's JSON.stringify does: only '"', '\\'
	// and control characters are escaped; invalid UTF-8 becomes the
	// character U+FFFD (JavaScript strings cannot hold it; encoding/json
	// replaces it the same way).
	JS Style = iota
	// Go writes strings as encoding/json does with HTML escaping off: as JS,
	// and U+2028 and U+2029 are escaped too; invalid UTF-8 becomes the escape
	// \ufffd.
	Go
)

const hexDigits = "0123456789abcdef"

// escapeLen is the encoded length of each ASCII byte inside a JSON string.
var escapeLen = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			t[c] = 2
		case c < 0x20:
			t[c] = 6
		default:
			t[c] = 1
		}
	}
	return t
}()

// Append appends s to b as a JSON string literal written in style st.
func Append(b []byte, s string, st Style) []byte {
	if st == JS && utf8.ValidString(s) {
		return AppendValid(b, s)
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if escapeLen[c] == 1 {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = appendEscape(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			if st == Go {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, "\ufffd"...)
			}
		case st == Go && (r == '\u2028' || r == '\u2029'):
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendValid is Append(b, s, JS) for s known to be valid UTF-8 (its
// non-ASCII bytes are copied without a look), for callers whose strings
// were validated when they were made.
func AppendValid(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || escapeLen[c] == 1 {
			continue
		}
		b = append(b, s[start:i]...)
		b = appendEscape(b, c)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendEscape appends the escape of ASCII byte c, which needs one.
func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// Len returns len(Append(nil, s, JS)) for valid UTF-8 s without building it.
func Len(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf {
			n += int(escapeLen[c])
		} else {
			n++
		}
	}
	return n
}
