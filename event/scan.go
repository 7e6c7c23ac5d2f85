package event

import (
	"strconv"
	"strings"

	"github.com/agview/agview/internal/wire"
)

// locate returns the byte offset in data (a valid JSON document) of the value
// that the JSON pointer ptr names, or of the deepest existing value on its
// path when the rest is missing. Among duplicate member names the last wins,
// as in decoding. It returns -1 if data is not valid JSON after all.
func locate(data []byte, ptr string) int {
	i := wire.SkipWS(data, 0)
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
	i = wire.SkipWS(data, i+1)
	if i < len(data) && data[i] == closer {
		return 0, false, true
	}
	for n := 0; ; n++ {
		match := n == want
		if c == '{' {
			s, ok := wire.ScanString(data, i)
			if !ok {
				return 0, false, false
			}
			match = unquote(data[i:s.End]) == tok
			i = wire.SkipWS(data, s.End)
			i = wire.SkipWS(data, i+1) // past ':'
		}
		if match {
			at, found = i, true
			if c == '[' {
				return at, found, true
			}
		}
		end, ok := wire.SkipValue(data, i, 0)
		if !ok {
			return 0, false, false
		}
		i = wire.SkipWS(data, end)
		if i >= len(data) {
			return 0, false, false
		}
		if data[i] == closer {
			return at, found, true
		}
		i = wire.SkipWS(data, i+1) // past ','
	}
}
