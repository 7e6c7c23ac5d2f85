package patch

import (
	"encoding/json"
	"fmt"
	"slices"
)

// DefaultMaxDocumentBytes is the document size limit Apply uses when
// Options.MaxDocumentBytes is zero.
const DefaultMaxDocumentBytes = 16 << 20

// Options configures Apply. A nil *Options means the defaults; Apply never
// writes to the Options it is given.
type Options struct {
	// MaxDocumentBytes bounds the size of the document's compact JSON
	// encoding: an operation that would leave the document larger than this,
	// and larger than it was before that operation, fails with ErrTooLarge.
	// This stops "copy bombs" (a short patch that copies a value onto itself
	// until it is huge) after O(log limit) cheap operations. 0 means
	// DefaultMaxDocumentBytes; a negative value means no limit.
	MaxDocumentBytes int
	// RejectUnknownOps makes an operation with an unknown "op" fail the patch
	// with ErrUnknownOp, as RFC 6902 section 4 requires. By default such an
	// operation is removed and reported as a Warning, and the rest of the
	// patch applies, as the AG-UI reference client does (PROTOCOL.md G2).
	RejectUnknownOps bool
}

func (o *Options) maxBytes() int {
	switch {
	case o == nil || o.MaxDocumentBytes == 0:
		return DefaultMaxDocumentBytes
	case o.MaxDocumentBytes < 0:
		return -1
	}
	return o.MaxDocumentBytes
}

// operation is one decoded, validated patch operation.
type operation struct {
	index int
	op    string
	path  string
	toks  []string // path, parsed
	from  []string // from, parsed (move, copy)
	value *node    // add, replace, test
}

// Apply applies the RFC 6902 JSON Patch ops (a JSON array of operation
// objects) to d and returns the new document.
//
// The patch is atomic: if any operation fails, Apply returns d itself and an
// *Error naming the operation's index, op and path, and why (PROTOCOL.md
// G8). Apply never modifies d, ops, or any document another view holds: the
// result shares every part of d the patch does not touch and copies only the
// path to each change, so an operation costs O(depth × log width), not
// O(size of the document) (see Cost in the package documentation).
//
// An operation whose "op" is a string other than add, remove, replace, move,
// copy and test is removed and reported as a Warning, and the others apply
// (the reference client's behaviour, PROTOCOL.md G2), unless
// Options.RejectUnknownOps is set. Warnings are returned even when the patch
// then fails. Members an operation does not use are ignored (RFC 6902
// section 4).
//
// Beyond RFC 6902: test compares numbers as IEEE 754 doubles, as the
// reference client does; remove with the path "" leaves the document null,
// as the reference client does.
func Apply(d Document, ops json.RawMessage, opts *Options) (Document, []Warning, error) {
	list, warns, err := decodePatch(ops, opts)
	if err != nil {
		return d, warns, err
	}
	limit := opts.maxBytes()
	cur := d.node()
	for _, op := range list {
		next, err := op.apply(cur)
		if err != nil {
			return d, warns, op.fail(err)
		}
		if limit >= 0 && next.size > limit && next.size > cur.size {
			return d, warns, op.fail(failf(ErrTooLarge,
				"the document would grow to %d bytes, over the limit of %d", next.size, limit))
		}
		cur = next
	}
	if cur == d.node() {
		return d, warns, nil
	}
	return wrap(cur), warns, nil
}

func (op *operation) fail(f *failure) *Error {
	return &Error{Index: op.index, Op: op.op, Path: op.path, Err: f.err, Reason: f.reason}
}

// decodePatch parses and validates the whole patch before anything is
// applied, so a malformed operation fails the patch whatever comes before it.
func decodePatch(raw json.RawMessage, opts *Options) ([]operation, []Warning, error) {
	root, err := parseValue(raw)
	if err != nil {
		return nil, nil, &Error{Index: -1, Reason: err.Error(), Err: causeError{ErrInvalidPatch, err}}
	}
	if root.kind != kindArray {
		return nil, nil, &Error{Index: -1, Err: ErrInvalidPatch,
			Reason: fmt.Sprintf("the patch is a JSON %s, want an array of operations", root.kindName())}
	}
	var warns []Warning
	list := make([]operation, 0, root.arr.len())
	for i := range root.arr.len() {
		op, err := decodeOperation(i, root.arr.at(i))
		if err == nil {
			list = append(list, op)
			continue
		}
		if err.err != ErrUnknownOp || (opts != nil && opts.RejectUnknownOps) {
			return nil, warns, op.fail(err)
		}
		warns = append(warns, Warning{Index: i, Op: op.op, Path: op.path,
			Message: fmt.Sprintf("unknown operation %q removed; the rest of the patch applies", op.op)})
	}
	return list, warns, nil
}

