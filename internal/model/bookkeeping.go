package model

import (
	"fmt"
	"iter"
	"math"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/persist"
	"github.com/agview/agview/patch"
)

// The verifier's bookkeeping: what the reducer must remember to check the
// rules and to find things again (where a message lives, who owns an id,
// what is open in the current run), kept in the cold part of a state.

// OwnerRec is a recorded message owner with the kind of message it was
// recorded for.
type OwnerRec struct {
	Owner Owner
	Kind  Kind
	// Replayed: recorded from history (MESSAGES_SNAPSHOT, RUN_STARTED.input),
	// which the reference records for every kind of message.
	Replayed bool
}

// MsgRec is what a state records about one message id: its owner, kept for
// the whole stream (docs/protocol.md G6), whether and where it is in the
// list (see List), and whether the message is placed in an invocation. All
// of it sits in one record, in one map, so that a new message costs one map
// insertion and no entry elsewhere.
//
// The record is 12 bytes and holds no pointer, so that its map entry (the
// key's address and 32-bit length, then the record), held inline in the
// map's table, is 24 bytes and holds one pointer, the key's: the garbage
// collector scans one word of it. There is one entry per message id of the stream,
// so every byte here is paid per message. The owner is an ownerRef into the
// state's owner table instead of a string; where the message lives is not
// here: a message appended to the list lives where its list entry says
// (recAnchor), and the rest, rare (inserted messages, messages placed but
// not listed), where List.rare.locs says (recAside); the message inserted
// right after this one, rare too, is in List.rare.after, which only a
// record with recAfter set has an entry in. The flags take one byte.
type MsgRec struct {
	owner  ownerRef
	anchor int32  // where in List.locs this message or the one its chain starts from is
	gen    uint16 // the List generation it was listed in
	kind   Kind
	flags  recFlags
}

// packedLoc is a Loc in 8 bytes, as the list holds it: a node never holds
// 2³¹ messages (each costs far more than a byte of
// input), nor a state 2³¹ nodes.
type packedLoc struct{ inv, pos int32 }

func pack(l Loc) packedLoc { return packedLoc{inv: int32(l.Inv), pos: int32(l.Pos)} }

func (p packedLoc) loc() Loc { return Loc{Inv: int(p.inv), Pos: int(p.pos)} }

// recFlags are the flags of a MsgRec.
type recFlags uint8

const (
	recOwned    recFlags = 1 << iota // owner and kind are set
	recReplayed                      // the owner was recorded from history
	recPlaced                        // the message lives in an invocation
	recListed                        // in the list, if gen is the list's
	recAnchor                        // listed at List.locs[anchor] itself, not inserted after a message
	recAside                         // where it lives is in List.rare.locs
	recAfter                         // List.rare.after holds the message inserted right after this one
)

// ownerRef is an owner as the bookkeeping records hold it: 0 for the
// parent agent (an Owner whose Sub is false, whatever its ID, as for
// Owner.Key), and i+1 for the subagent whose id is the owner table's entry
// i (see ownerTable). It takes 4 bytes where an Owner takes 24 (a
// bool and a string header) and holds no pointer. Every owner id recorded
// is in the table, whether or not an invocation node of that id exists
// (history may name owners the stream never starts), and stays there for
// the whole stream, so a record reads back the owner it was given.
type ownerRef uint32

// ownerTable is the owner table of a state: every subagent id a message
// or tool call owner was recorded for, in the order first recorded (ids,
// see ownerRef), and each id's ownerRef (refs). It is never written once a
// Rest points to it. Rest holds it behind a pointer to stay in its
// allocator size class: a Rest is copied whenever a node leaves
// the hot groups, and the table changes only when an owner is new.
type ownerTable struct {
	ids  persist.Vector[string]
	refs persist.Map[ownerRef]
}

// ref returns o's ownerRef, adding its id to the owner table when it is
// not in it: rest returns the rest of the cold part as a private copy and
// is called only then.
func (c *Cold) ref(o Owner, rest func() *Rest) ownerRef {
	if !o.Sub {
		return 0
	}
	old := c.Rest.owners
	if old != nil {
		if r, ok := old.refs.Get(o.ID); ok {
			return r
		}
	}
	t := new(ownerTable)
	if old != nil {
		*t = *old
	}
	t.ids = t.ids.Append(o.ID)
	ref := ownerRef(t.ids.Len())
	t.refs = t.refs.Set(o.ID, ref)
	rest().owners = t
	return ref
}

