package reducer

import (
	"encoding/binary"
	"unsafe"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/internal/persist"
	"github.com/agview/agview/internal/wire"
)

// The streamed deltas (TEXT_MESSAGE_CONTENT, TOOL_CALL_ARGS,
// REASONING_MESSAGE_CONTENT) are nearly all of a real stream. FoldJSON and
// Builder fold them on a path of their own when that gives exactly what
// decoding the event and folding it with Fold gives (FuzzFoldJSON and
// FuzzBuilder check it):
//
//   - from the wire bytes, a delta is read in place (internal/wire): no
//     event and no string is allocated for it, and its ids and tag are
//     strings over the input, valid during the call only;
//   - in a Builder, a run of deltas changes one private view in place: no
//     view, invocation node or hot group is copied per event.
//
// Both are sound only when the fold stores none of the event's strings and
// changes nothing before it knows the event is accepted. So the path takes
// only an event whose tag is already known to the run (the first attributed
// event of an invocation records the tag), while no chunk stream is pending
// (closing one stores ids), and whose fold is neither refused nor warned
// about (the handlers check before they change anything, and messages that
// name ids are built on the full path, which owns its strings). Anything
// else falls back to the full path, which decides.

// delta is a streamed delta to fold on the fast path: all but its text,
// which travels apart so that escape analysis can keep a text decoded on the
// caller's stack there (the ids leak into messages; the text never does).
type delta struct {
	t     event.Type
	id    string
	tag   model.Owner
	valid bool
}

// deltaOf returns e as a delta, and its text, when e is one the fast path
// may take.
func deltaOf(e event.Event) (delta, string) {
	switch e := e.(type) {
	case *event.TextMessageContent:
		if e.Metadata == nil && e.Warnings() == nil {
			return delta{t: event.TypeTextMessageContent, id: e.MessageID, tag: tagOf(e), valid: true}, e.Delta
		}
	case *event.ReasoningMessageContent:
		if e.Metadata == nil && e.Warnings() == nil {
			return delta{t: event.TypeReasoningMessageContent, id: e.MessageID, tag: tagOf(e), valid: true}, e.Delta
		}
	case *event.ToolCallArgs:
		if e.Metadata == nil && e.Warnings() == nil {
			return delta{t: event.TypeToolCallArgs, id: e.ToolCallID, tag: tagOf(e), valid: true}, e.Delta
		}
	}
	return delta{}, ""
}

// scanned reads data as a delta in place (see internal/wire), and returns
// its text. The strings alias data; an escaped text is decoded into buf
// when it fits.
func scanned(data []byte, buf []byte) (delta, string) {
	d, ok := wire.ScanDelta(data)
	if !ok {
		return delta{}, ""
	}
	text := aliased(d.Text)
	if d.Escaped {
		b, ok := wire.AppendUnescaped(buf[:0], d.Text)
		if !ok {
			return delta{}, ""
		}
		text = aliased(b)
	}
	var tag model.Owner
	if d.Tagged {
		tag = model.Owner{Sub: true, ID: aliased(d.Tag)}
	}
	return delta{t: event.Type(d.Type), id: aliased(d.ID), tag: tag, valid: true}, text
}

// admits reports whether the state allows the fast path for d: a run is
// active, no chunk stream is pending and d's tag is known to the run. remembered,
// when not nil, remembers the tags it found.
func admits(st *model.State, d delta, remembered *lookups) bool {
	c := st.Cold
	if c.Rest.Phase != model.PhaseActive || c.RunScope.Lanes.Len() != 0 {
		return false
	}
	if d.tag.Sub {
		var seen bool
		if remembered != nil {
			_, seen = remembered.attributed.get(c.RunScope.Attributed, d.tag.ID)
		} else {
			_, seen = c.RunScope.Attributed.Get(d.tag.ID)
		}
		if !seen {
			return false
		}
	}
	return true
}

// lookups are the lookups a Builder remembers: streamed deltas look up the
// same few open entities and tags over and over, in maps that change only
// when an entity opens or closes.
type lookups struct {
	text, rsn  lookupCache[model.Open]
	tool       lookupCache[model.OpenCall]
	attributed lookupCache[struct{}]
}

// lookupCache remembers up to lookupSlots keys found in one version of a
// persistent map, and forgets them all when asked about another version.
type lookupCache[V any] struct {
	m    persist.Map[V]
	keys [lookupSlots]string // as the map stores them
	vals [lookupSlots]V
	full uint16 // bit i: slot i holds a key
}

const lookupSlots = 16

// get returns m.Get(k), from the cache when it can.
func (c *lookupCache[V]) get(m persist.Map[V], k string) (V, bool) {
	_, v, ok := c.lookup(m, k)
	return v, ok
}

