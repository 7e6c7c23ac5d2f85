package model

import (
	"iter"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/persist"
	"github.com/agview/agview/patch"
)

// A view's state: the counters, the invocation nodes and the cold part, and
// the read methods the view and the reducer use. How nodes and messages are
// kept cheap to change is in hot.go.

// View is an immutable fold of a stream: package view's View is a defined
// type of it.
type View struct{ st State }

// NewView returns a View holding st. st must not be written afterwards.
func NewView(st State) *View { return &View{st: st} }

// Next returns a new, unpublished view holding a copy of v's state, for the
// caller to change and then publish.
func (v *View) Next() *View { return &View{st: v.st} }

// Data returns the view's state. Callers must not write through it.
func (v *View) Data() *State { return &v.st }

// Inv is one invocation node of the tree: package view's Invocation is a
// defined type of it. A node is never written once published; a change makes
// a new node, so pointer equality between two views means "unchanged". A
// node is small (one cache line): a streamed delta copies it whole.
type Inv struct{ d InvData }

// NewInv returns a node holding d. d must not be written afterwards.
func NewInv(d InvData) *Inv { return &Inv{d: d} }

// Clone returns a private copy of i to change before publishing.
func (i *Inv) Clone() *Inv { return &Inv{d: i.d} }

// Data returns the node's data. Callers must not write through it.
func (i *Inv) Data() *InvData { return &i.d }

// State is everything a view holds. The fields that change on almost every
// event (counters and the recently changed invocation nodes) are held
// directly; the rest is behind Cold and copied only by the events that change
// it, so that folding a streamed delta copies a few words.
type State struct {
	Step   uint64 // folds so far (events, refusals, ends); versions derive from it
	Events int    // wire events seen

	// Invocations: the subagent nodes in first-seen order (Cold.invs; read them
	// with Inv and EachInv), and the root (the parent agent).
	//
	// hot holds recently changed nodes, direct-mapped by key in groups of
	// eight; Cold.invs is stale for a key whose node is here. Interleaved
	// subagents each change their node on every delta; keeping the latest
	// ones here costs copying one small group per event instead of a vector
	// path (and the cold part), whatever the number of invocations.
	hot  [hotGroups]*hotGroup
	Root *Inv

	Cold *Cold
}

// NInvs returns the number of subagent nodes.
func (s *State) NInvs() int { return s.Cold.Rest.invs.Len() }

// Inv returns subagent node key (0 ≤ key < NInvs).
func (s *State) Inv(key int) *Inv {
	if h := s.hotAt(key); h != nil {
		return h
	}
	return s.Cold.Rest.invs.At(key)
}

// Node returns the data of invocation node key: subagent node key (0 ≤ key
// < NInvs), or the root for -1. It is the Nodes the list readers take.
func (s *State) Node(key int) *InvData {
	if key < 0 {
		return s.Root.Data()
	}
	return s.Inv(key).Data()
}

// AppendInv adds node n as the last subagent node and returns its key; s
// and s.Cold.Rest must be private copies.
func (s *State) AppendInv(n *Inv) int {
	key := s.Cold.Rest.invs.Len()
	n.d.Key = int32(key)
	s.Cold.Rest.invs = s.Cold.Rest.invs.Append(n)
	return key
}

// EachInv calls fn for each subagent node in first-seen order until fn
// returns false.
func (s *State) EachInv(fn func(*Inv) bool) {
	for key, n := range s.Cold.Rest.invs.All() {
		if h := s.hotAt(key); h != nil {
			n = h
		}
		if !fn(n) {
			return
		}
	}
}

// InvData is one invocation: a subagent, or the root (the parent agent). The
// fields streamed events change are held directly; the rest is behind Info.
//
// Msgs are the messages tagged with this invocation, in creation order (nil:
// none yet); an entry is nil when its message moved or was removed. The
// vector is held by pointer to keep this struct small: it changes once per
// message, the struct once per event. One message, at HotPos, may be hot:
// its latest version is described here rather than stored in the vector,
// so that a run of changes to one message copies this struct and not a
// vector path. hot, when set, is that latest version (a message of its own,
// never written once published, shared by successive versions of the node);
// otherwise the vector entry is. When textHot is set, the message's content
// is hotText on top of that version: a streamed delta appends to hotText and
// copies no message at all. When pending is set, the hot message is the
// last one and has no entry in the vector yet: the message appended last
// stays out of the vector until another becomes hot, and then goes in by an
// append, which writes the vector's tail in place, rather than by a Set,
// which would copy it. Read messages with MsgAt, Msg, EachMsg and NumMsgs;
// change them with Inv.SetMsg, Inv.AppendText and AppendMsg.
type InvData struct {
	Key     int32 // position among the subagent nodes; -1 for the root
	HotPos  int32
	Status  InvStatus
	textHot bool
	pending bool // the hot message is at HotPos = Msgs' length (see above)
	Version uint64
	Msgs    *persist.Vector[*Msg]
	hot     *Msg
	Info    *InvInfo
	hotText persist.Text
}

// Msg returns the message at position pos of d's messages by value, and
// false when it moved or was removed. It does not allocate.
func (d *InvData) Msg(pos int) (Msg, bool) {
	m := d.stored(pos)
	if m == nil {
		return Msg{}, false
	}
	c := *m
	if d.textHot && int(d.HotPos) == pos {
		c.Text, c.HasText = d.hotText, true
	}
	return c, true
}