// owner returns the owner ref stands for.
func (c *Cold) owner(ref ownerRef) Owner {
	if ref == 0 {
		return Parent
	}
	return Owner{Sub: true, ID: c.Rest.owners.ids.At(int(ref) - 1)}
}

// setOwner records o in r.
func (c *Cold) setOwner(r *MsgRec, o OwnerRec, rest func() *Rest) {
	r.owner, r.kind = c.ref(o.Owner, rest), o.Kind
	r.flags = r.flags&^recReplayed | recOwned
	if o.Replayed {
		r.flags |= recReplayed
	}
}

// RecOwner returns the owner recorded in r, a record of c's message index,
// and false when none is recorded.
func (c *Cold) RecOwner(r MsgRec) (OwnerRec, bool) {
	if r.flags&recOwned == 0 {
		return OwnerRec{}, false
	}
	return OwnerRec{Owner: c.owner(r.owner), Kind: r.kind, Replayed: r.flags&recReplayed != 0}, true
}

// RecLoc returns where message id, whose record in c's message index is r,
// lives, and false when it is placed nowhere. The message lives where its
// list entry says when it has one (recAnchor, in this generation), and
// where List.rare.locs says when recAside is set. A message of the list
// before a ListReset has neither until the list is rebuilt (see ListReset).
func (c *Cold) RecLoc(id string, r MsgRec) (Loc, bool) {
	switch {
	case r.flags&recPlaced == 0:
	case r.flags&recAside != 0:
		l, _ := c.List.rare.locs.Get(id)
		return l.loc(), true
	case r.flags&recAnchor != 0 && c.listed(r):
		return c.List.locs.At(int(r.anchor)).loc(), true
	}
	return Loc{}, false
}

// MsgOwner returns the recorded owner of message id.
func (c *Cold) MsgOwner(id string) (OwnerRec, bool) {
	r, _ := c.Msgs.Get(id)
	return c.RecOwner(r)
}

// MsgLoc returns where message id lives, and false when it is placed
// nowhere.
func (c *Cold) MsgLoc(id string) (Loc, bool) {
	r, _ := c.Msgs.Get(id)
	return c.RecLoc(id, r)
}

// PutMsg records where message id lives and its owner when o is not nil,
// and, when list is set, puts it into the list (it must not be in it) right
// after message *after, or at the end when after is nil: one map insertion
// for all of it, and one more for the message it follows when it is
// inserted. When list is not set and the message is in the list, it has
// moved there from where it lived: its list entry moves with it. r is id's
// record as it is in c.Msgs (the zero MsgRec when there is none). c must be
// a private copy; rest returns the rest of the cold part as a private copy,
// and is called only when o names an owner c never recorded.
func (c *Cold) PutMsg(id string, r MsgRec, o *OwnerRec, l Loc, list bool, after *string, rest func() *Rest) {
	if o != nil {
		c.setOwner(&r, *o, rest)
	}
	r.flags |= recPlaced
	switch {
	case !list && r.flags&recAnchor != 0 && c.listed(r):
		c.List.locs = c.List.locs.Set(int(r.anchor), pack(l))
		c.Msgs = c.Msgs.Set(id, r)
	case !list:
		c.setAside(id, &r, l)
		c.Msgs = c.Msgs.Set(id, r)
	case after == nil:
		c.listAppend(id, r, l)
	default:
		c.listInsert(*after, id, r, l)
	}
}

// setAside records in List.rare.locs that message id, whose record is r,
// lives at l, and sets recAside in r.
func (c *Cold) setAside(id string, r *MsgRec, l Loc) {
	rare := c.List.writeRare()
	rare.locs = rare.locs.Set(id, pack(l))
	r.flags |= recAside
}

// clearAside forgets where message id, whose record is r, lives, if
// List.rare.locs says so, and clears recAside in r.
func (c *Cold) clearAside(id string, r *MsgRec) {
	if r.flags&recAside != 0 {
		rare := c.List.writeRare()
		rare.locs = rare.locs.Delete(id)
		r.flags &^= recAside
	}
}

// SetMsgOwner records the owner of message id, keeping where it lives; c
// must be a private copy, and rest is as for PutMsg.
func (c *Cold) SetMsgOwner(id string, o OwnerRec, rest func() *Rest) {
	r, _ := c.Msgs.Get(id)
	c.setOwner(&r, o, rest)
	c.Msgs = c.Msgs.Set(id, r)
}

