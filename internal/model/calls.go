package model

import (
	"iter"

	"github.com/agview/agview/internal/persist"
)

// flatCalls is the largest number of calls a CallList keeps as a plain
// slice; longer lists are a persistent vector.
const flatCalls = 16

// CallList is an assistant message's tool calls, in order. It is an
// immutable value: Append and Set return a new list and leave the receiver
// as it was. A short list is a slice copied on write; a long one is a
// persistent vector, so that adding a call to a message or changing one
// (every TOOL_CALL_ARGS and TOOL_CALL_END does) costs the same whatever the
// number of calls the message holds: at most flatCalls pointers copied, or
// one vector path. The zero CallList is empty.
type CallList struct{ r *callRep }

// callRep is the calls of a non-empty CallList. It is never written once a
// CallList holding it is published. info is the info of the message holding
// the list (see Msg: a message holding calls points at its rep, which points
// at its info); CallList's own methods leave it alone.
type callRep struct {
	info *MsgInfo
	flat []*Call               // the calls, while big is empty
	big  persist.Vector[*Call] // the calls, once more than flatCalls
}

// CallsOf returns a list holding cs in order. It does not retain cs.
func CallsOf(cs ...*Call) CallList {
	var l CallList
	for _, c := range cs {
		l = l.Append(c)
	}
	return l
}

// Len returns the number of calls.
func (l CallList) Len() int {
	switch {
	case l.r == nil:
		return 0
	case l.r.big.Len() > 0:
		return l.r.big.Len()
	}
	return len(l.r.flat)
}

// At returns call i (0 ≤ i < Len).
func (l CallList) At(i int) *Call {
	if l.r.big.Len() > 0 {
		return l.r.big.At(i)
	}
	return l.r.flat[i]
}

// Append returns the list with c added last.
func (l CallList) Append(c *Call) CallList {
	n := l.Len()
	switch {
	case n > flatCalls:
		return CallList{&callRep{big: l.r.big.Append(c)}}
	case n < flatCalls:
		s := make([]*Call, n+1)
		if n > 0 {
			copy(s, l.r.flat)
		}
		s[n] = c
		return CallList{&callRep{flat: s}}
	}
	return CallList{&callRep{big: persist.VectorOf(l.r.flat...).Append(c)}}
}

// Set returns the list with call i (0 ≤ i < Len) replaced by c.
func (l CallList) Set(i int, c *Call) CallList {
	if l.r.big.Len() > 0 {
		return CallList{&callRep{big: l.r.big.Set(i, c)}}
	}
	s := make([]*Call, len(l.r.flat))
	copy(s, l.r.flat)
	s[i] = c
	return CallList{&callRep{flat: s}}
}

// All returns an iterator over the indices and calls of l in order.
func (l CallList) All() iter.Seq2[int, *Call] {
	if l.r != nil && l.r.big.Len() > 0 {
		return l.r.big.All()
	}
	return func(yield func(int, *Call) bool) {
		if l.r == nil {
			return
		}
		for i, c := range l.r.flat {
			if !yield(i, c) {
				return
			}
		}
	}
}

// Find returns the index of the call with the given id, or -1: hint when
// the call is there (O(1)), else the first such call (O(Len)).
func (l CallList) Find(id string, hint int) int {
	if hint >= 0 && hint < l.Len() && l.At(hint).ID == id {
		return hint
	}
	for i, c := range l.All() {
		if c.ID == id {
			return i
		}
	}
	return -1
}
