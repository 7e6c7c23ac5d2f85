package wire

import (
	"bytes"
	"unicode/utf8"
	"unsafe"
)

// Kind is what a member of a flat event holds, as ScanFlat reads it.
type Kind uint8

const (
	// String is a string literal holding valid UTF-8 (Value.Escaped tells
	// whether its body holds escapes).
	String Kind = iota + 1
	// Bool is true or false.
	Bool
	// Literal is a string literal kept raw, quotes and escapes included.
	Literal
	// Any is any JSON value, null included, kept raw.
	Any
	// NotNull is any JSON value but null, kept raw.
	NotNull
	// Object is a JSON object, kept raw.
	Object
	// Patch is a JSON Patch array whose operations pass event.Decode's
	// checks (G8): every operation an object, and one whose op is one of
	// the six of RFC 6902 with the path, from and value it needs, path and
	// from JSON pointers. The scanner leaves to event.Decode an operation it
	// does not read in place (escaped member names, op, path or from).
	Patch
)

// MaxMembers is the most members a Spec may list.
const MaxMembers = 8

// Member is one member a Spec reads.
type Member struct {
	Name     string // the member's name, matched exactly
	Kind     Kind   // what its value must be
	Required bool   // the event has no fast shape without it
}

// Spec describes a flat event type to ScanFlat: its wire type and the
// members it may have besides "type" and "timestamp" (which every event may
// carry, a safe integer).
type Spec struct {
	Type    string   // the wire type, e.g. "TEXT_MESSAGE_START"
	Members []Member // at most MaxMembers
}

// Value is where a member's value lies in the input: for a String, the
// literal's body between the quotes, data[Lo:Hi]; for the other kinds, the
// value itself.
type Value struct {
	Lo, Hi  int32
	Escaped bool // a String body that holds escapes
}

// Flat is what ScanFlat found: a value for each member of the Spec present
// in the input, and the timestamp.
type Flat struct {
	Vals      [MaxMembers]Value // Vals[k]: where member k's value lies, when present
	Has       uint16            // bit k: Members[k] is present
	strs      uint16            // bit k: Members[k] is a String and present
	Timestamp int64             // the timestamp, when Timed
	Timed     bool              // the timestamp is present
}

// Present reports whether member k of the Spec is present.
func (f *Flat) Present(k int) bool { return f.Has&(1<<k) != 0 }

// Bytes returns the value of member k: a String's literal body, or a raw
// value. It aliases data.
func (f *Flat) Bytes(data []byte, k int) []byte { return data[f.Vals[k].Lo:f.Vals[k].Hi] }

// maxInput is the longest input ScanFlat reads, so that a Value's bounds
// fit in 32 bits; a longer one is left to event.Decode.
const maxInput = 1<<31 - 1

// maxSafeInt is 2^53−1, the largest integer a JavaScript number holds exactly.
const maxSafeInt = 1<<53 - 1

// TypePrefix returns the type an event begins with, when its input starts
// with {"type":" and a type free of escapes: ScanFlat reads only the events
// that start so. It returns nil for any other input.
func TypePrefix(data []byte) []byte {
	const prefix = `{"type":"`
	if len(data) < len(prefix) || string(data[:len(prefix)]) != prefix {
		return nil
	}
	rest := data[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end <= 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return nil
	}
	return rest[:end]
}

// ScanFlat reads data as one event of spec's type in the shapes the fast
// paths take, and reports false for anything else: the input starts with
// {"type":"<TYPE>", its other members are those of spec (and "timestamp")
// each at most once, with names free of escapes, the values of the kinds
// spec gives (never null but for Any) and the required members present;
// nothing but space follows the object. A member that spec does not list
// (rawEvent, metadata, one the schema does not know) reports false, so that
// event.Decode's reference path decides, and warns where the protocol says
// so. It panics for a Spec of more than MaxMembers members.
func ScanFlat(data []byte, spec *Spec) (f Flat, ok bool) {
	if len(spec.Members) > MaxMembers {
		panic("wire: a Spec of more than MaxMembers members: " + spec.Type)
	}
	const prefix = `{"type":"`
	n := len(prefix) + len(spec.Type)
	if len(data) <= n || len(data) > maxInput || string(data[:len(prefix)]) != prefix || string(data[len(prefix):n]) != spec.Type || data[n] != '"' {
		return f, false
	}
	i := SkipWS(data, n+1)
	for i < len(data) && data[i] == ',' {
		i = SkipWS(data, i+1)
		if i >= len(data) || data[i] != '"' {
			return f, false
		}
		ks, ok := ScanString(data, i)
		if !ok || ks.Escaped {
			return f, false
		}
		key := data[i+1 : ks.End-1]
		i = SkipWS(data, ks.End)
		if i >= len(data) || data[i] != ':' {
			return f, false
		}
		i = SkipWS(data, i+1)
		if i >= len(data) {
			return f, false
		}
		if string(key) == "timestamp" {
			if f.Timed {
				return f, false // a duplicate: the reference path decides which wins
			}
			end, plain, ok := ScanNumber(data, i)
			if !ok || !plain || end-i > 17 {
				return f, false
			}
			if f.Timestamp, ok = plainInt(data[i:end]); !ok {
				return f, false
			}
			f.Timed, i = true, end
		} else {
			k := -1
			for j := range spec.Members {
				if string(key) == spec.Members[j].Name {
					k = j
					break
				}
			}
			if k < 0 || f.Has&(1<<k) != 0 {
				return f, false // unknown to spec, or a duplicate
			}
			if i, ok = scanMember(data, i, spec.Members[k].Kind, &f.Vals[k]); !ok {
				return f, false
			}
			f.Has |= 1 << k
			if spec.Members[k].Kind == String {
				f.strs |= 1 << k
			}
		}
		i = SkipWS(data, i)
	}
	if i >= len(data) || data[i] != '}' || SkipWS(data, i+1) != len(data) {
		return f, false
	}
	for k, m := range spec.Members {
		if m.Required && f.Has&(1<<k) == 0 {
			return f, false
		}
	}
	return f, true
}

