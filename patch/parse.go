package patch

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/agview/agview/internal/jsonstr"
)

// MaxNesting bounds how deeply arrays and objects may nest in a document
// (docs/protocol.md G21): in a value New parses and in the result of every
// operation Apply performs, which fails with ErrTooDeep rather than exceed
// it. Whatever reads or writes a document may therefore recurse once per
// level. [] and {"a":1} nest one level, [[]] two.
//
// It is the one limit that keeps whatever a fold accepts encodable again:
// encoding/json refuses JSON nested deeper than 10,000 levels (and so does
// the event decoder, an event's own object included), and the deepest
// container an encoder puts around a document is three levels deep (a view's
// JSON form and a MESSAGES_SNAPSHOT hold an activity's content at
// messages[i].content; a state sits one level down in a view, a
// RunAgentInput and a STATE_SNAPSHOT, two in a journal's input line and a
// RUN_STARTED's input; the protobuf form nests as the JSON does). A document
// of MaxNesting levels therefore encodes everywhere, with json.Marshal too.
const MaxNesting = 10000 - MaxWrapping

// MaxWrapping is how many levels of arrays and objects the deepest encoding
// of a document adds around it (see MaxNesting).
const MaxWrapping = 3

// maxNesting is MaxNesting as the parser counts it.
const maxNesting = MaxNesting

// SyntaxError reports input that is not one valid JSON value (RFC 8259).
type SyntaxError struct {
	// Offset is the byte offset in the input where the problem was found.
	Offset int
	// Msg says what was wrong there.
	Msg string
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte offset %d: %s", e.Offset, e.Msg)
}

// parser builds an immutable node tree from JSON text. It owns nothing of its
// input: every string it keeps is copied.
type parser struct {
	b     []byte
	i     int
	depth int
	// above is how many levels of the input hold no document, but the
	// containers around one (a patch's array and operation object), which
	// the nesting limit does not count.
	above int
	// members and elems are stacks of the members and elements of the
	// objects and arrays being parsed, innermost last, so that a small
	// container is allocated once, when it ends, instead of grown as it is
	// read.
	members []member
	elems   []*node
	// names interns member names (see name); nameCount counts the names
	// parsed before it exists.
	names     map[string]string
	nameCount int
}

const (
	// stackStart is the capacity the member and element stacks start with,
	// enough for the values of a typical delta.
	stackStart = 8
	// internAfter is the number of member names after which a parser starts
	// interning: a patch of a few operations never pays for the map.
	internAfter = 64
	// maxNames bounds the names a parser interns; later names are still
	// found if interned, but not added.
	maxNames = 1024
)

// parseValue parses b, which must hold exactly one JSON value surrounded by
// optional whitespace.
func parseValue(b []byte) (*node, error) { return parseValueAbove(b, 0) }

// parseValueAbove is parseValue for input whose first above levels are
// containers around documents (see parser.above).
func parseValueAbove(b []byte, above int) (*node, error) {
	p := parser{b: b, above: above}
	p.skipSpace()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(p.b) {
		return nil, p.errorf("unexpected %s after the top-level value", p.describe())
	}
	return n, nil
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

// describe names the byte at the cursor for an error message.
func (p *parser) describe() string {
	if p.i >= len(p.b) {
		return "end of input"
	}
	c := p.b[p.i]
	if c >= 0x20 && c < utf8.RuneSelf {
		return fmt.Sprintf("character %q", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) skipSpace() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() (*node, error) {
	if p.i >= len(p.b) {
		return nil, p.errorf("unexpected end of input, want a value")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return newString(s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", trueNode)
	case c == 'f':
		return p.literal("false", falseNode)
	case c == 'n':
		return p.literal("null", nullNode)
	default:
		return nil, p.errorf("unexpected %s, want a value", p.describe())
	}
}

func (p *parser) literal(lit string, n *node) (*node, error) {
	if len(p.b)-p.i < len(lit) || string(p.b[p.i:p.i+len(lit)]) != lit {
		return nil, p.errorf("invalid literal, want %s", lit)
	}
	p.i += len(lit)
	return n, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxNesting+p.above {
		return p.errorf("arrays and objects nest deeper than %d levels (patch.MaxNesting)", maxNesting+p.above)
	}
	return nil
}

func (p *parser) array() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.i++ // [
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		p.depth--
		return emptyArrayNode, nil
	}
	if p.elems == nil {
		p.elems = make([]*node, 0, stackStart)
	}
	base := len(p.elems)
	for {
		p.skipSpace()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.elems = append(p.elems, v)
		p.skipSpace()
		if p.i >= len(p.b) {
			return nil, p.errorf("unexpected end of input in array, want ',' or ']'")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			p.depth--
			return p.buildArray(base), nil
		default:
			return nil, p.errorf("unexpected %s in array, want ',' or ']'", p.describe())
		}
	}
}

// buildArray returns the node of the array whose elements are p.elems[base:]
// (at least one) and takes them off the stack.
func (p *parser) buildArray(base int) *node {
	elems := p.elems[base:]
	var n *node
	if len(elems) > flatArray {
		n = newArrayNode(newArray(slices.Clone(elems)))
	} else {
		content := 0
		for _, e := range elems {
			content += e.size
		}
		x, s := newFlatArray(len(elems))
		copy(s, elems)
		x.a = array{flat: s, content: content}
		n = x.finish()
	}
	clear(elems)
	p.elems = p.elems[:base]
	return n
}

func (p *parser) object() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.i++ // {
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		p.depth--
		return emptyObjectNode, nil
	}
	if p.members == nil {
		p.members = make([]member, 0, stackStart)
	}
	b := objectBuilder{base: len(p.members)}
	for {
		p.skipSpace()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.errorf("unexpected %s in object, want a member name", p.describe())
		}
		k, err := p.name()
		if err != nil {
			return nil, err
		}
		if err := p.colon(); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.members = b.add(p.members, k, v)
		end, err := p.objectNext()
		if err != nil {
			return nil, err
		}
		if end {
			var n *node
			n, p.members = b.build(p.members)
			return n, nil
		}
	}
}

