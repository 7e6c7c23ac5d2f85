package patch

import (
	"encoding/json"
	"fmt"
	"sync"
)

// Document is an immutable JSON document: the run state, or an activity's
// content. It is a small value (one pointer) that may be copied, compared
// with Equal and shared between goroutines and views freely; nothing can
// change the value it holds.
//
// The zero Document is the JSON value null (a STATE_SNAPSHOT may legally set
// the state to null). EmptyObject returns {}, the state of a fresh run.
type Document struct {
	r *root
}

// root is a document's tree plus its memoised encoding.
type root struct {
	n    *node
	once sync.Once
	enc  []byte
}

func wrap(n *node) Document { return Document{r: &root{n: n}} }

// node returns the document's tree (nullNode for the zero Document).
func (d Document) node() *node {
	if d.r == nil {
		return nullNode
	}
	return d.r.n
}

// New parses raw, which must be exactly one JSON value (any type, null
// included) with optional surrounding whitespace, and returns it as a
// Document. The Document does not retain raw. Strings stay exact
// (docs/protocol.md G19): an unpaired surrogate escape is kept and written back
// as the same escape, and bytes that are not UTF-8 are kept as they are, so
// "k\ud800" and "k\udbff" stay two member names (encoding/json would make
// both "k\ufffd"); a repeated member name keeps its first position and its last value, as
// JavaScript's JSON.parse does. On failure the error is a *SyntaxError with
// the byte offset of the problem.
func New(raw json.RawMessage) (Document, error) {
	n, err := parseValue(raw)
	if err != nil {
		return Document{}, err
	}
	return wrap(n), nil
}

// MustNew is New for constant documents in tests and examples: it panics if
// raw is not valid JSON.
func MustNew(raw string) Document {
	d, err := New(json.RawMessage(raw))
	if err != nil {
		panic(fmt.Sprintf("patch.MustNew(%q): %v", raw, err))
	}
	return d
}

// EmptyObject returns the document {}.
func EmptyObject() Document {
	return wrap(newObjectNode(object{}))
}

// JSON returns the document's compact JSON encoding. Members keep their
// insertion order; numbers keep the literal they were written with; strings
// escape only what JSON requires. The result is a fresh copy that the caller
// may modify. The encoding is computed once per Document and then memoised,
// so the first call costs O(size of the document) and later ones a copy.
func (d Document) JSON() json.RawMessage {
	return json.RawMessage(d.AppendJSON(nil))
}

// AppendJSON appends the document's compact JSON encoding (as JSON returns
// it) to b and returns the extended slice.
func (d Document) AppendJSON(b []byte) []byte {
	if d.r == nil {
		return append(b, "null"...)
	}
	d.r.once.Do(func() {
		d.r.enc = appendNode(make([]byte, 0, d.r.n.size), d.r.n)
	})
	return append(b, d.r.enc...)
}

// String returns the compact JSON encoding as a string.
func (d Document) String() string { return string(d.AppendJSON(nil)) }

// MarshalJSON implements json.Marshaler: the document's compact JSON.
func (d Document) MarshalJSON() ([]byte, error) {
	return d.AppendJSON(nil), nil
}

// UnmarshalJSON implements json.Unmarshaler by replacing *d with a new
// Document parsed from b, as New does. Documents that others hold are not
// affected: they do not share *d.
func (d *Document) UnmarshalJSON(b []byte) error {
	nd, err := New(b)
	if err != nil {
		return err
	}
	*d = nd
	return nil
}

// IsObject reports whether the document is a JSON object.
func (d Document) IsObject() bool { return d.node().kind == kindObject }

// IsNull reports whether the document is JSON null (the zero Document is).
func (d Document) IsNull() bool { return d.node().kind == kindNull }

// Size returns the length in bytes of the document's compact JSON encoding,
// without encoding it.
func (d Document) Size() int { return d.node().size }

// Equal reports whether d and o hold equal JSON values in the sense of an
// RFC 6902 test operation: member order does not matter, numbers compare by
// value (1 equals 1.0), strings after unescaping.
func (d Document) Equal(o Document) bool { return equal(d.node(), o.node()) }