// stringMember reads an optional string member of an operation object.
func stringMember(o *object, name string) (s string, present bool, err *failure) {
	v, ok := o.get(name)
	if !ok {
		return "", false, nil
	}
	if v.kind != kindString {
		return "", true, failf(ErrInvalidPatch, "%q is a JSON %s, want a string", name, v.kindName())
	}
	return v.text, true, nil
}

func decodeOperation(i int, n *node) (operation, *failure) {
	op := operation{index: i}
	if n.kind != kindObject {
		return op, failf(ErrInvalidPatch, "the operation is a JSON %s, want an object", n.kindName())
	}
	o := n.obj
	// Read path first so that every later failure can name it.
	path, hasPath, pathErr := stringMember(o, "path")
	op.path = path
	kind, hasOp, err := stringMember(o, "op")
	if err != nil {
		return op, err
	}
	if !hasOp {
		return op, failf(ErrInvalidPatch, "the operation has no \"op\"")
	}
	op.op = kind
	switch kind {
	case "add", "remove", "replace", "move", "copy", "test":
	default:
		return op, failf(ErrUnknownOp, "%q is not an RFC 6902 operation", kind)
	}
	if pathErr != nil {
		return op, pathErr
	}
	if !hasPath {
		return op, failf(ErrInvalidPatch, "the operation has no \"path\"")
	}
	toks, bad := parsePointer(path)
	if bad != "" {
		return op, failf(ErrInvalidPointer, "path %q: %s", path, bad)
	}
	op.toks = toks
	switch kind {
	case "move", "copy":
		from, hasFrom, err := stringMember(o, "from")
		if err != nil {
			return op, err
		}
		if !hasFrom {
			return op, failf(ErrInvalidPatch, "a %s operation needs \"from\"", kind)
		}
		ftoks, bad := parsePointer(from)
		if bad != "" {
			return op, failf(ErrInvalidPointer, "from %q: %s", from, bad)
		}
		op.from = ftoks
		if kind == "move" && len(ftoks) == 0 {
			return op, failf(ErrInvalidPatch, "cannot move the whole document")
		}
		if kind == "move" && len(ftoks) < len(toks) && slices.Equal(ftoks, toks[:len(ftoks)]) {
			return op, failf(ErrInvalidPatch, "cannot move %q into its own child %q", from, path)
		}
	case "add", "replace", "test":
		v, ok := o.get("value")
		if !ok {
			return op, failf(ErrInvalidPatch, "a %s operation needs \"value\"", kind)
		}
		op.value = v
	}
	return op, nil
}

// apply performs the operation on root and returns the new root.
func (op *operation) apply(root *node) (*node, *failure) {
	switch op.op {
	case "add":
		return add(root, op.toks, op.value)
	case "remove":
		if len(op.toks) == 0 {
			return nullNode, nil
		}
		return modify(root, op.toks, 0, removeChild)
	case "replace":
		if len(op.toks) == 0 {
			return op.value, nil
		}
		v := op.value
		return modify(root, op.toks, 0, func(parent *node, key string) (*node, *failure) {
			return replaceChild(parent, key, v)
		})
	case "move":
		v, err := resolve(root, op.from)
		if err != nil {
			return nil, fromFailure(err)
		}
		// A move is a remove then an add, even onto itself: an object member
		// then goes last, as in the reference client. decodeOperation made
		// sure from is not "" and not a prefix of path.
		root, err = modify(root, op.from, 0, removeChild)
		if err != nil {
			return nil, fromFailure(err)
		}
		return add(root, op.toks, v)
	case "copy":
		v, err := resolve(root, op.from)
		if err != nil {
			return nil, fromFailure(err)
		}
		return add(root, op.toks, v)
	default: // test
		v, err := resolve(root, op.toks)
		if err != nil {
			return nil, err
		}
		if !equal(v, op.value) {
			return nil, failf(ErrTestFailed, "value at %q is %s, want %s",
				op.path, describe(v), describe(op.value))
		}
		return root, nil
	}
}