// MsgAt returns the message at position pos of d's messages (nil: moved or
// removed). Callers must not write through it. For a message whose text is
// streaming (hot text) it is a fresh copy.
func (d *InvData) MsgAt(pos int) *Msg {
	m := d.stored(pos)
	if m != nil && d.textHot && int(d.HotPos) == pos {
		c := *m
		c.Text, c.HasText = d.hotText, true
		return &c
	}
	return m
}

// Stored returns the latest stored version of the message at position pos
// of d's messages (nil: moved or removed), and whether streamed text sits on
// top of it (the message's content is then text: hot text, see InvData). It
// does not allocate; callers must not write through it.
func (d *InvData) Stored(pos int) (m *Msg, streaming bool) {
	return d.stored(pos), d.textHot && int(d.HotPos) == pos
}

// NumMsgs returns the number of positions of d's messages, the moved and
// removed ones included.
func (d *InvData) NumMsgs() int {
	n := 0
	if d.Msgs != nil {
		n = d.Msgs.Len()
	}
	if d.pending {
		n++
	}
	return n
}

// AppendMsg adds m after d's messages and returns its position; d must be a
// private copy, and m is not written afterwards. m becomes the hot message
// (see InvData); the previous hot message is written back to the vector.
func (d *InvData) AppendMsg(m *Msg) int {
	if d.hasHot() {
		d.writeBack()
	}
	pos := d.NumMsgs()
	d.hot, d.HotPos, d.pending = m, int32(pos), true
	return pos
}

// EachMsg calls fn for each message of d in creation order, skipping the
// moved and removed ones, until fn returns false.
func (d *InvData) EachMsg(fn func(*Msg) bool) {
	if d.Msgs != nil {
		for i, m := range d.Msgs.All() {
			if d.hasHot() && i == int(d.HotPos) {
				m = d.MsgAt(i)
			}
			if m != nil && !fn(m) {
				return
			}
		}
	}
	if d.pending {
		fn(d.MsgAt(int(d.HotPos)))
	}
}

// NewState returns the state of a new stream: root is the parent agent's
// node, doc the state document.
func NewState(root *Inv, doc patch.Document) State {
	return State{Root: root, Cold: NewCold(doc)}
}

// The read methods package view answers from: where a value lives in the
// state is known here only.

// Ended reports whether the end of the stream has been recorded.
func (s *State) Ended() bool { return s.Cold.Rest.Ended }

// NRuns returns the number of runs.
func (s *State) NRuns() int { return s.Cold.Rest.Runs.Len() }

// Runs iterates the runs in order.
func (s *State) Runs() iter.Seq[Run] { return s.Cold.Rest.Runs.Values() }

// LastRun returns the latest run, and false when there is none.
func (s *State) LastRun() (Run, bool) { return s.Cold.Rest.Runs.Last() }

// Thread returns the threadId of the last run input folded, "" when none
// named one.
func (s *State) Thread() string { return s.Cold.Rest.Thread }

// InvKey returns the key of the latest subagent node of id, and false when
// no event has named it.
func (s *State) InvKey(id string) (int, bool) { return s.Cold.Rest.InvIDs.Get(id) }

// ListLen returns the number of messages in the AG-UI list.
func (s *State) ListLen() int { return s.Cold.ListLen() }

// ListMsgs iterates the messages of the AG-UI list in order (see
// Cold.ListMsgs).
func (s *State) ListMsgs() iter.Seq2[Loc, *Msg] { return s.Cold.ListMsgs(s.Node) }

// ListedMsg returns the message id of the AG-UI list, nil when the list has
// none. Callers must not write through it.
func (s *State) ListedMsg(id string) *Msg {
	if !s.Cold.Listed(id) {
		return nil
	}
	return s.msgAt(id)
}

// CallMsg returns the message holding tool call id and the call's index in
// it, and false when no message holds it.
func (s *State) CallMsg(id string) (*Msg, int, bool) {
	holder, hint, ok := s.Cold.CallHolder(id)
	if !ok {
		return nil, 0, false
	}
	m := s.msgAt(holder)
	if m == nil {
		return nil, 0, false
	}
	if i := m.Calls().Find(id, hint); i >= 0 {
		return m, i, true
	}
	return nil, 0, false
}

// msgAt returns message id where it lives, nil when it lives nowhere.
func (s *State) msgAt(id string) *Msg {
	loc, ok := s.Cold.MsgLoc(id)
	if !ok {
		return nil
	}
	return s.Node(loc.Inv).MsgAt(loc.Pos)
}

// Doc returns the run-scoped state document.
func (s *State) Doc() patch.Document { return s.Cold.Rest.Doc }

// DocChangedBy returns who last changed the state document, and false when
// nothing has.
func (s *State) DocChangedBy() (Owner, bool) { return s.Cold.Rest.DocBy, s.Cold.Rest.DocSet }

// Pending returns the interrupts awaiting an answer. Callers must not write
// through it.
func (s *State) Pending() []event.Interrupt { return s.Cold.Rest.Pending }

// NDiags returns the number of diagnostics kept (see DiagsKept).
func (s *State) NDiags() int { return s.Cold.Rest.Diags.Len() }

// Diags iterates the diagnostics kept, in the order of the events they
// concern.
func (s *State) Diags() iter.Seq[Diag] { return s.Cold.Rest.Diags.All() }

// DiagsOmitted returns the number of diagnostics recorded but not kept.
func (s *State) DiagsOmitted() int { return s.Cold.Rest.Diags.Omitted() }

// Violations returns the number of refused events recorded.
func (s *State) Violations() int { return s.Cold.Rest.Violating }