// scanMember scans the value at data[i] (not space) as a member of kind
// kind into v, and returns the index just past it.
func scanMember(data []byte, i int, kind Kind, v *Value) (int, bool) {
	c := data[i]
	switch kind {
	case String:
		if c != '"' {
			return 0, false
		}
		s, ok := ScanString(data, i)
		if !ok || s.Wide && !utf8.Valid(data[i+1:s.End-1]) {
			return 0, false
		}
		*v = Value{Lo: int32(i + 1), Hi: int32(s.End - 1), Escaped: s.Escaped}
		return s.End, true
	case Literal:
		if c != '"' {
			return 0, false
		}
		s, ok := ScanString(data, i)
		*v = Value{Lo: int32(i), Hi: int32(s.End)}
		return s.End, ok
	case Bool:
		end, ok := scanLiteral(data, i, "true")
		if !ok {
			end, ok = scanLiteral(data, i, "false")
		}
		*v = Value{Lo: int32(i), Hi: int32(end)}
		return end, ok
	case Patch:
		if c != '[' {
			return 0, false
		}
		end, ok := scanPatch(data, i)
		*v = Value{Lo: int32(i), Hi: int32(end)}
		return end, ok
	}
	if kind == Object && c != '{' || kind == NotNull && c == 'n' {
		return 0, false
	}
	end, ok := SkipValue(data, i, 1)
	*v = Value{Lo: int32(i), Hi: int32(end)}
	return end, ok
}

// plainInt parses -?[0-9]{1,16} and checks the safe-integer range.
func plainInt(b []byte) (int64, bool) {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var n int64
	for _, c := range b {
		n = n*10 + int64(c-'0')
	}
	if n > maxSafeInt {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// Strings decodes the String members of f into one string and returns its
// parts, s[k] for member k ("" for a member absent or not a String). The
// string is a new allocation: it does not alias data. ok is false for an
// escape the fast paths leave to event.Decode (a surrogate, see
// AppendUnescaped).
func (f *Flat) Strings(data []byte) (s [MaxMembers]string, ok bool) {
	total := 0
	for k := range f.Vals {
		if f.strs&(1<<k) != 0 {
			total += int(f.Vals[k].Hi - f.Vals[k].Lo)
		}
	}
	if total == 0 {
		return s, true
	}
	b := make([]byte, 0, total)
	var ends [MaxMembers + 1]int
	for k := range f.Vals {
		v := &f.Vals[k]
		if f.strs&(1<<k) != 0 {
			if !v.Escaped {
				b = append(b, data[v.Lo:v.Hi]...)
			} else if b, ok = AppendUnescaped(b, data[v.Lo:v.Hi]); !ok {
				return s, false
			}
		}
		ends[k+1] = len(b)
	}
	// b is never written again: the string may share it.
	all := unsafe.String(unsafe.SliceData(b), len(b))
	for k := range s {
		s[k] = all[ends[k]:ends[k+1]]
	}
	return s, true
}

// scanPatch scans the JSON Patch array at data[i] == '[' and returns the
// index just past it, when it is valid JSON and its operations pass the
// checks Patch describes.
func scanPatch(data []byte, i int) (int, bool) {
	i = SkipWS(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '{' {
			return 0, false
		}
		var op, path, from []byte
		value := false
		i = SkipWS(data, i+1)
		if i < len(data) && data[i] != '}' {
			for {
				if i >= len(data) || data[i] != '"' {
					return 0, false
				}
				ks, ok := ScanString(data, i)
				if !ok || ks.Escaped {
					return 0, false
				}
				key := data[i+1 : ks.End-1]
				i = SkipWS(data, ks.End)
				if i >= len(data) || data[i] != ':' {
					return 0, false
				}
				i = SkipWS(data, i+1)
				end, ok := SkipValue(data, i, 2)
				if !ok {
					return 0, false
				}
				switch string(key) {
				case "op":
					op = data[i:end]
				case "path":
					path = data[i:end]
				case "from":
					from = data[i:end]
				case "value":
					value = true
				}
				i = SkipWS(data, end)
				if i < len(data) && data[i] == '}' {
					break
				}
				if i >= len(data) || data[i] != ',' {
					return 0, false
				}
				i = SkipWS(data, i+1)
			}
		}
		if i >= len(data) || bytes.IndexByte(op, '\\') >= 0 {
			return 0, false
		}
		switch string(op) {
		case `"add"`, `"replace"`, `"test"`:
			if !plainPointer(path) || !value {
				return 0, false
			}
		case `"move"`, `"copy"`:
			if !plainPointer(path) || !plainPointer(from) {
				return 0, false
			}
		case `"remove"`:
			if !plainPointer(path) {
				return 0, false
			}
		}
		i = SkipWS(data, i+1) // past '}'
		if i < len(data) && data[i] == ']' {
			return i + 1, true
		}
		if i >= len(data) || data[i] != ',' {
			return 0, false
		}
		i = SkipWS(data, i+1)
	}
}

// plainPointer reports whether v is a JSON string literal without escapes
// that holds a JSON pointer.
func plainPointer(v []byte) bool {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return false
	}
	return BadPointer(v[1:len(v)-1]) == ""
}
