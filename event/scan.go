package event

import (
	"strconv"
	"strings"
)

// A small JSON scanner shared by the fast path and by locate. Each function
// validates what it scans exactly as encoding/json does and reports failure
// with ok == false; it never panics on any input.

// maxScanDepth bounds the nesting skipValue follows; deeper values are left to
// encoding/json (whose own limit is 10000).
const maxScanDepth = 512

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipWS returns the index of the first non-space byte at or after i.
func skipWS(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
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

// strScan is the result of scanning a JSON string.
type strScan struct {
	end     int  // index just past the closing quote
	escaped bool // the string holds at least one escape
	wide    bool // the string holds a byte >= 0x80
}

// scanString scans the string literal starting at data[i] == '"'.
func scanString(data []byte, i int) (s strScan, ok bool) {
	i++
	for i < len(data) {
		switch strClass[data[i]] {
		case 0:
			i++
		case 2:
			s.end = i + 1
			return s, true
		case 3:
			s.escaped = true
			if i+1 >= len(data) {
				return s, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return s, false
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						return s, false
					}
				}
				i += 6
			default:
				return s, false
			}
		case 4:
			s.wide = true
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

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanNumber scans the number starting at data[i]: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
// plain reports a number with neither fraction nor exponent.
func scanNumber(data []byte, i int) (end int, plain, ok bool) {
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

// skipValue scans the value starting at data[i] (no leading space) and
// returns the index just past it.
func skipValue(data []byte, i, depth int) (end int, ok bool) {
	if i >= len(data) {
		return 0, false
	}
	switch c := data[i]; {
	case c == '"':
		s, ok := scanString(data, i)
		return s.end, ok
	case c == '{' || c == '[':
		if depth >= maxScanDepth {
			return 0, false
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipWS(data, i+1)
		if i < len(data) && data[i] == closer {
			return i + 1, true
		}
		for {
			if c == '{' {
				if i >= len(data) || data[i] != '"' {
					return 0, false
				}
				s, ok := scanString(data, i)
				if !ok {
					return 0, false
				}
				i = skipWS(data, s.end)
				if i >= len(data) || data[i] != ':' {
					return 0, false
				}
				i = skipWS(data, i+1)
			}
			if i, ok = skipValue(data, i, depth+1); !ok {
				return 0, false
			}
			i = skipWS(data, i)
			if i >= len(data) {
				return 0, false
			}
			if data[i] == closer {
				return i + 1, true
			}
			if data[i] != ',' {
				return 0, false
			}
			i = skipWS(data, i+1)
		}
	case c == 't':
		return scanLiteral(data, i, "true")
	case c == 'f':
		return scanLiteral(data, i, "false")
	case c == 'n':
		return scanLiteral(data, i, "null")
	default:
		end, _, ok := scanNumber(data, i)
		return end, ok
	}
}

// locate returns the byte offset in data (a valid JSON document) of the value
// that the JSON pointer ptr names, or of the deepest existing value on its
// path when the rest is missing. Among duplicate member names the last wins,
// as in decoding. It returns -1 if data is not valid JSON after all.
func locate(data []byte, ptr string) int {
	i := skipWS(data, 0)
	if i >= len(data) {
		return -1
	}
	if ptr == "" {
		return i
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		next, found, ok := member(data, i, tok)
		if !ok {
			return -1
		}
		if !found {
			return i
		}
		i = next
	}
	return i
}

// member finds the value named tok (a member name, or an array index) in the
// container value at data[i].
func member(data []byte, i int, tok string) (at int, found, ok bool) {
	c := data[i]
	if c != '{' && c != '[' {
		return 0, false, true
	}
	want := -1
	if c == '[' {
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 {
			return 0, false, true
		}
		want = n
	}
	closer := byte('}')
	if c == '[' {
		closer = ']'
	}
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == closer {
		return 0, false, true
	}
	for n := 0; ; n++ {
		match := n == want
		if c == '{' {
			s, ok := scanString(data, i)
			if !ok {
				return 0, false, false
			}
			match = unquote(data[i:s.end]) == tok
			i = skipWS(data, s.end)
			i = skipWS(data, i+1) // past ':'
		}
		if match {
			at, found = i, true
			if c == '[' {
				return at, found, true
			}
		}
		end, ok := skipValue(data, i, 0)
		if !ok {
			return 0, false, false
		}
		i = skipWS(data, end)
		if i >= len(data) {
			return 0, false, false
		}
		if data[i] == closer {
			return at, found, true
		}
		i = skipWS(data, i+1) // past ','
	}
}
