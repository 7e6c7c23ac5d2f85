package patch

import (
	"encoding/json"
	"fmt"
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
	// RejectUnknownOps makes an operation whose "op" is unknown, missing or
	// not a string fail the patch with ErrUnknownOp, as RFC 6902 section 4
	// requires. By default such an operation is removed and reported as a
	// Warning, and the rest of the patch applies, as the AG-UI reference
	// client does (docs/protocol.md G2, G8).
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
	value *node // add, replace, test
}

// pointers are the parsed path and from of an operation. They are kept apart
// from the operation, whose strings end up in errors, so that escape analysis
// can leave the tokens on Apply's stack.
type pointers struct {
	path []string
	from []string // move, copy
}

// Apply applies the RFC 6902 JSON Patch ops (a JSON array of operation
// objects) to d and returns the new document.
//
// The patch is atomic: if any operation fails, Apply returns d itself and an
// *Error naming the operation's index, op and path, and why (docs/protocol.md
// G8). Apply never modifies d, ops, or any document another view holds: the
// result shares every part of d the patch does not touch and copies only the
// path to each change, so an operation costs O(depth × log width), not
// O(size of the document) (see Cost in the package documentation).
//
// An operation whose "op" is a string other than add, remove, replace, move,
// copy and test, or is missing, or is not a string, is removed and reported
// as a Warning, and the others apply
// (the reference client's behaviour, docs/protocol.md G2), unless
// Options.RejectUnknownOps is set. Warnings are returned even when the patch
// then fails. Members an operation does not use are ignored (RFC 6902
// section 4).
//
// Beyond RFC 6902: test compares numbers as IEEE 754 doubles, as the
// reference client does; remove with the path "" leaves the document null,
// as the reference client does.
func Apply(d Document, ops json.RawMessage, opts *Options) (Document, []Warning, error) {
	// Each operation is applied as soon as it is decoded. The first failure
	// to apply is held until the whole patch has been read, because a
	// malformed operation or a syntax error after it takes precedence: the
	// patch behaves as if it were validated whole before anything applied.
	dec := newDecoder(ops, opts)
	var toks [stackTokens]string
	var failed *Error
	limit := opts.maxBytes()
	cur := d.node()
	for {
		op, ptrs, ok := dec.next(toks[:])
		if !ok {
			break
		}
		if failed != nil {
			continue
		}
		next, err := op.apply(cur, ptrs)
		switch {
		case err != nil:
		case limit >= 0 && next.size > limit && next.size > cur.size:
			err = failf(ErrTooLarge, "the document would grow to %d bytes, over the limit of %d", next.size, limit)
		case next.height > MaxNesting:
			// add and replace refuse this before building anything; a
			// result past the limit must never be handed out all the same.
			err = tooDeep(int(next.height))
		}
		if err != nil {
			failed = op.fail(err)
			continue
		}
		cur = next
	}
	switch {
	case dec.err != nil:
		return d, dec.warns, dec.err
	case failed != nil:
		return d, dec.warns, failed
	case cur == d.node():
		return d, dec.warns, nil
	}
	return wrap(cur), dec.warns, nil
}

// stackTokens is the number of pointer tokens (of path and from together)
// of an operation that Apply keeps on its stack; longer pointers allocate.
const stackTokens = 8

func (op *operation) fail(f *failure) *Error {
	return &Error{Index: op.index, Op: op.op, Path: op.path, Err: f.err, Reason: f.reason}
}

