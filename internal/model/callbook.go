package model

import "github.com/agview/agview/internal/persist"

// The tool-call bookkeeping: which message holds each call, the last
// result inserted after a message, and the owners of calls (kept for the
// whole stream, docs/protocol.md G6).

// Calls is what the cold part records about tool calls. A Calls reachable
// from a published state is never written: a fold that changes it copies
// it first. Its maps gain a key per tool call, or per message holding
// results, so they are BufMaps.
type Calls struct {
	Loc persist.BufMap[CallLoc] // tool call id → where it is held
	// ResultAfter: assistant message id → the last tool result inserted
	// after it (a hint: the tool messages up to it follow the message).
	ResultAfter persist.BufMap[string]
	// owners: the owners of tool calls, kept for the whole stream
	// (docs/protocol.md G6), as ownerRefs: a 24-byte table entry where an
	// Owner made a 40-byte one. Read and write it with Cold.CallOwner and
	// Cold.SetCallOwner; message owners are in Cold.Msgs.
	owners persist.BufMap[ownerRef]
}

// CallLoc locates a tool call: the id of the message holding it and its
// index in that message's calls. A message's calls are only ever appended
// to, so the index stays right while the message holds the call.
type CallLoc struct {
	Msg string
	Idx int
}

// CallOwner returns the recorded owner of tool call id, and false when none
// is recorded.
func (c *Cold) CallOwner(id string) (Owner, bool) {
	r, ok := c.Calls.owners.Get(id)
	return c.owner(r), ok
}

// SetCallOwner records o as the owner of tool call id; c must be a private
// copy, calls returns c.Calls as a private copy, and rest is as for
// PutMsg.
func (c *Cold) SetCallOwner(id string, o Owner, calls func() *Calls, rest func() *Rest) {
	r := c.ref(o, rest)
	x := calls()
	x.owners = x.owners.Set(id, r)
}