// DropMsgLoc records that message id no longer lives anywhere, keeping its
// owner; c must be a private copy. The message must not be in the list (the
// reducer drops only messages a snapshot left out of the list it rebuilt):
// its record leaves any chain it was part of unlinked, and a record with no
// owner is deleted.
func (c *Cold) DropMsgLoc(id string) {
	r, ok := c.Msgs.Get(id)
	switch {
	case !ok || r.flags&recPlaced == 0:
	case r.flags&recOwned != 0:
		c.clearAside(id, &r)
		r.flags &^= recPlaced
		c.Msgs = c.Msgs.Set(id, r)
	default:
		c.clearAside(id, &r)
		c.Msgs = c.Msgs.Delete(id)
	}
}

// List is the AG-UI message list (docs/protocol.md §7). The messages
// appended to its end are a vector of where they live, locs (8 bytes
// each; a message's id is in its record's key and in the
// message, and the list reads it from the message); it is also where they
// live for the message index (recAnchor), which holds no location of its
// own. A message inserted after another (a tool result after the message holding its
// call) hangs off it: the message it follows has recAfter set and an entry
// in rare.after naming it, and it records the vector position of the
// message its chain starts from (MsgRec.anchor), which only that message is
// at; where it lives is in rare.locs (recAside), as for a message placed
// but not listed. Every listed message is placed: one that moves while
// listed (PutMsg) moves its entry in locs when it has one. So appending
// costs a vector append and no map update besides the message's own
// record, and inserting two record updates and two or three entries in
// rare; Listed and ListNext are O(log n), ListLen O(1), and iterating one
// node lookup per message (and one more map lookup per message when some
// are inserted, and one per inserted one). ListReset empties the list in
// O(1) amortised: records listed before belong to an older generation and
// read as not listed (once every 2¹⁶ resets, when the generations wrap, it
// unlists every record).
//
// Reading ids and messages from locations needs the invocation nodes: the
// readers that do take them as Nodes.
type List struct {
	locs persist.Vector[packedLoc]
	// rare is what few messages need; nil when empty. Out of MsgRec, whose
	// every byte is paid per message; behind a pointer, so that the List
	// (and Cold, which every fold copies) keeps its size class. The
	// listRare it points to is never written once a List points to it.
	rare *listRare
	n    int32  // the number of messages (less than 2³¹, as packedLoc's)
	gen  uint16 // the generation of the records listed
}

// listRare is the part of a List few messages have an entry in.
type listRare struct {
	// after: message id → the message inserted right after it (never
	// empty), for the records of this generation with recAfter set.
	after persist.Map[string]
	// locs: message id → where it lives, for the records with recAside
	// set: placed, and not at an entry of the list's own locs.
	locs persist.BufMap[packedLoc]
}

// writeRare returns l.rare as a private copy, to change.
func (l *List) writeRare() *listRare {
	r := new(listRare)
	if l.rare != nil {
		*r = *l.rare
	}
	l.rare = r
	return r
}

// Nodes returns the data of invocation node key, or of the root for -1, as
// the caller sees it: State.Node for a state, or the nodes a fold is
// changing. The list readers take one to read messages where they live.
type Nodes func(key int) *InvData

// Listed reports whether message id is in the list.
func (c *Cold) Listed(id string) bool {
	r, ok := c.Msgs.Get(id)
	return ok && c.listed(r)
}

func (c *Cold) listed(r MsgRec) bool { return r.flags&recListed != 0 && r.gen == c.List.gen }

// ListLen returns the number of messages in the list.
func (c *Cold) ListLen() int { return int(c.List.n) }

// ListNext returns the id of the message after message id in the list, and
// false when id is the last or not in the list.
func (c *Cold) ListNext(id string, nodes Nodes) (string, bool) {
	r, ok := c.Msgs.Get(id)
	switch {
	case !ok || !c.listed(r):
		return "", false
	case r.flags&recAfter != 0:
		return c.List.next(id)
	case int(r.anchor)+1 < c.List.locs.Len():
		l := c.List.locs.At(int(r.anchor) + 1)
		return storedAt(nodes(int(l.inv)), l).ID, true
	}
	return "", false
}

// storedAt returns the stored version of the listed message at l, in its
// node d.
func storedAt(d *InvData, l packedLoc) *Msg {
	m, _ := d.Stored(int(l.pos))
	if m == nil {
		panic(fmt.Sprintf("model: the list names a message at %v, which holds none", l.loc()))
	}
	return m
}

// ListAll iterates the ids of the list in order. It iterates c as it is
// when called (c may be changed meanwhile) and reads each message where it
// lives when the iteration reaches it, in nodes.
func (c *Cold) ListAll(nodes Nodes) iter.Seq[string] {
	l := c.List
	return func(yield func(string) bool) {
		l.walk(nodes, func(_ *InvData, _ Loc, m *Msg) bool { return yield(m.ID) })
	}
}

