package patch

import (
	"math"
	"strconv"

	"github.com/agview/agview/internal/jsonstr"
)

// kind is the JSON type of a node.
type kind uint8

const (
	kindNull kind = iota
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindArray
	kindObject
)

// node is one immutable JSON value of a document tree. Nodes are shared
// between documents (a patch copies only the path it changes), so a node is
// never written after it has been built and handed out.
type node struct {
	kind kind
	// height is how deeply arrays and objects nest in the value: 0 for a
	// scalar, 1 for an array or object of scalars (or an empty one), one more
	// than its tallest member or element otherwise. It is kept so that the
	// nesting limit (MaxNesting) costs O(length of a path) to check.
	height int32
	// size is the length in bytes of the node's compact JSON encoding, kept so
	// that the size of every new document is known in O(depth).
	size int
	// text is the literal of a number (as written, validated) or the decoded
	// value of a string.
	text string
	arr  *array
	obj  *object
}

// Shared nodes for the values that need no storage of their own. Like every
// node they are never written, so any number of documents may hold them.
var (
	nullNode        = &node{kind: kindNull, size: 4}
	falseNode       = &node{kind: kindFalse, size: 5}
	trueNode        = &node{kind: kindTrue, size: 4}
	emptyStringNode = &node{kind: kindString, size: 2}
	emptyArrayNode  = &node{kind: kindArray, arr: &array{}, size: 2, height: 1}
	emptyObjectNode = &node{kind: kindObject, obj: &object{}, size: 2, height: 1}
)

// smallInts holds the number nodes of the literals "0" to "99", which state
// deltas write all the time (counters, progress, depth): parsing one costs no
// allocation. Built once at initialisation and never written.
var smallInts = func() (t [100]node) {
	for i := range t {
		lit := strconv.Itoa(i)
		t[i] = node{kind: kindNumber, text: lit, size: len(lit)}
	}
	return t
}()

func newString(s string) *node {
	if s == "" {
		return emptyStringNode
	}
	return &node{kind: kindString, text: s, size: quotedLen(s)}
}

func newNumber(lit string) *node {
	return &node{kind: kindNumber, text: lit, size: len(lit)}
}

// numberNode returns the node of a valid number literal, shared for the
// literals of smallInts and copied from lit otherwise.
func numberNode(lit []byte) *node {
	switch {
	case len(lit) == 1 && lit[0] >= '0' && lit[0] <= '9':
		return &smallInts[lit[0]-'0']
	case len(lit) == 2 && lit[0] >= '1' && lit[0] <= '9' && lit[1] >= '0' && lit[1] <= '9':
		return &smallInts[int(lit[0]-'0')*10+int(lit[1]-'0')]
	}
	return newNumber(string(lit))
}

// arrayNode and objectNode put a container and its node in one allocation.
type arrayNode struct {
	n node
	a array
}

type objectNode struct {
	n node
	o object
}

func newArrayNode(a array) *node {
	x := &arrayNode{a: a}
	return x.finish()
}

func newObjectNode(o object) *node {
	x := &objectNode{o: o}
	return x.finish()
}

// finish sets the node of x from its array and returns it.
func (x *arrayNode) finish() *node {
	x.n = node{kind: kindArray, arr: &x.a, size: x.a.encodedSize(), height: 1 + x.a.maxHeight()}
	return &x.n
}

// finish sets the node of x from its object and returns it.
func (x *objectNode) finish() *node {
	x.n = node{kind: kindObject, obj: &x.o, size: x.o.encodedSize(), height: 1 + x.o.maxHeight()}
	return &x.n
}

// block allocates a T and an array A in one allocation, and returns the T
// and the first n elements of the array (slice returns all of them), with
// capacity n. A node and its members, or a trie node and its slots, are
// created and dropped together, so one allocation does for both: half the
// allocator calls, and no more memory than two would round up to.
func block[T, A, E any](n int, slice func(*A) []E) (*T, []E) {
	b := new(struct {
		t T
		a A
	})
	return &b.t, slice(&b.a)[:n:n]
}

// newSmallObject allocates an object node together with room for its n
// members (1 <= n <= smallObject). The caller fills the members, sets x.o
// and calls x.finish before the node is handed out; the members then belong
// to that node and are never written again. A few block sizes cover 1 to
// smallObject members: the unused tail of a block is at most a third of it.
func newSmallObject(n int) (x *objectNode, ms []member) {
	switch {
	case n <= 1:
		return block[objectNode](n, func(a *[1]member) []member { return a[:] })
	case n <= 2:
		return block[objectNode](n, func(a *[2]member) []member { return a[:] })
	case n <= 3:
		return block[objectNode](n, func(a *[3]member) []member { return a[:] })
	case n <= 4:
		return block[objectNode](n, func(a *[4]member) []member { return a[:] })
	case n <= 6:
		return block[objectNode](n, func(a *[6]member) []member { return a[:] })
	case n <= 8:
		return block[objectNode](n, func(a *[8]member) []member { return a[:] })
	case n <= 12:
		return block[objectNode](n, func(a *[12]member) []member { return a[:] })
	default:
		return block[objectNode](n, func(a *[smallObject]member) []member { return a[:] })
	}
}

