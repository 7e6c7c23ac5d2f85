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
// one vector path. The zero CallList is empty; a list of one call, what
// most messages that call tools hold, is a single 24-byte object (see
// callRep).
type CallList struct{ r *callRep }

// callRep is the calls of a non-empty CallList: the only call, or the calls
// of a longer list behind many. It is never written once a CallList holding
// it is published. info is the info of the message holding the list (see
// Msg: a message holding calls points at its rep, which points at its info);
// CallList's own methods leave it alone.
type callRep struct {
	info *MsgInfo
	one  *Call      // the only call, when many is nil
	many *manyCalls // the calls of a list of two or more
}

// manyCalls is the calls of a CallList of two or more. It is never written
// once a CallList holds it. It is 64 bytes (a size class): the slice and
// the vector, 56, and answered.
type manyCalls struct {
	flat []*Call               // the calls, while big is empty
	big  persist.Vector[*Call] // the calls, once more than flatCalls
	// answered is the index of the call the list's last Answer replaced, 0
	// when none did (see LastAnswer); Append and Set keep it.
	answered int32
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
	case l.r.many == nil:
		return 1
	case l.r.many.big.Len() > 0:
		return l.r.many.big.Len()
	}
	return len(l.r.many.flat)
}

// At returns call i (0 ≤ i < Len).
func (l CallList) At(i int) *Call {
	switch m := l.r.many; {
	case m == nil:
		if i != 0 {
			panic("model: CallList.At: index out of range")
		}
		return l.r.one
	case m.big.Len() > 0:
		return m.big.At(i)
	default:
		return m.flat[i]
	}
}

// Append returns the list with c added last.
func (l CallList) Append(c *Call) CallList {
	n := l.Len()
	switch {
	case n == 0:
		return CallList{&callRep{one: c}}
	case n == 1:
		return manyOf(&manyCalls{flat: []*Call{l.r.one, c}})
	}
	m := l.r.many
	switch {
	case n > flatCalls:
		return manyOf(&manyCalls{big: m.big.Append(c), answered: m.answered})
	case n < flatCalls:
		s := make([]*Call, n+1)
		copy(s, m.flat)
		s[n] = c
		return manyOf(&manyCalls{flat: s, answered: m.answered})
	}
	return manyOf(&manyCalls{big: persist.VectorOf(m.flat...).Append(c), answered: m.answered})
}

// Set returns the list with call i (0 ≤ i < Len) replaced by c.
func (l CallList) Set(i int, c *Call) CallList {
	switch m := l.r.many; {
	case m == nil:
		if i != 0 {
			panic("model: CallList.Set: index out of range")
		}
		return CallList{&callRep{one: c}}
	case m.big.Len() > 0:
		return manyOf(&manyCalls{big: m.big.Set(i, c), answered: m.answered})
	default:
		s := make([]*Call, len(m.flat))
		copy(s, m.flat)
		s[i] = c
		return manyOf(&manyCalls{flat: s, answered: m.answered})
	}
}

// Answer is Set for a call that a tool result inserted after the message
// holding the list just answered; c must be new (not yet in a published
// list), as Answer marks it answered. LastAnswer then returns i.
func (l CallList) Answer(i int, c *Call) CallList {
	c.answered = true
	l = l.Set(i, c)
	if l.r.many != nil {
		l.r.many.answered = int32(i) // the rep Set just made: not yet published
	}
	return l
}

// LastAnswer returns the index of the call the list's last Answer
// replaced (Append and Set keep it), and false when no Answer did or
// ForgetAnswer forgot it. Then the tool result inserted last after the
// message holding the list is that call's Result.
func (l CallList) LastAnswer() (int, bool) {
	if l.r == nil {
		return 0, false
	}
	i := 0
	if l.r.many != nil {
		i = int(l.r.many.answered)
	}
	return i, l.At(i).answered
}

// ForgetAnswer returns the list with no last answer (see LastAnswer): l
// itself when it has none, else l with a copy of that call that is not
// marked answered.
func (l CallList) ForgetAnswer() CallList {
	i, ok := l.LastAnswer()
	if !ok {
		return l
	}
	c := *l.At(i)
	c.answered = false
	return l.Set(i, &c)
}

// manyOf returns the list of the calls m holds.
func manyOf(m *manyCalls) CallList { return CallList{&callRep{many: m}} }

// All returns an iterator over the indices and calls of l in order.
func (l CallList) All() iter.Seq2[int, *Call] {
	if l.r != nil && l.r.many != nil && l.r.many.big.Len() > 0 {
		return l.r.many.big.All()
	}
	return func(yield func(int, *Call) bool) {
		switch {
		case l.r == nil:
		case l.r.many == nil:
			yield(0, l.r.one)
		default:
			for i, c := range l.r.many.flat {
				if !yield(i, c) {
					return
				}
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
