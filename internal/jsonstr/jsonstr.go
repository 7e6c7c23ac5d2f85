// Package jsonstr reads and writes JSON string literals for all of agview,
// in the two conventions agview writes: JavaScript's JSON.stringify, which
// the reference client's messages and state documents follow, and
// encoding/json's (without its HTML escaping), which event.Encode follows.
//
// # Strings survive exactly (docs/protocol.md G19)
//
// Two JSON strings that differ stay different. A JSON string is a sequence of
// UTF-16 code units, and may hold a lone surrogate (\ud800) that UTF-8
// cannot encode; encoding/json and Go's UTF-8 functions turn it into U+FFFD,
// so the keys "k\ud800" and "k\udbff" would become one. Here a string's Go
// form is its generalized UTF-8 (WTF-8):
//   - every character is UTF-8, and a surrogate pair is the one character it
//     encodes;
//   - a lone surrogate is the three bytes ED A0..BF 80..BF that UTF-8 would
//     give it if it allowed surrogates, and is written back as its \u escape;
//   - a byte of the input that is not UTF-8 (the JSON was not UTF-8) is kept
//     as it is, and written back as it is: distinct inputs stay distinct.
//
// Raw bytes that happen to encode a surrogate read as that surrogate, as its
// escape does. Text that arrives in pieces (streamed deltas) may end one
// piece with a high surrogate and start the next with its low one, as a
// JavaScript producer slicing UTF-16 does: the writers and Join read the two
// as the one character, as JavaScript does once the pieces are joined.
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
	// and control characters are escaped, and lone surrogates (as
	// JSON.stringify does since ES2019).
	JS Style = iota
	// Go writes strings as encoding/json does with HTML escaping off: as JS,
	// and U+2028 and U+2029 are escaped too.
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

// Append appends s to b as a JSON string literal written in style st (see
// the package documentation for the bytes that are not UTF-8).
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
		case r != utf8.RuneError || size > 1:
			if st == Go && (r == '\u2028' || r == '\u2029') {
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
		sr, ok := surrogateAt(s, i)
		if !ok {
			i++ // a byte that is not UTF-8: kept as it is
			continue
		}
		b = append(b, s[start:i]...)
		if lo, ok := surrogateAt(s, i+3); ok && isHigh(sr) && !isHigh(lo) {
			b = utf8.AppendRune(b, combine(sr, lo))
			i += 6
		} else {
			b = append(b, '\\', 'u', hexDigits[sr>>12], hexDigits[sr>>8&0xf], hexDigits[sr>>4&0xf], hexDigits[sr&0xf])
			i += 3
		}
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// surrogateAt returns the surrogate whose generalized UTF-8 encoding starts
// s[i:], if one does.
func surrogateAt[S ~string | ~[]byte](s S, i int) (rune, bool) {
	if i+2 >= len(s) || s[i] != 0xED || s[i+1] < 0xA0 || s[i+1] > 0xBF || s[i+2]&0xC0 != 0x80 {
		return 0, false
	}
	return 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), true
}

func isHigh(r rune) bool { return r < 0xDC00 }

func combine(hi, lo rune) rune { return 0x10000 + (hi-0xD800)<<10 + (lo - 0xDC00) }

// appendSurrogate appends the generalized UTF-8 encoding of surrogate r.
func appendSurrogate(b []byte, r rune) []byte {
	return append(b, 0xED, 0x80|byte(r>>6&0x3F), 0x80|byte(r&0x3F))
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

// Len returns len(Append(nil, s, JS)) without building it (it does for a
// string that is not UTF-8, which is rare).
func Len(s string) int {
	if !utf8.ValidString(s) {
		return len(Append(nil, s, JS))
	}
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

// AppendUnquoted appends to dst the value of body, the bytes between the
// quotes of a JSON string literal whose escapes are valid, in the Go form of
// the package documentation: a surrogate pair (escaped or not) is its
// character, a lone surrogate its generalized UTF-8, a byte that is not
// UTF-8 itself.
func AppendUnquoted(dst, body []byte) []byte {
	start := len(dst)
	surrogates := false
	for i := 0; i < len(body); {
		j := i
		for j < len(body) && body[j] != '\\' {
			if body[j] == 0xED {
				surrogates = true
			}
			j++
		}
		dst = append(dst, body[i:j]...)
		if j+1 >= len(body) {
			break
		}
		switch c := body[j+1]; c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			if j+6 > len(body) {
				return dst
			}
			var r rune
			for _, h := range body[j+2 : j+6] {
				r = r<<4 | rune(hexVal(h))
			}
			if r >= 0xD800 && r < 0xE000 {
				dst = appendSurrogate(dst, r)
				surrogates = true
			} else {
				dst = utf8.AppendRune(dst, r)
			}
			i = j + 6
			continue
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
		i = j + 2
	}
	if surrogates {
		dst = append(dst[:start], joinPairs(dst[start:])...)
	}
	return dst
}

// joinPairs rewrites, in place, each high surrogate followed by a low one
// (both in generalized UTF-8) as the character they encode, and returns the
// shorter slice.
func joinPairs(b []byte) []byte {
	w := 0
	for i := 0; i < len(b); {
		if hi, ok := surrogateAt(b, i); ok && isHigh(hi) {
			if lo, ok := surrogateAt(b, i+3); ok && !isHigh(lo) {
				w += utf8.EncodeRune(b[w:], combine(hi, lo))
				i += 6
				continue
			}
		}
		b[w] = b[i]
		w++
		i++
	}
	return b[:w]
}

// Join returns s with each high surrogate that a low one follows (in
// generalized UTF-8: text streamed in pieces split between the two) joined
// into the character they encode. It returns s itself when there is none.
func Join(s string) string {
	for i := 0; i < len(s); i++ {
		if hi, ok := surrogateAt(s, i); ok && isHigh(hi) {
			if _, ok := surrogateAt(s, i+3); ok {
				return string(joinPairs([]byte(s)))
			}
		}
	}
	return s
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