// apply performs the operation, whose pointers are ptrs, on root and returns
// the new root.
func (op *operation) apply(root *node, ptrs pointers) (*node, *failure) {
	switch op.op {
	case "add":
		return add(root, ptrs.path, op.value)
	case "remove":
		if len(ptrs.path) == 0 {
			return nullNode, nil
		}
		return modify(root, ptrs.path, 0, removeChild)
	case "replace":
		if len(ptrs.path) == 0 {
			return op.value, nil
		}
		v, toks := op.value, ptrs.path
		return modify(root, toks, 0, func(parent *node, key string) (*node, *failure) {
			if err := checkNesting(toks, v); err != nil {
				return nil, err
			}
			return replaceChild(parent, key, v)
		})
	case "move":
		v, err := resolve(root, ptrs.from)
		if err != nil {
			return nil, fromFailure(err)
		}
		// A move is a remove then an add, even onto itself: an object member
		// then goes last, as in the reference client. opFields.decode made
		// sure from is not "" and not a prefix of path.
		root, err = modify(root, ptrs.from, 0, removeChild)
		if err != nil {
			return nil, fromFailure(err)
		}
		return add(root, ptrs.path, v)
	case "copy":
		v, err := resolve(root, ptrs.from)
		if err != nil {
			return nil, fromFailure(err)
		}
		return add(root, ptrs.path, v)
	default: // test
		v, err := resolve(root, ptrs.path)
		if err != nil {
			return nil, err
		}
		if !equal(v, op.value) {
			return nil, failf(ErrTestFailed, "value at %s is %s, want %s",
				quote(op.path), describe(v), describe(op.value))
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
		return nil, failf(ErrPathNotFound, "%s does not exist", quote(formatPointer(toks[:depth+1])))
	case kindArray:
		i, err := arrayIndex(tok, n.arr.len(), false)
		if err != nil {
			return nil, at(err, toks[:depth+1])
		}
		return n.arr.at(i), nil
	default:
		return nil, failf(ErrPathNotFound, "%s does not exist: %s is a %s",
			quote(formatPointer(toks[:depth+1])), quote(formatPointer(toks[:depth])), n.kindName())
	}
}

// at prefixes a failure's reason with the pointer it concerns.
func at(f *failure, toks []string) *failure {
	return &failure{err: f.err, reason: quote(formatPointer(toks)) + ": " + f.reason}
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
		return n.obj.set(toks[depth], nc), nil
	}
	i, _ := arrayIndex(toks[depth], n.arr.len(), false) // child validated it
	return n.arr.set(i, nc), nil
}

// add implements the add operation: it sets an object member (replacing an
// existing one in place) or inserts into an array ("-" appends).
func add(root *node, toks []string, v *node) (*node, *failure) {
	if len(toks) == 0 {
		return v, nil
	}
	return modify(root, toks, 0, func(parent *node, key string) (*node, *failure) {
		if err := checkNesting(toks, v); err != nil {
			return nil, err
		}
		switch parent.kind {
		case kindObject:
			return parent.obj.set(key, v), nil
		case kindArray:
			i, err := arrayIndex(key, parent.arr.len(), true)
			if err != nil {
				return nil, err
			}
			return parent.arr.insert(i, v), nil
		default:
			return nil, failf(ErrPathNotFound, "cannot add a member to a %s", parent.kindName())
		}
	})
}

// checkNesting fails when v, put at the location toks names (whose parent
// exists), would nest the document deeper than MaxNesting: it would sit
// len(toks) levels down. This is exact: everything else the document holds
// nested no deeper than the limit before. It runs before the path is
// rebuilt, so a refused operation builds nothing.
func checkNesting(toks []string, v *node) *failure {
	if h := len(toks) + int(v.height); h > MaxNesting {
		return tooDeep(h)
	}
	return nil
}

func tooDeep(h int) *failure {
	return failf(ErrTooDeep, "the document would nest %d levels deep, over the limit of %d", h, MaxNesting)
}

func removeChild(parent *node, key string) (*node, *failure) {
	switch parent.kind {
	case kindObject:
		o, ok := parent.obj.del(key)
		if !ok {
			return nil, failf(ErrPathNotFound, "no such member")
		}
		return o, nil
	case kindArray:
		i, err := arrayIndex(key, parent.arr.len(), false)
		if err != nil {
			return nil, err
		}
		return parent.arr.remove(i), nil
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
		return parent.obj.set(key, v), nil
	case kindArray:
		i, err := arrayIndex(key, parent.arr.len(), false)
		if err != nil {
			return nil, err
		}
		return parent.arr.set(i, v), nil
	default:
		return nil, failf(ErrPathNotFound, "the parent is a %s", parent.kindName())
	}
}
