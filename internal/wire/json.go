package wire

import (
	"encoding/binary"
	"math/bits"
)

// A small JSON scanner, shared by the fast paths here and by package event
// (which locates the values its errors name with it). Each function
// validates what it scans exactly as encoding/json does and reports failure
// with ok == false; none panics on any input.

// MaxDepth bounds the nesting SkipValue follows; deeper values are left to
// encoding/json (whose own limit is 10000).
const MaxDepth = 512

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipWS returns the index of the first non-space byte at or after i.
func SkipWS(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

const (
	loBits = 0x0101010101010101
	hiBits = 0x8080808080808080
)

// stops returns a mask whose lowest set bit is the high bit of the first of
// the eight bytes of w (little-endian) that is a quote, a backslash or a
// control character (below 0x20), and 0 when none is. Each of the three
// tests sets the high bit of the first byte that matches it, and may set it
// in later bytes too (a borrow), never in earlier ones.
func stops(w uint64) uint64 {
	q := w ^ (loBits * '"')
	b := w ^ (loBits * '\\')
	return ((q-loBits)&^q | (b-loBits)&^b | (w-loBits*0x20)&^w) & hiBits
}

// strClass marks the bytes a string scan must stop at.
var strClass = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = 1 // control: invalid inside a string
	}
	t['"'] = 2
	t['\\'] = 3
	for c := 0x80; c < 0x100; c++ {
		t[c] = 4 // non-ASCII: valid UTF-8 or not, encoding/json accepts it
	}
	return t
}()

// Str is the result of scanning a JSON string literal.
type Str struct {
	End     int  // index just past the closing quote
	Escaped bool // the string holds at least one escape
	Wide    bool // the string holds a byte >= 0x80
}

// ScanString scans the string literal starting at data[i] == '"'.
func ScanString(data []byte, i int) (s Str, ok bool) {
	i++
	for i < len(data) {
		// Eight bytes at a time while none of them ends the scan or needs a
		// look: a quote, a backslash or a control character.
		var seen uint64
		for i+8 <= len(data) {
			w := binary.LittleEndian.Uint64(data[i:])
			if m := stops(w); m != 0 {
				n := bits.TrailingZeros64(m) / 8 // the first byte that stops
				seen |= w & (1<<(8*n) - 1)
				i += n
				break
			}
			seen |= w
			i += 8
		}
		if seen&hiBits != 0 {
			s.Wide = true
		}
		if i >= len(data) {
			break
		}
		switch strClass[data[i]] {
		case 0:
			i++
		case 2:
			s.End = i + 1
			return s, true
		case 3:
			s.Escaped = true
			if i+1 >= len(data) {
				return s, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) || !isHex4(data[i+2:i+6]) {
					return s, false
				}
				i += 6
			default:
				return s, false
			}
		case 4:
			s.Wide = true
			i++
		default:
			return s, false
		}
	}
	return s, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isHex4(b []byte) bool {
	return isHex(b[0]) && isHex(b[1]) && isHex(b[2]) && isHex(b[3])
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// ScanNumber scans the number starting at data[i]:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. plain reports a number with
// neither fraction nor exponent.
func ScanNumber(data []byte, i int) (end int, plain, ok bool) {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return 0, false, false
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	default:
		return 0, false, false
	}
	plain = true
	if i < len(data) && data[i] == '.' {
		plain = false
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return 0, false, false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		plain = false
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return 0, false, false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	return i, plain, true
}

// scanLiteral scans lit (true, false, null) at data[i].
func scanLiteral(data []byte, i int, lit string) (end int, ok bool) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// SkipValue scans the value starting at data[i] (no leading space), nested
// depth levels deep, and returns the index just past it. It reports false
// for a value nested deeper than MaxDepth.
func SkipValue(data []byte, i, depth int) (end int, ok bool) {
	if i >= len(data) {
		return 0, false
	}
	switch c := data[i]; {
	case c == '"':
		s, ok := ScanString(data, i)
		return s.End, ok
	case c == '{' || c == '[':
		if depth >= MaxDepth {
			return 0, false
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = SkipWS(data, i+1)
		if i < len(data) && data[i] == closer {
			return i + 1, true
		}
		for {
			if c == '{' {
				if i >= len(data) || data[i] != '"' {
					return 0, false
				}
				s, ok := ScanString(data, i)
				if !ok {
					return 0, false
				}
				i = SkipWS(data, s.End)
				if i >= len(data) || data[i] != ':' {
					return 0, false
				}
				i = SkipWS(data, i+1)
			}
			if i, ok = SkipValue(data, i, depth+1); !ok {
				return 0, false
			}
			i = SkipWS(data, i)
			if i >= len(data) {
				return 0, false
			}
			if data[i] == closer {
				return i + 1, true
			}
			if data[i] != ',' {
				return 0, false
			}
			i = SkipWS(data, i+1)
		}
	case c == 't':
		return scanLiteral(data, i, "true")
	case c == 'f':
		return scanLiteral(data, i, "false")
	case c == 'n':
		return scanLiteral(data, i, "null")
	default:
		end, _, ok := ScanNumber(data, i)
		return end, ok
	}
}

// BadPointer says why s is not an RFC 6901 JSON pointer ("" or "/…", each
// "~" followed by "0" or "1"), or returns "" when it is one.
func BadPointer[T string | []byte](s T) string {
	if len(s) > 0 && s[0] != '/' {
		return `a JSON pointer is "" or starts with "/"`
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || s[i+1] != '0' && s[i+1] != '1') {
			return `"~" must be followed by "0" or "1"`
		}
	}
	return ""
}