// lookup returns m.Lookup(k), from the cache when it can.
func (c *lookupCache[V]) lookup(m persist.Map[V], k string) (string, V, bool) {
	if !c.m.Same(m) {
		clear(c.keys[:])
		clear(c.vals[:])
		c.m, c.full = m, 0
	}
	i := lookupSlot(k)
	if c.full&(1<<i) != 0 && c.keys[i] == k {
		return c.keys[i], c.vals[i], true
	}
	key, v, ok := m.Lookup(k)
	if ok {
		c.keys[i], c.vals[i] = key, v
		c.full |= 1 << i
	}
	return key, v, ok
}

// A stream is where the deltas of one streaming text or reasoning message
// go, remembered by a Builder so that the next delta into it skips every
// lookup. It stays valid while the maps that verified the last delta (the
// open entities of its kind, the tags attributed in the run) hold the same
// entries for its id and its opener's tag (the same versions, or later ones
// that left those entries alone), and the node is still the stored one,
// changed in place since the last view handed out: the fold of the next
// delta then comes down to appending its text (see Builder.streamed).
type stream = streamAt[model.Open]

// streamAt is a stream into an entity whose open map holds V.
type streamAt[V any] struct {
	open     persist.Map[V]
	attr     persist.Map[struct{}]
	openRef  persist.Ref // the entry open holds for id
	attrRef  persist.Ref // the entry attr holds for the owner's tag (zero: not attributed)
	id       string      // as the open map stores it
	owner    model.Owner // the entity's opener, whose tag alone a tagged delta may carry
	node     *model.Inv
	key, pos int
}

// target returns the stream's node when the stream, found by d's id, still
// takes d, a delta into an entity of the kind the open map open holds; nil
// otherwise. It checks all that the full fold of d checks before changing
// anything (the run, the chunk lanes, the entity's entry, d's tag: see
// admits and R15), and that the node is the stored one, which the Builder
// may change in place.
func (s *streamAt[V]) target(b *Builder, d delta, open persist.Map[V]) *model.Inv {
	if s.node == nil || !b.owned {
		return nil
	}
	st := state(b.cur)
	c := st.Cold
	if c.Rest.Phase != model.PhaseActive || c.RunScope.Lanes.Len() != 0 {
		return nil
	}
	if !s.open.Same(open) {
		// Another entity opened or closed: this one's entry may be the same.
		if open.Ref(d.id) != s.openRef {
			return nil
		}
		s.open = open
	}
	if d.tag.Sub {
		// A tagged delta must carry its opener's tag (R15), attributed in
		// this run; an untagged one agrees with any opener.
		if d.tag != s.owner || s.attrRef == (persist.Ref{}) {
			return nil
		}
		if attr := c.RunScope.Attributed; !s.attr.Same(attr) {
			if attr.Ref(d.tag.ID) != s.attrRef {
				return nil
			}
			s.attr = attr
		}
	}
	n := st.Root
	if s.key >= 0 {
		n = st.Inv(s.key)
	}
	if n != s.node || n.Data().Version <= b.frozen {
		return nil
	}
	return n
}

// set remembers the entity id (as open stores it), open with owner at loc,
// in the Builder's current view.
func (s *streamAt[V]) set(b *Builder, open persist.Map[V], id string, owner model.Owner, loc model.Loc) {
	st := state(b.cur)
	attr := st.Cold.RunScope.Attributed
	var attrRef persist.Ref
	if owner.Sub {
		attrRef = attr.Ref(owner.ID)
	}
	n := st.Root
	if loc.Inv >= 0 {
		n = st.Inv(loc.Inv)
	}
	*s = streamAt[V]{open: open, attr: attr, openRef: open.Ref(id), attrRef: attrRef,
		id: id, owner: owner, node: n, key: loc.Inv, pos: loc.Pos}
}

// streams are a Builder's remembered streams: text and reasoning messages,
// and tool call arguments, each kind in a set-associative table (a swarm
// streams a few dozen entities at once; with one slot per hash, two of them
// sharing a slot would evict each other at every delta).
type streams struct {
	text, rsn streamTable[stream]
	args      streamTable[argStream]
}

// A streamTable remembers the streams (S: stream or argStream) of one kind
// of entity, by the entity's id.
type streamTable[S any] [streamSets]struct {
	ways  [streamWays]S
	index wayIndex
}

// An argStream is a stream into a tool call's arguments, plus the message
// and call objects the Builder's last fold of a delta into it made (at step
// made), which no view handed out can reach while made is after the last
// one handed out: the next delta appends to the call's arguments in place
// (see Builder.streamedArgs).
type argStream struct {
	streamAt[model.OpenCall]
	msg  *model.Msg
	call *model.Call
	idx  int
	made uint64
}