// newFlatArray is newSmallObject for a flat array of n elements
// (1 <= n <= flatArray): arrays of up to 16 elements share the node's block,
// longer ones get their own.
func newFlatArray(n int) (x *arrayNode, elems []*node) {
	switch {
	case n <= 1:
		return block[arrayNode](n, func(a *[1]*node) []*node { return a[:] })
	case n <= 2:
		return block[arrayNode](n, func(a *[2]*node) []*node { return a[:] })
	case n <= 4:
		return block[arrayNode](n, func(a *[4]*node) []*node { return a[:] })
	case n <= 8:
		return block[arrayNode](n, func(a *[8]*node) []*node { return a[:] })
	case n <= 16:
		return block[arrayNode](n, func(a *[16]*node) []*node { return a[:] })
	default:
		return new(arrayNode), make([]*node, n)
	}
}

// kindName names a node's JSON type for error messages.
func (n *node) kindName() string { return n.kind.name() }

// name names a JSON type for error messages.
func (k kind) name() string {
	switch k {
	case kindNull:
		return "null"
	case kindFalse, kindTrue:
		return "boolean"
	case kindNumber:
		return "number"
	case kindString:
		return "string"
	case kindArray:
		return "array"
	default:
		return "object"
	}
}

// equal reports whether a and b are equal JSON values in the sense of RFC 6902
// section 4.6: same type; strings equal after unescaping; numbers numerically
// equal; arrays element-wise equal; objects with the same member names and
// equal values, regardless of order.
func equal(a, b *node) bool {
	if a == b {
		return true
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kindNull, kindFalse, kindTrue:
		return true
	case kindString:
		return a.text == b.text
	case kindNumber:
		return numbersEqual(a.text, b.text)
	case kindArray:
		if a.arr.len() != b.arr.len() {
			return false
		}
		bs := b.arr.elems()
		i, same := 0, true
		a.arr.each(func(e *node) bool {
			same = equal(e, bs[i])
			i++
			return same
		})
		return same
	default:
		if a.obj.len() != b.obj.len() {
			return false
		}
		same := true
		a.obj.each(func(k string, v *node) bool {
			w, ok := b.obj.get(k)
			same = ok && equal(v, w)
			return same
		})
		return same
	}
}

// numbersEqual compares two valid JSON number literals by value, as
// JavaScript (and so the reference client) does: both are read as IEEE 754
// doubles, so 1, 1.0 and 1e0 are equal, -0 equals 0, and literals beyond the
// double range compare as infinities.
func numbersEqual(a, b string) bool {
	if a == b {
		return true
	}
	x, _ := strconv.ParseFloat(a, 64) // a valid literal out of range yields ±Inf, which is what we want
	y, _ := strconv.ParseFloat(b, 64)
	if math.IsNaN(x) || math.IsNaN(y) {
		return false
	}
	return x == y
}

// ---------------------------------------------------------------------------
// Encoding

// appendNode appends the compact JSON encoding of n to b.
func appendNode(b []byte, n *node) []byte {
	switch n.kind {
	case kindNull:
		return append(b, "null"...)
	case kindFalse:
		return append(b, "false"...)
	case kindTrue:
		return append(b, "true"...)
	case kindNumber:
		return append(b, n.text...)
	case kindString:
		return appendQuoted(b, n.text)
	case kindArray:
		b = append(b, '[')
		first := true
		n.arr.each(func(e *node) bool {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendNode(b, e)
			return true
		})
		return append(b, ']')
	default:
		b = append(b, '{')
		first := true
		n.obj.eachInOrder(func(k string, v *node) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendQuoted(b, k)
			b = append(b, ':')
			b = appendNode(b, v)
		})
		return append(b, '}')
	}
}

// quotedLen returns len(appendQuoted(nil, s)) without building it.
func quotedLen(s string) int { return jsonstr.Len(s) }

// appendQuoted appends s as a JSON string as JavaScript's JSON.stringify
// does: only quote, backslash and control characters are escaped, and lone
// surrogates (kept by the parser as package jsonstr describes).
func appendQuoted(b []byte, s string) []byte { return jsonstr.Append(b, s, jsonstr.JS) }