// ListMsgs iterates the messages of the list in order, each with where it
// lives and as InvData.MsgAt returns it, as ListAll does.
func (c *Cold) ListMsgs(nodes Nodes) iter.Seq2[Loc, *Msg] {
	l := c.List
	return func(yield func(Loc, *Msg) bool) {
		l.walk(nodes, func(d *InvData, at Loc, m *Msg) bool { return yield(at, d.MsgAt(at.Pos)) })
	}
}

// walk calls yield with each message of l in order, the node holding it
// and where it lives until yield returns false; m is the message's stored
// version (see InvData.Stored).
func (l *List) walk(nodes Nodes, yield func(d *InvData, at Loc, m *Msg) bool) {
	for _, at := range l.locs.All() {
		for {
			d := nodes(int(at.inv))
			m := storedAt(d, at)
			if !yield(d, at.loc(), m) {
				return
			}
			next, ok := l.next(m.ID)
			if !ok {
				break
			}
			at, _ = l.rare.locs.Get(next)
		}
	}
}

// ListAppend puts message id, which lives at loc, at the end of the list;
// it must not be in it, and c must be a private copy.
func (c *Cold) ListAppend(id string, loc Loc) {
	r, _ := c.Msgs.Get(id)
	r.flags |= recPlaced
	c.listAppend(id, r, loc)
}

// listAppend stores r, the record of id, which lives at loc, at the end of
// the list.
func (c *Cold) listAppend(id string, r MsgRec, loc Loc) {
	c.clearAside(id, &r)
	r.flags = r.flags&^recAfter | recListed | recAnchor
	r.gen, r.anchor = c.List.gen, int32(c.List.locs.Len())
	c.Msgs = c.Msgs.Set(id, r)
	c.List.locs = c.List.locs.Append(pack(loc))
	c.List.n++
}

// listInsert stores r, the record of id, which lives at loc, right after
// message at in the list.
func (c *Cold) listInsert(at, id string, r MsgRec, loc Loc) {
	a, _ := c.Msgs.Get(at)
	if a.flags&recAfter == 0 && int(a.anchor) == c.List.locs.Len()-1 {
		c.listAppend(id, r, loc) // at is the last message
		return
	}
	r.flags = r.flags&^(recAfter|recAnchor) | recListed
	r.gen, r.anchor = c.List.gen, a.anchor
	c.setAside(id, &r, loc)
	rare := c.List.writeRare()
	if a.flags&recAfter != 0 {
		// id takes over what followed at.
		next, _ := rare.after.Get(at)
		rare.after = rare.after.Set(id, next)
		r.flags |= recAfter
	}
	c.Msgs = c.Msgs.Set(id, r)
	rare.after = rare.after.Set(at, id)
	if a.flags&recAfter == 0 {
		a.flags |= recAfter
		c.Msgs = c.Msgs.Set(at, a)
	}
	c.List.n++
}

// next returns the message inserted right after message id: for a record
// of this generation, there is one exactly when it has recAfter set.
func (l *List) next(id string) (string, bool) {
	if l.rare == nil {
		return "", false
	}
	return l.rare.after.Get(id)
}

// ListReset empties the list; c must be a private copy. Where the messages
// appended to it live was in the list: the caller appends each again
// (ListAppend) or drops it (DropMsgLoc), with where ListMsgs, iterated
// before the reset, says it lives, before it asks where one lives (MsgLoc)
// and before the next reset. The inserted ones keep where they live.
func (c *Cold) ListReset() {
	rare := c.List.rare
	if rare != nil {
		rare = &listRare{locs: rare.locs}
	}
	if c.List.gen == math.MaxUint16 {
		// The generations are used up (after 2¹⁶ resets): unlist every
		// record once, so that no stale one reads as listed when they start
		// again from zero.
		for id, r := range c.Msgs.All() {
			if r.flags&recListed != 0 {
				r.flags &^= recListed | recAnchor | recAfter
				r.gen = 0
				c.Msgs = c.Msgs.Set(id, r)
			}
		}
		c.List = List{rare: rare}
		return
	}
	c.List = List{rare: rare, gen: c.List.gen + 1}
}

// Loc locates a message: the invocation node holding it (-1: the root) and
// its position in that node's message vector.
type Loc struct {
	Inv int
	Pos int
}

// SpanLoc is an open reasoning span: its owner and where its record is.
type SpanLoc struct {
	Owner Owner
	Inv   int
	Pos   int
}

// StepLoc is an open step: its owner, name and where its record is.
type StepLoc struct {
	Owner Owner
	Name  string
	Inv   int
	Pos   int
}