// colon reads the ':' after a member name, and the spaces around it.
func (p *parser) colon() error {
	p.skipSpace()
	if p.i >= len(p.b) || p.b[p.i] != ':' {
		return p.errorf("unexpected %s after member name, want ':'", p.describe())
	}
	p.i++
	p.skipSpace()
	return nil
}

// objectNext reads what follows a member's value: ',' (then it returns
// false) or the '}' that ends the object (then it returns true).
func (p *parser) objectNext() (bool, error) {
	p.skipSpace()
	if p.i >= len(p.b) {
		return false, p.errorf("unexpected end of input in object, want ',' or '}'")
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		return false, nil
	case '}':
		p.i++
		p.depth--
		return true, nil
	default:
		return false, p.errorf("unexpected %s in object, want ',' or '}'", p.describe())
	}
}

func (p *parser) number() (*node, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case digits() == 0:
		return nil, p.errorf("invalid number, want a digit")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.errorf("invalid number, want a digit after '.'")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.errorf("invalid number, want a digit in the exponent")
		}
	}
	return numberNode(p.b[start:p.i]), nil
}

// name parses a member name. Names repeat across the objects of a document
// (every item has an "id"), so once a document has shown more than a few,
// plain ASCII names are interned and each is allocated once.
func (p *parser) name() (string, error) {
	if p.names != nil {
		j := p.i + 1
		for j < len(p.b) && p.b[j] != '"' && p.b[j] != '\\' && p.b[j] >= 0x20 && p.b[j] < utf8.RuneSelf {
			j++
		}
		if j < len(p.b) && p.b[j] == '"' {
			raw := p.b[p.i+1 : j]
			if k, ok := p.names[string(raw)]; ok { // does not allocate
				p.i = j + 1
				return k, nil
			}
			k := intern(raw)
			if len(p.names) < maxNames {
				p.names[k] = k
			}
			p.i = j + 1
			return k, nil
		}
	}
	p.nameCount++
	if p.nameCount == internAfter {
		p.names = make(map[string]string)
	}
	return p.str()
}

// str parses a JSON string at the cursor and returns its decoded value, in
// the form of package jsonstr: strings stay exact (docs/protocol.md G19), a lone
// surrogate escape is kept (as generalized UTF-8) and invalid UTF-8 is kept
// as it is, never replaced by U+FFFD, so that distinct member names and
// values stay distinct.
func (p *parser) str() (string, error) {
	b, err := p.strBytes()
	if err != nil {
		return "", err
	}
	return intern(b), nil
}

// strBytes is str without the copy: the decoded value is a slice of the
// input when the string has no escape and is valid UTF-8, and a new buffer
// otherwise. Either way the caller must copy what it keeps.
func (p *parser) strBytes() ([]byte, error) {
	p.i++ // opening quote
	start := p.i
	// Fast path: no escapes, valid UTF-8.
	ascii := true
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := p.b[start:p.i]
			if ascii || utf8.Valid(s) {
				p.i++
				return s, nil
			}
			break
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, p.errorf("control character 0x%02x in string, must be escaped", c)
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
		p.i++
	}
	// Slow path: check the escapes, then decode the whole literal.
	p.i = start
	for {
		if p.i >= len(p.b) {
			return nil, p.errorf("unexpected end of input in string")
		}
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return jsonstr.AppendUnquoted(make([]byte, 0, p.i-1-start), p.b[start:p.i-1]), nil
		case c < 0x20:
			return nil, p.errorf("control character 0x%02x in string, must be escaped", c)
		case c == '\\':
			if err := p.escape(); err != nil {
				return nil, err
			}
		default:
			p.i++
		}
	}
}

// escape checks the escape sequence at the cursor (which is at the
// backslash) and moves past it.
func (p *parser) escape() error {
	if p.i+1 >= len(p.b) {
		return p.errorf("unexpected end of input in string escape")
	}
	c := p.b[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return nil
	case 'u':
		_, err := p.hex4()
		return err
	default:
		p.i -= 1
		return p.errorf("invalid escape character %q in string", c)
	}
}

func (p *parser) hex4() (rune, error) {
	if len(p.b)-p.i < 4 {
		return 0, p.errorf("unexpected end of input in \\u escape")
	}
	var r rune
	for k := range 4 {
		c := p.b[p.i+k]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			p.i += k
			return 0, p.errorf("invalid hex digit %q in \\u escape", c)
		}
		r = r<<4 | rune(d)
	}
	p.i += 4
	return r, nil
}

// intern returns the member names and op values of patch operations without
// allocating, and a new string for anything else.
func intern(b []byte) string {
	switch string(b) { // does not allocate
	case "op":
		return "op"
	case "path":
		return "path"
	case "from":
		return "from"
	case "value":
		return "value"
	case "add":
		return "add"
	case "remove":
		return "remove"
	case "replace":
		return "replace"
	case "move":
		return "move"
	case "copy":
		return "copy"
	case "test":
		return "test"
	}
	return string(b)
}
