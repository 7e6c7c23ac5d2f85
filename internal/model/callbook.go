package model

import (
	"math"

	"github.com/agview/agview/internal/persist"
)

// The tool-call bookkeeping: for every tool call id, its owner (kept for
// the whole stream, docs/protocol.md G6) and which message holds it (reset
// by every MESSAGES_SNAPSHOT), in one record.

// Calls is what the cold part records about tool calls: a callRec for every
// tool call id the stream named. A Calls reachable from a published state
// is never written: a fold that changes it copies it first. Its map gains a
// key per tool call, so it is a BufMap. Read and write it through the
// methods of Cold below.
type Calls struct {
	recs persist.BufMap[callRec]
	// gen is the generation of holders: a record says where its call is
	// held only when its gen is this one, so that UnholdCalls (every
	// MESSAGES_SNAPSHOT) forgets every holder without touching a record,
	// while the owners stay.
	gen uint32
}

// callRec is what Calls records about one tool call id: its owner, and the
// message holding it with the call's index in that message's calls. A
// message's calls are only ever appended to, so the index stays right
// while the message holds the call.
//
// The record is 32 bytes: its map entry, held inline in the map's table,
// is the key's address and 32-bit length, 4 bytes of padding and the
// record, 48 bytes, one for every tool call of the stream. The owner is an ownerRef (4 bytes, see
// MsgRec) and the index an int32 (a message never holds 2³¹ calls: each
// costs far more than a byte of input).
type callRec struct {
	holder string // the id of the message holding the call, if held
	idx    int32  // the call's index in the holder's calls, if held
	owner  ownerRef
	gen    uint32 // the Calls generation the call was held in
	flags  callFlags
}

// callFlags are the flags of a callRec.
type callFlags uint8

const (
	callOwned callFlags = 1 << iota // owner is set
	callHeld                        // holder and idx are set, if gen is the Calls'
)

// held reports whether r says where its call is held in x's generation.
func (x *Calls) held(r callRec) bool { return r.flags&callHeld != 0 && r.gen == x.gen }

// CallOwner returns the recorded owner of tool call id, and false when none
// is recorded.
func (c *Cold) CallOwner(id string) (Owner, bool) {
	r, _ := c.Calls.recs.Get(id)
	if r.flags&callOwned == 0 {
		return Owner{}, false
	}
	return c.owner(r.owner), true
}

// SetCallOwner records o as the owner of tool call id; c must be a private
// copy, calls returns c.Calls as a private copy, and rest is as for
// PutMsg. It writes nothing when o is the owner recorded already (a
// snapshot restating its history records every owner again).
func (c *Cold) SetCallOwner(id string, o Owner, calls func() *Calls, rest func() *Rest) {
	ref := c.ref(o, rest)
	r, _ := c.Calls.recs.Get(id)
	if r.flags&callOwned != 0 && r.owner == ref {
		return
	}
	r.owner, r.flags = ref, r.flags|callOwned
	x := calls()
	x.recs = x.recs.Set(id, r)
}

// CallHolder returns the id of the message holding tool call id and the
// call's index in its calls, and false when no message holds it.
func (c *Cold) CallHolder(id string) (holder string, idx int, ok bool) {
	r, _ := c.Calls.recs.Get(id)
	if !c.Calls.held(r) {
		return "", 0, false
	}
	return r.holder, int(r.idx), true
}

// HoldCall records that message holder holds tool call id as its call
// idx, and o as the call's owner when o is not nil (else it keeps the
// owner recorded): one write of the call's record. c must be a private
// copy; calls returns c.Calls as a private copy, and rest is as for
// PutMsg.
func (c *Cold) HoldCall(id, holder string, idx int, o *Owner, calls func() *Calls, rest func() *Rest) {
	var ref ownerRef
	if o != nil {
		ref = c.ref(*o, rest)
	}
	x := calls()
	r, _ := x.recs.Get(id)
	if o != nil {
		r.owner, r.flags = ref, r.flags|callOwned
	}
	r.holder, r.idx, r.gen = holder, int32(idx), x.gen
	r.flags |= callHeld
	x.recs = x.recs.Set(id, r)
}

// UnholdCalls records that no message holds any tool call, keeping their
// owners, in O(1); calls returns c.Calls as a private copy.
func (c *Cold) UnholdCalls(calls func() *Calls) {
	x := calls()
	if x.gen == math.MaxUint32 {
		// The generations are used up (after 2³² resets): unhold every
		// record once, so that no stale one reads as held when they start
		// again from zero.
		for id, r := range x.recs.All() {
			if r.flags&callHeld != 0 {
				r.holder, r.idx, r.gen = "", 0, 0
				r.flags &^= callHeld
				x.recs = x.recs.Set(id, r)
			}
		}
		x.gen = 0
		return
	}
	x.gen++
}
