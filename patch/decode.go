package patch

import (
	"fmt"
	"slices"
)

// Decoding a patch
//
// A delta is usually one to three small operations on a large state, so
// decoding the patch is a good part of what Apply costs. The decoder reads
// the operations straight from the bytes, one at a time, and Apply applies
// each as it comes: "op", "path" and "from" are read in place (a path is
// copied once, and its tokens are substrings of the copy), and only "value"
// is built as a node. The result is exactly that of parsing the whole patch
// into a tree, validating every operation and only then applying them: the
// same syntax errors at the same offsets, the same checks in the same order,
// the last of repeated members counting, the same warnings, and the same
// precedence: a syntax error anywhere wins over a malformed operation, and a
// malformed operation anywhere wins over an operation that fails to apply.

// decoder reads the operations of a patch. It is a value that lives on its
// caller's stack.
type decoder struct {
	p      parser
	reject bool // Options.RejectUnknownOps
	state  decoderState
	index  int // of the next element of the patch array
	warns  []Warning
	// err is the patch's syntax error, or else its first malformed
	// operation; it is final once next has returned false.
	err *Error
}

type decoderState uint8

const (
	decoderStart decoderState = iota
	decoderArray              // inside the patch array
	decoderDone
)

func newDecoder(raw []byte, opts *Options) decoder {
	// A value sits two levels down in the patch (its array, its operation
	// object): it may nest as deeply as a document.
	return decoder{p: parser{b: raw, above: 2}, reject: opts != nil && opts.RejectUnknownOps}
}

// next returns the next operation of the patch, its pointers' tokens in
// toks's storage (when there is room), or false when the patch has ended or
// failed. Operations with an unknown op are skipped with a warning. After a
// malformed operation, next parses the rest of the patch before it returns
// false, so that a syntax error anywhere is reported instead.
func (d *decoder) next(toks []string) (operation, pointers, bool) {
	if d.state == decoderStart && !d.begin() {
		return operation{}, pointers{}, false
	}
	for d.state == decoderArray {
		i := d.index
		d.index++
		op, ptrs, fail, err := d.element(i, toks)
		if err == nil {
			err = d.separator()
		}
		if err != nil {
			d.syntaxError(err)
			return operation{}, pointers{}, false
		}
		switch {
		case fail == nil:
			return op, ptrs, true
		case fail.err == ErrUnknownOp && !d.reject:
			d.warns = append(d.warns, Warning{Index: i, Op: op.op, Path: op.path, Message: removedMessage(op.op, fail)})
		default:
			d.err = op.fail(fail)
			d.skipRest()
			return operation{}, pointers{}, false
		}
	}
	return operation{}, pointers{}, false
}

// removedMessage is the Message of the Warning for an operation removed
// because fail, an ErrUnknownOp, says its "op" names no operation.
func removedMessage(op string, fail *failure) string {
	if op == "" {
		return fail.reason + "; the operation is removed and the rest of the patch applies"
	}
	return fmt.Sprintf("unknown operation %s removed; the rest of the patch applies", quote(op))
}

// begin reads up to the first element of the patch array, and reports
// whether there is one.
func (d *decoder) begin() bool {
	p := &d.p
	d.state = decoderDone
	p.skipSpace()
	if p.i >= len(p.b) || p.b[p.i] != '[' {
		root, err := parseValueAbove(p.b, 2)
		if err != nil {
			d.syntaxError(err)
			return false
		}
		d.err = &Error{Index: -1, Err: ErrInvalidPatch,
			Reason: fmt.Sprintf("the patch is a JSON %s, want an array of operations", root.kindName())}
		return false
	}
	if err := p.enter(); err != nil {
		d.syntaxError(err)
		return false
	}
	p.i++ // [
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		p.depth--
		if err := d.end(); err != nil {
			d.syntaxError(err)
		}
		return false
	}
	d.state = decoderArray
	return true
}

// element parses and decodes operation i, at the cursor. A malformed
// operation is a failure; input that is not JSON is an error.
func (d *decoder) element(i int, toks []string) (operation, pointers, *failure, error) {
	p := &d.p
	p.skipSpace()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		v, err := p.value()
		if err != nil {
			return operation{}, pointers{}, nil, err
		}
		return operation{index: i}, pointers{},
			failf(ErrInvalidPatch, "the operation is a JSON %s, want an object", v.kindName()), nil
	}
	var f opFields
	if err := f.parse(p); err != nil {
		return operation{}, pointers{}, nil, err
	}
	op, ptrs, fail := f.decode(i, toks)
	return op, ptrs, fail, nil
}

// separator reads what follows an element, as parser.array does: ',' or the
// ']' that ends the patch.
func (d *decoder) separator() error {
	p := &d.p
	p.skipSpace()
	if p.i >= len(p.b) {
		return p.errorf("unexpected end of input in array, want ',' or ']'")
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		return nil
	case ']':
		p.i++
		p.depth--
		d.state = decoderDone
		return d.end()
	default:
		return p.errorf("unexpected %s in array, want ',' or ']'", p.describe())
	}
}

// end checks that nothing but spaces follows the patch array.
func (d *decoder) end() error {
	p := &d.p
	p.skipSpace()
	if p.i != len(p.b) {
		return p.errorf("unexpected %s after the top-level value", p.describe())
	}
	return nil
}

// skipRest parses the rest of the patch after a malformed operation, for
// syntax errors only.
func (d *decoder) skipRest() {
	p := &d.p
	for d.state == decoderArray {
		p.skipSpace()
		_, err := p.value()
		if err == nil {
			err = d.separator()
		}
		if err != nil {
			d.syntaxError(err)
			return
		}
	}
}