// streamSets and streamWays shape the stream tables: room for the entities
// a swarm streams at once.
const (
	streamSets = 16
	streamWays = 4
)

// A wayIndex says which ways of a set hold a stream, and for which id (as
// the view stores it: never a string over the wire bytes), with the id's
// hash, compared first: generated ids tend to have one length, so that
// comparing the strings alone would compare their bytes at every way.
type wayIndex struct {
	ids    [streamWays]string
	hashes [streamWays]uint32
	used   uint8 // bit w: way w holds a stream
	next   uint8 // the way to evict next when all are used
}

// find returns the way that holds id, whose hashID is h, or -1.
func (x *wayIndex) find(id string, h uint) int {
	for w := range streamWays {
		if x.used&(1<<w) != 0 && x.hashes[w] == uint32(h) && x.ids[w] == id {
			return w
		}
	}
	return -1
}

// claim returns the way to remember a stream for id, whose hashID is h, in:
// the one that holds id, else a free one, else the next in turn.
func (x *wayIndex) claim(id string, h uint) int {
	w := x.find(id, h)
	if w < 0 {
		for w = 0; w < streamWays && x.used&(1<<w) != 0; w++ {
		}
		if w == streamWays {
			w = int(x.next)
			x.next = (x.next + 1) % streamWays
		}
	}
	x.ids[w], x.hashes[w] = id, uint32(h)
	x.used |= 1 << w
	return w
}

// drop forgets way w.
func (x *wayIndex) drop(w int) {
	x.ids[w] = ""
	x.used &^= 1 << w
}

// table returns the table of streams for deltas of type t (text or
// reasoning), or nil.
func (s *streams) table(t event.Type) *streamTable[stream] {
	switch t {
	case event.TypeTextMessageContent:
		return &s.text
	case event.TypeReasoningMessageContent:
		return &s.rsn
	}
	return nil
}

// find returns the stream remembered for entity id, or nil.
func (t *streamTable[S]) find(id string) *S {
	h := hashID(id)
	set := &t[h%streamSets]
	if w := set.index.find(id, h); w >= 0 {
		return &set.ways[w]
	}
	return nil
}

// forget drops the stream remembered for id, if any.
func (t *streamTable[S]) forget(id string) {
	h := hashID(id)
	set := &t[h%streamSets]
	if w := set.index.find(id, h); w >= 0 {
		set.index.drop(w)
		var zero S
		set.ways[w] = zero
	}
}

// put remembers s as the stream for the entity id (as the view stores it:
// never a string over the wire bytes), in the way that held id, else a free
// one, else the next in turn, whose stream it evicts. s must be for id:
// find, and streamAt.target after it, rely on the way's stream being the
// one its index names.
func (t *streamTable[S]) put(id string, s S) {
	h := hashID(id)
	set := &t[h%streamSets]
	set.ways[set.index.claim(id, h)] = s
}

// lookupSlot picks the slot of k.
func lookupSlot(k string) uint { return hashID(k) % lookupSlots }

// hashID hashes an id for the caches: its length and its last eight bytes
// (where generated ids differ), mixed by one multiplication.
func hashID(k string) uint {
	var x uint64
	if n := len(k); n >= 8 {
		x = binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(k[n-8:]), 8))
	} else {
		for i := 0; i < n; i++ {
			x = x<<8 | uint64(k[i])
		}
	}
	x = (x ^ uint64(len(k))) * 0x9E3779B97F4A7C15
	return uint(x >> 32)
}

// foldIn folds d into f's private state in place. It reports false, having
// changed nothing, when the full path must decide (a refusal or a warning).
func (f *folder) foldIn(d delta, text string) bool {
	t, id, tag := d.t, d.id, d.tag
	f.wire, f.cur = t, t
	f.index = f.st.Events
	f.step = f.st.Step + 1
	var viol *Violation
	switch t {
	case event.TypeTextMessageContent:
		viol = f.msgContent(textMsgs, id, text, tag, nil)
	case event.TypeReasoningMessageContent:
		viol = f.msgContent(reasoningMsgs, id, text, tag, nil)
	case event.TypeToolCallArgs:
		viol = f.toolArgs(id, text, tag, nil)
	default:
		return false
	}
	if viol != nil || len(f.diags) > 0 {
		// The handlers check before they change anything: nothing to undo.
		f.diags = f.diags[:0]
		return false
	}
	f.st.Step = f.step
	f.st.Events++
	return true
}

// aliased returns b's bytes as a string without copying; b must not change
// while the string is in use.
func aliased(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