// fromFailure marks a failure as being about the "from" location.
func fromFailure(f *failure) *failure {
	return &failure{err: f.err, reason: "from: " + f.reason}
}

// describe shows a value in an error message: its JSON when short, else its
// type and size.
func describe(n *node) string {
	const max = 64
	if n.size <= max {
		return string(appendNode(nil, n))
	}
	return fmt.Sprintf("a JSON %s of %d bytes", n.kindName(), n.size)
}

// child returns the member or element of n named by tok. toks[:depth+1] is
// the pointer to it, for messages.
func child(n *node, toks []string, depth int) (*node, *failure) {
	tok := toks[depth]
	switch n.kind {
	case kindObject:
		if v, ok := n.obj.get(tok); ok {
			return v, nil
		}
		return nil, failf(ErrPathNotFound, "%q does not exist", formatPointer(toks[:depth+1]))
	case kindArray:
		i, err := arrayIndex(tok, n.arr.len(), false)
		if err != nil {
			return nil, at(err, toks[:depth+1])
		}
		return n.arr.at(i), nil
	default:
		return nil, failf(ErrPathNotFound, "%q does not exist: %q is a %s",
			formatPointer(toks[:depth+1]), formatPointer(toks[:depth]), n.kindName())
	}
}

// at prefixes a failure's reason with the pointer it concerns.
func at(f *failure, toks []string) *failure {
	return &failure{err: f.err, reason: fmt.Sprintf("%q: %s", formatPointer(toks), f.reason)}
}

// resolve returns the value at toks.
func resolve(n *node, toks []string) (*node, *failure) {
	for depth := range toks {
		var err *failure
		if n, err = child(n, toks, depth); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// modify rebuilds n with f applied to the parent of the location toks names
// (f gets the parent and the last token), copying only the nodes on the path.
func modify(n *node, toks []string, depth int, f func(parent *node, key string) (*node, *failure)) (*node, *failure) {
	if depth == len(toks)-1 {
		nn, err := f(n, toks[depth])
		if err != nil {
			return nil, at(err, toks)
		}
		return nn, nil
	}
	c, err := child(n, toks, depth)
	if err != nil {
		return nil, err
	}
	nc, err := modify(c, toks, depth+1, f)
	if err != nil {
		return nil, err
	}
	if n.kind == kindObject {
		return newObjectNode(n.obj.set(toks[depth], nc)), nil
	}
	i, _ := arrayIndex(toks[depth], n.arr.len(), false) // child validated it
	return newArrayNode(n.arr.set(i, nc)), nil
}

// add implements the add operation: it sets an object member (replacing an
// existing one in place) or inserts into an array ("-" appends).
func add(root *node, toks []string, v *node) (*node, *failure) {
	if len(toks) == 0 {
		return v, nil
	}
	return modify(root, toks, 0, func(parent *node, key string) (*node, *failure) {
		switch parent.kind {
		case kindObject:
			return newObjectNode(parent.obj.set(key, v)), nil
		case kindArray:
			i, err := arrayIndex(key, parent.arr.len(), true)
			if err != nil {
				return nil, err
			}
			return newArrayNode(parent.arr.insert(i, v)), nil
		default:
			return nil, failf(ErrPathNotFound, "cannot add a member to a %s", parent.kindName())
		}
	})
}

func removeChild(parent *node, key string) (*node, *failure) {
	switch parent.kind {
	case kindObject:
		o, ok := parent.obj.del(key)
		if !ok {
			return nil, failf(ErrPathNotFound, "no such member")
		}
		return newObjectNode(o), nil
	case kindArray:
		i, err := arrayIndex(key, parent.arr.len(), false)
		if err != nil {
			return nil, err
		}
		return newArrayNode(parent.arr.remove(i)), nil
	default:
		return nil, failf(ErrPathNotFound, "the parent is a %s", parent.kindName())
	}
}

func replaceChild(parent *node, key string, v *node) (*node, *failure) {
	switch parent.kind {
	case kindObject:
		if _, ok := parent.obj.get(key); !ok {
			return nil, failf(ErrPathNotFound, "no such member")
		}
		return newObjectNode(parent.obj.set(key, v)), nil
	case kindArray:
		i, err := arrayIndex(key, parent.arr.len(), false)
		if err != nil {
			return nil, err
		}
		return newArrayNode(parent.arr.set(i, v)), nil
	default:
		return nil, failf(ErrPathNotFound, "the parent is a %s", parent.kindName())
	}
}