// syntaxError makes err, from the parser, the patch's error. Warnings are
// dropped: a patch that is not JSON has no operations to warn about.
func (d *decoder) syntaxError(err error) {
	d.state = decoderDone
	d.warns = nil
	d.err = &Error{Index: -1, Reason: err.Error(), Err: causeError{ErrInvalidPatch, err}}
}

// opFields are the members of an operation object Apply reads. Like any
// member of a JSON object parsed here, a repeated one takes the last value.
type opFields struct {
	op, path, from stringField
	value          *node // nil when absent
}

// stringField is a member that must be a string.
type stringField struct {
	present bool
	kind    kind   // the member's JSON type
	text    []byte // its value when it is a string (not a copy: see strBytes)
}

// parse parses the operation object at the cursor, as parser.object does,
// keeping the members an operation uses.
func (f *opFields) parse(p *parser) error {
	if err := p.enter(); err != nil {
		return err
	}
	p.i++ // {
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		p.depth--
		return nil
	}
	for {
		p.skipSpace()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return p.errorf("unexpected %s in object, want a member name", p.describe())
		}
		name, err := p.strBytes()
		if err != nil {
			return err
		}
		if err := p.colon(); err != nil {
			return err
		}
		switch string(name) {
		case "op":
			err = f.op.parse(p)
		case "path":
			err = f.path.parse(p)
		case "from":
			err = f.from.parse(p)
		case "value":
			f.value, err = p.value()
		default:
			_, err = p.value()
		}
		if err != nil {
			return err
		}
		end, err := p.objectNext()
		if err != nil {
			return err
		}
		if end {
			return nil
		}
	}
}

// parse parses the member's value at the cursor.
func (s *stringField) parse(p *parser) error {
	s.present = true
	if p.i < len(p.b) && p.b[p.i] == '"' {
		text, err := p.strBytes()
		s.kind, s.text = kindString, text
		return err
	}
	v, err := p.value()
	if err != nil {
		return err
	}
	s.kind, s.text = v.kind, nil
	return nil
}

// check returns the failure for a member that is present but not a string.
func (s *stringField) check(name string) *failure {
	if s.present && s.kind != kindString {
		return failf(ErrInvalidPatch, "%q is a JSON %s, want a string", name, s.kind.name())
	}
	return nil
}

// opName returns the value of "op": one of the six operations without a
// copy (intern knows them), anything else copied.
func opName(b []byte) string { return intern(b) }

// decode validates operation i. Its pointers' tokens are appended to
// toks[:0]. The checks, and their order, are those of RFC 6902 section 4 as
// the reference client makes them: "path" is read first so that every later
// failure can name it, then "op" (an unknown op is the caller's to forgive),
// then the members the op needs.
func (f *opFields) decode(i int, toks []string) (operation, pointers, *failure) {
	op := operation{index: i}
	pathErr := f.path.check("path")
	var path string // op.path, in a variable of its own for escape analysis
	if f.path.present && pathErr == nil {
		path = string(f.path.text)
		op.path = path
	}
	// An "op" that is missing or not a string names no operation either:
	// like an unknown one, it is the caller's to forgive (docs/protocol.md
	// G8, G2: the reference removes that operation and applies the rest).
	if !f.op.present {
		return op, pointers{}, failf(ErrUnknownOp, "the operation has no \"op\"")
	}
	if f.op.kind != kindString {
		return op, pointers{}, failf(ErrUnknownOp, "\"op\" is a JSON %s, want a string", f.op.kind.name())
	}
	kind := opName(f.op.text)
	op.op = kind
	switch kind {
	case "add", "remove", "replace", "move", "copy", "test":
	default:
		return op, pointers{}, failf(ErrUnknownOp, "%s is not an RFC 6902 operation", quote(kind))
	}
	if pathErr != nil {
		return op, pointers{}, pathErr
	}
	if !f.path.present {
		return op, pointers{}, failf(ErrInvalidPatch, "the operation has no \"path\"")
	}
	toks, bad := appendPointer(toks[:0], path)
	if bad != "" {
		return op, pointers{}, failf(ErrInvalidPointer, "path %s: %s", quote(path), bad)
	}
	ptrs := pointers{path: toks[:len(toks):len(toks)]}
	switch kind {
	case "move", "copy":
		if err := f.from.check("from"); err != nil {
			return op, pointers{}, err
		}
		if !f.from.present {
			return op, pointers{}, failf(ErrInvalidPatch, "a %s operation needs \"from\"", kind)
		}
		from := string(f.from.text)
		if ptrs.from, bad = appendPointer(toks[len(toks):], from); bad != "" {
			return op, pointers{}, failf(ErrInvalidPointer, "from %s: %s", quote(from), bad)
		}
		if kind == "move" && len(ptrs.from) == 0 {
			return op, pointers{}, failf(ErrInvalidPatch, "cannot move the whole document")
		}
		if kind == "move" && len(ptrs.from) < len(ptrs.path) && slices.Equal(ptrs.from, ptrs.path[:len(ptrs.from)]) {
			return op, pointers{}, failf(ErrInvalidPatch, "cannot move %s into its own child %s", quote(from), quote(path))
		}
	case "add", "replace", "test":
		if f.value == nil {
			return op, pointers{}, failf(ErrInvalidPatch, "a %s operation needs \"value\"", kind)
		}
		op.value = f.value
	}
	return op, ptrs, nil
}