// LaneKind is the kind of a pending chunk stream (docs/protocol.md §4).
type LaneKind uint8

// Lane kinds.
const (
	LaneText LaneKind = iota + 1
	LaneTool
	LaneReasoning
)

// Lane is the pending chunk stream of one owner.
type Lane struct {
	Owner     Owner
	Kind      LaneKind
	ID        string
	Role      *event.Role
	Name      *string
	ToolName  string
	ParentMsg *string
}

// Open is an open text or reasoning message: its owner and, while it is in
// the message list (In), where it lives, so that a streamed delta finds it in
// the small map of open entities without a lookup in the message index.
type Open struct {
	Owner Owner
	Loc   Loc
	In    bool
}

// OpenCall is an open tool call: its owner and, while a message holds it
// (Held), where that message lives and the call's index in it.
type OpenCall struct {
	Owner Owner
	Loc   Loc
	Idx   int
	Held  bool
}

// Opens are the text messages, tool calls and reasoning messages open in
// the current run: part of the verifier bookkeeping that resets at every
// RUN_STARTED (docs/protocol.md V5), apart from the rest of it (RunScope)
// because every message opens and closes one.
type Opens struct {
	Text persist.Map[Open]     // text message id → owner, where
	Tool persist.Map[OpenCall] // tool call id → owner, where
	Rsn  persist.Map[Open]     // reasoning message id → owner, where
}

// RunScope is the rest of the verifier bookkeeping that resets at every
// RUN_STARTED (docs/protocol.md V5): open spans and steps, subagent
// lifecycle, chunk lanes. A RunScope reachable from a published state is
// never written: a fold that changes it copies it first.
type RunScope struct {
	OpenSpan  persist.Map[SpanLoc] // reasoning span id → owner, record
	OpenSteps persist.Map[StepLoc] // owner key + "\x00" + name → step

	Active     persist.Map[int]      // active subagent id → node
	Closed     persist.Map[struct{}] // ids finished, suspended or errored in this run
	Started    persist.Map[struct{}] // ids started in this run
	Attributed persist.Map[struct{}] // ids some attributable event carried in this run

	Lanes persist.Map[Lane] // owner key → pending chunk stream
}

// Cold is the part of a State most events leave alone. What the events
// that open and close messages change (the run's open entities, the
// message index and list) is held here; what tool calls change is behind
// Calls, and what few events change behind RunScope and Rest, so that the
// events that open and close messages copy a small cold part (160 bytes),
// not all of it.
type Cold struct {
	Open Opens
	// RunScope is never nil.
	RunScope *RunScope

	// Messages: the AG-UI list, where each message lives and who owns it
	// (Msgs), which message holds each tool call.
	List List
	// Msgs: message id → its owner (kept for the whole stream, G6),
	// whether it is placed and where it is in the list (where it lives is
	// with the list, see MsgRec). Read and write it with MsgOwner, MsgLoc,
	// RecLoc, PutMsg, SetMsgOwner and DropMsgLoc. A BufMap: it
	// gains a key per message, and a Map would copy its full top levels
	// for each.
	Msgs persist.BufMap[MsgRec]
	// Calls is never nil.
	Calls *Calls

	Rest *Rest
}

// Rest is the part of the cold state few events change: runs, the
// lifecycle phase, invocations by id, the state document, diagnostics. It
// is never nil.
type Rest struct {
	Ended bool
	// Thread is the threadId of the last run input folded (reducer.Input):
	// the client's own thread, which the stream's RUN_STARTED may not name.
	Thread string

	Phase Phase
	Runs  persist.Vector[Run]

	// SpanOwner: the owners of reasoning spans, kept for the whole stream.
	SpanOwner persist.Map[Owner]

	InvIDs persist.Map[int] // subagent id → its latest node

	// owners is the owner table (see ownerRef); nil when empty.
	owners *ownerTable
	// invs are the subagent nodes by key, stale for the keys in State.hot.
	invs persist.Vector[*Inv]

	Doc     patch.Document // the run-scoped state
	DocBy   Owner          // who last changed it (provenance)
	DocSet  bool           // DocBy is meaningful
	Pending []event.Interrupt

	Diags     *DiagLog // nil: none
	Violating int      // violations recorded
	Thinking  Thinking
}

// NewCold returns the cold part of a new stream's state, with doc as its
// state document.
func NewCold(doc patch.Document) *Cold {
	return &Cold{RunScope: &RunScope{}, Calls: &Calls{}, Rest: &Rest{Doc: doc}}
}
