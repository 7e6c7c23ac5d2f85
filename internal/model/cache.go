package model

import (
	"sync/atomic"

	"github.com/agview/agview/internal/persist"
)

// The memory tricks that make folding an event cheap, kept apart from the
// domain: slabs that views and hot groups are allocated from, the hot groups
// of recently changed invocation nodes, and a node's hot message (the one
// being changed, held out of the node's message vector until another is).

// slabSize is the number of objects in a slab: 63 and the slab's counter
// make a slab of hot groups 4040 bytes, in the 4096-byte size class, where
// 64 made it 4104, in the 4864-byte one (TestSizes).
const slabSize = 63

// slab hands out the objects of one allocation one at a time. Every fold
// needs a new view and, when a subagent's node changes, a new hot group:
// taking them from a slab spares the allocator, and the garbage collector's
// per-object work, two small objects per event.
//
// Element i belongs to whoever advanced next past i, so folds running at
// the same time from the same view never share one, and a fold from an older
// view simply takes the next free element. The owner writes its element
// before publishing the object and never after; the elements no one has
// claimed are zero and unseen. A slab stays reachable while any of its
// objects is, and keeps alive what its other objects reference: at most
// slabSize folds' worth of superseded views or groups, a bound whatever the
// length of the stream.
type slab[T any] struct {
	next  atomic.Int32
	items [slabSize]T
}

// claim returns an unused element of s, or nil when s is nil or used up.
func (s *slab[T]) claim() *T {
	if s == nil || s.next.Load() >= slabSize {
		return nil
	}
	if i := s.next.Add(1) - 1; i < slabSize {
		return &s.items[i]
	}
	return nil
}

// slabs are the slabs a stream's states allocate from, and the arena its
// short strings are copied into. It is never written once a state points
// to it, but for its arena's atomic claims: replacing a used-up slab makes
// a new slabs.
type slabs struct {
	views  *slab[View]
	groups *slab[hotGroup]
	// strs is the arena of the stream's message ids and short texts (see
	// State.Strings). A slabs made from none has a new one, so streams
	// folded from one empty view each have their own; a slabs made from
	// another has one split from that one's (see persist.Arena.Split), which
	// goes on filling the same chunk, then chunks of its own. Versions that
	// fork from one published view share its slabs until their view slab is
	// used up (at most slabSize folds), then each makes slabs of its own: a
	// fork's strings share chunks with another's for that long only, and a
	// fork kept does not keep alive the strings of the forks dropped.
	strs persist.Arena
	// born is the step of the state that made a detached slabs: detached
	// states have no view slab to use up, so a detached slabs is replaced
	// by a copy with its arena split once it is slabSize folds old (see
	// aged), for the same bound.
	born uint64
	// detached: the states allocate their views one at a time, never from a
	// slab (see View.Detached); views is nil.
	detached bool
}

// newSlabs returns slabs whose arena is split from m's, or new when m is
// nil.
func newSlabs(m *slabs) *slabs {
	c := new(slabs)
	if m != nil {
		c.strs.Split(&m.strs)
		c.born = m.born
	}
	return c
}

// aged returns m, detached, for a state of the given step: m itself, or a
// copy of it with its arena split when m is slabSize folds old or more.
func (m *slabs) aged(step uint64) *slabs {
	if step < m.born+slabSize {
		return m
	}
	c := newSlabs(m)
	c.groups, c.detached, c.born = m.groups, true, step
	return c
}

// Strings returns the arena the stream's short strings are copied into
// (see persist.Arena), or nil when s has never been folded into (nil
// clones each string on its own).
func (s *State) Strings() *persist.Arena {
	if s.mem == nil {
		return nil
	}
	return &s.mem.strs
}

func (m *slabs) viewSlab() *slab[View] {
	if m == nil {
		return nil
	}
	return m.views
}

func (m *slabs) groupSlab() *slab[hotGroup] {
	if m == nil {
		return nil
	}
	return m.groups
}

// withViews returns a copy of m with the view slab s.
func (m *slabs) withViews(s *slab[View]) *slabs {
	c := newSlabs(m)
	c.views = s
	if m != nil {
		c.groups = m.groups
	}
	return c
}

// detach returns m detached, for a state of the given step: without its
// view slab, and allocating views one at a time from then on (m itself
// when it is detached already, unless it has aged).
func (m *slabs) detach(step uint64) *slabs {
	if m != nil && m.detached {
		return m.aged(step)
	}
	c := newSlabs(m)
	c.detached, c.born = true, step
	if m != nil {
		c.groups = m.groups
	}
	return c
}

// RetireSlabs gives s, a private copy about to be published, slabs of its
// own, with no view or hot group taken yet: the folds from it take their
// views and groups from new slabs, so that the superseded views and groups
// the current slabs hold, and everything they reference, can be collected
// once nothing else holds them. A fold that brought a bulky part into the
// view (a snapshot, a large patch) calls it: a slab would otherwise keep up
// to slabSize folds' worth of such parts alive, the replaced ones included.
func (s *State) RetireSlabs() {
	m := s.mem
	if m == nil {
		return
	}
	c := newSlabs(m)
	c.detached = m.detached
	s.mem = c
}

// withGroups returns a copy of m with the group slab s.
func (m *slabs) withGroups(s *slab[hotGroup]) *slabs {
	c := newSlabs(m)
	c.groups = s
	if m != nil {
		c.views, c.detached = m.views, m.detached
	}
	return c
}

const (
	hotGroups = 4
	hotGroup8 = 8
	hotInvs   = hotGroups * hotGroup8
)

type hotGroup [hotGroup8]*Inv

func (s *State) hotAt(key int) *Inv {
	slot := key % hotInvs
	if g := s.hot[slot/hotGroup8]; g != nil {
		if h := g[slot%hotGroup8]; h != nil && int(h.d.Key) == key {
			return h
		}
	}
	return nil
}

// SetInvs stores the nodes ns (each under its Key); s must be a private
// copy. A node that leaves the hot groups is written back to the rest of
// the cold part: rest returns it as a private copy (copying it on first
// use), and is called only then.
func (s *State) SetInvs(rest func() *Rest, ns ...*Inv) {
	var copied [hotGroups]bool
	for _, n := range ns {
		key := int(n.d.Key)
		slot := key % hotInvs
		gi := slot / hotGroup8
		if !copied[gi] {
			g := s.newGroup()
			if s.hot[gi] != nil {
				*g = *s.hot[gi]
			}
			s.hot[gi] = g
			copied[gi] = true
		}
		p := &s.hot[gi][slot%hotGroup8]
		if h := *p; h != nil && h.d.Key != n.d.Key {
			r := rest()
			r.invs = r.invs.Set(int(h.d.Key), h)
		}
		*p = n
	}
}

// newGroup returns a fresh hot group from the group slab; s must be a
// private copy.
func (s *State) newGroup() *hotGroup {
	if g := s.mem.groupSlab().claim(); g != nil {
		return g
	}
	s.mem = s.mem.withGroups(new(slab[hotGroup]))
	return s.mem.groups.claim()
}

// hasHot reports whether a message is hot.
func (d *InvData) hasHot() bool { return d.hot != nil || d.textHot }

// stored returns the latest stored version of message pos, without the
// streamed text a hot message may have on top.
func (d *InvData) stored(pos int) *Msg {
	if d.hot != nil && int(d.HotPos) == pos {
		return d.hot
	}
	return d.Msgs.At(pos)
}

// setMsg stores m at position pos of d's message vector: by an append when
// pos is the pending hot message's (see InvData), which it then no longer is.
func (d *InvData) setMsg(pos int, m *Msg) {
	var v persist.Vector[*Msg]
	if d.pending && int(d.HotPos) == pos {
		if d.Msgs != nil {
			v = *d.Msgs
		}
		v = v.Append(m)
		d.pending = false
	} else {
		v = d.Msgs.Set(pos, m)
	}
	d.Msgs = &v
}

// writeBack stores the hot message into the vector; d has one.
func (d *InvData) writeBack() {
	pos := int(d.HotPos)
	m := d.stored(pos)
	if d.textHot {
		c := *m
		c.Text, c.HasText = d.hotText, true
		m = &c
	}
	d.setMsg(pos, m)
	d.hot, d.textHot, d.hotText = nil, false, persist.Text{}
}

// SetMsg stores a copy of m (nil: a hole) at position pos of the node's
// messages; i must not be published yet. The copy becomes the node's hot
// message, so that a run of changes to one message allocates one message
// each and copies no vector path; the previous hot message, if another, is
// written back to the vector.
func (i *Inv) SetMsg(pos int, m *Msg) {
	d := &i.d
	if d.hasHot() && int(d.HotPos) != pos {
		d.writeBack()
	}
	d.textHot, d.hotText = false, persist.Text{}
	if m == nil {
		d.hot = nil
		d.setMsg(pos, nil)
		return
	}
	c := *m
	d.hot, d.HotPos = &c, int32(pos)
}

// HotMsg returns the node's hot message and its position when one is hot
// and its content is not streaming text (see InvData): the message stored
// last with SetMsg. Clone shares it: a clone's hot message may be reachable
// from the node it was cloned from, and so from published views.
func (d *InvData) HotMsg() (*Msg, int, bool) {
	if d.hot == nil || d.textHot {
		return nil, 0, false
	}
	return d.hot, int(d.HotPos), true
}

// Appendable reports whether AppendText at pos changes the node alone: the
// message at position pos is the hot one and its content is text (hot text
// streaming, or the text of the message stored last with SetMsg or
// AppendMsg), and returns its id.
func (d *InvData) Appendable(pos int) (id string, ok bool) {
	if int(d.HotPos) != pos || !d.textHot && (d.hot == nil || !d.hot.HasText) {
		return "", false
	}
	return d.stored(pos).ID, true
}

// AppendText appends a streamed delta to the text content of the message at
// position pos of the node's messages, which must hold one whose content is
// text or absent (it is text afterwards); i must not be published yet. The
// text becomes the node's hot text: a run of deltas into one message copies
// no message. The previous hot message, if another, is written back to the
// vector.
func (i *Inv) AppendText(pos int, delta string) {
	d := &i.d
	if d.textHot && int(d.HotPos) == pos {
		d.hotText = d.hotText.Append(delta)
		return
	}
	if d.hasHot() && int(d.HotPos) != pos {
		d.writeBack()
	}
	d.hotText = d.stored(pos).Text.Append(delta)
	d.HotPos, d.textHot = int32(pos), true
}
