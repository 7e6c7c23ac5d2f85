// Package model is the data behind a view.View: every value the view answers
// from and every piece of verifier bookkeeping the reducer needs (open
// entities, owners, chunk lanes, steps, runs), held in persistent collections
// so that folding an event copies only the paths it changes.
//
// Package view defines View and Invocation as defined types of the View and
// Inv types here, so that the reducer (which imports both) can convert a
// *view.View to a *model.View and build the next one, while users of package
// view see only its read methods: the methods declared here are not part of
// the defined types' method sets, and the single field of View and Inv is
// unexported.
//
// # Immutability
//
// A State reachable from a published View is never written again. The
// reducer copies the State struct (nine words), replaces the persistent
// collections it changes with updated versions and publishes a new View. Msg,
// Call, InvData and Run values reachable from a published View are likewise
// never written: they are copied, changed and stored anew.
//
// # Cost of a streamed delta
//
// The event that dominates real streams, a text delta into a subagent's open
// message, makes three small objects: the view (from a slab), the changed
// invocation node (one cache line, with the message's streamed text on top
// of its stored version: see InvData) and the node's hot group (from a
// slab). The text itself is appended in place to a shared buffer
// (persist.Text), and no message, vector path or map path is copied.
//
// # Concurrency
//
// Values are immutable once published, so any number of goroutines may read
// them without locks. The reducer may fold from one view in several
// goroutines at once: the slabs it allocates from hand each element to one
// of them only.
package model

import (
	"encoding/json"
	"sync/atomic"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/persist"
	"github.com/agview/agview/patch"
)

// View is an immutable fold of a stream: package view's View is a defined
// type of it.
type View struct{ st State }

// NewView returns a View holding st. st must not be written afterwards.
func NewView(st State) *View { return &View{st: st} }

// Next returns a new, unpublished view holding a copy of v's state, for the
// caller to change and then publish. The view comes from the stream's view
// slab (see slab): folding an event costs no allocation for the view itself.
func (v *View) Next() *View {
	m := v.st.mem
	nv := m.viewSlab().claim()
	if nv == nil {
		m = m.withViews(new(slab[View]))
		nv = m.views.claim()
	}
	nv.st = v.st
	nv.st.mem = m
	return nv
}

// Detached returns a new, unpublished view holding a copy of v's state, as
// Next does, but allocated on its own rather than from the stream's view
// slab, so that it keeps alive only what its state references.
func (v *View) Detached() *View { return &View{st: v.st} }

// slabSize is the number of objects in a slab.
const slabSize = 64

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

// slabs are the slabs a stream's states allocate from. It is never written
// once a state points to it: replacing a used-up slab makes a new slabs.
type slabs struct {
	views  *slab[View]
	groups *slab[hotGroup]
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
	c := &slabs{views: s}
	if m != nil {
		c.groups = m.groups
	}
	return c
}

// withGroups returns a copy of m with the group slab s.
func (m *slabs) withGroups(s *slab[hotGroup]) *slabs {
	c := &slabs{groups: s}
	if m != nil {
		c.views = m.views
	}
	return c
}

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

// Phase is where the stream is in the run lifecycle (docs/protocol.md V1–V4).
type Phase uint8

// Phases.
const (
	PhaseNone     Phase = iota // no run yet: only RUN_STARTED or RUN_ERROR may come
	PhaseActive                // a run is running
	PhaseFinished              // the last run finished: RUN_STARTED or RUN_ERROR may come
	PhaseErrored               // the last run errored: only RUN_STARTED may come
)

// Run statuses; package view exposes them as typed constants with the same
// strings.
const (
	RunRunning     = "running"
	RunFinished    = "finished"
	RunErrored     = "errored"
	RunInterrupted = "interrupted"
	RunIncomplete  = "incomplete"
	RunCancelled   = "cancelled"
	RunFailed      = "failed"
)

// InvStatus is an invocation's status (one byte: nodes are copied on every
// streamed delta).
type InvStatus uint8

// Invocation statuses.
const (
	InvUnannounced InvStatus = iota
	InvRunning
	InvFinished
	InvSuspended
	InvErrored
	InvAbandoned
)

var invStatusNames = [...]string{"unannounced", "running", "finished", "suspended", "errored", "abandoned"}

// String returns the status as package view spells it.
func (s InvStatus) String() string { return invStatusNames[s] }

// EntStatus is the status of a message, tool call, step or span.
type EntStatus uint8

// Entity statuses. EntHistory marks what arrived complete (history,
// snapshots); package view reports it as closed.
const (
	EntHistory EntStatus = iota
	EntOpen
	EntClosed
	EntAbandoned
)

var entStatusNames = [...]string{"closed", "open", "closed", "abandoned"}

// String returns the status as package view spells it.
func (s EntStatus) String() string { return entStatusNames[s] }

// Owner names who produced or owns something: the parent agent (Sub false)
// or the subagent invocation ID (Sub true; "" is a legal id). As an event's
// tag, the zero Owner means "untagged".
type Owner struct {
	Sub bool
	ID  string
}

// Parent is the parent agent.
var Parent = Owner{}

// OwnerOf returns the owner named by an optional tag.
func OwnerOf(id string, ok bool) Owner { return Owner{Sub: ok, ID: id} }

// Key returns a map key for o, distinct for every owner.
func (o Owner) Key() string {
	if !o.Sub {
		return ""
	}
	return "\x01" + o.ID
}

// Tag returns o as an optional subagentRunId: nil for the parent agent.
func (o Owner) Tag() *string {
	if !o.Sub {
		return nil
	}
	id := o.ID
	return &id
}

// Describe names o for messages: "subagent 'x'" or "the parent agent".
func (o Owner) Describe() string {
	if !o.Sub {
		return "the parent agent"
	}
	return "subagent '" + o.ID + "'"
}

// Quoted names o as the reference's error texts do: 'x' or '(the parent agent)'.
func (o Owner) Quoted() string {
	if !o.Sub {
		return "'(the parent agent)'"
	}
	return "'" + o.ID + "'"
}

// Kind is the kind of a message for the rule "one id, one message"
// (docs/protocol.md G7).
type Kind uint8

// Message kinds.
const (
	KindText      Kind = iota + 1 // developer, system, assistant, user
	KindReasoning                 // reasoning
	KindTool                      // tool result
	KindActivity                  // activity
)

// KindOf returns the kind of a message role.
func KindOf(r event.Role) Kind {
	switch r {
	case event.RoleReasoning:
		return KindReasoning
	case event.RoleTool:
		return KindTool
	case event.RoleActivity:
		return KindActivity
	}
	return KindText
}

// String names the kind for messages.
func (k Kind) String() string {
	switch k {
	case KindReasoning:
		return "reasoning message"
	case KindTool:
		return "tool result message"
	case KindActivity:
		return "activity message"
	}
	return "text message"
}

// OwnerRec is a recorded message owner with the kind of message it was
// recorded for.
type OwnerRec struct {
	Owner Owner
	Kind  Kind
	// Replayed: recorded from history (MESSAGES_SNAPSHOT, RUN_STARTED.input),
	// which the reference records for every kind of message.
	Replayed bool
}

// Loc locates a message: the invocation node holding it (-1: the root) and
// its position in that node's message vector.
type Loc struct {
	Inv int
	Pos int
}

// CallLoc locates a tool call: the id of the message holding it and its
// index in that message's calls. A message's calls are only ever appended
// to, so the index stays right while the message holds the call.
type CallLoc struct {
	Msg string
	Idx int
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

// RunScope is the verifier bookkeeping that resets at every RUN_STARTED
// (docs/protocol.md V5): open entities, steps, subagent lifecycle, chunk lanes.
type RunScope struct {
	OpenText  persist.Map[Open]     // text message id → owner, where
	OpenTool  persist.Map[OpenCall] // tool call id → owner, where
	OpenRsn   persist.Map[Open]     // reasoning message id → owner, where
	OpenSpan  persist.Map[SpanLoc]  // reasoning span id → owner, record
	OpenSteps persist.Map[StepLoc]  // owner key + "\x00" + name → step

	Active     persist.Map[int]      // active subagent id → node
	Closed     persist.Map[struct{}] // ids finished, suspended or errored in this run
	Started    persist.Map[struct{}] // ids started in this run
	Attributed persist.Map[struct{}] // ids some attributable event carried in this run

	Lanes persist.Map[Lane] // owner key → pending chunk stream
}

// Thinking is the translation state of the deprecated THINKING_* events
// (docs/protocol.md §3.8): the ids minted for the open span and message.
type Thinking struct {
	Span    string
	SpanSet bool
	Msg     string
	MsgSet  bool
}

// Diag is one diagnostic.
type Diag struct {
	Index   int
	Kind    string // "violation" or "warning"
	Rule    string
	Type    event.Type
	Message string
}

// ErrorInfo is an error report (RUN_ERROR, SUBAGENT_ERROR, a broken stream).
type ErrorInfo struct {
	Message string
	Code    *string
}

// Run is one run of the stream.
type Run struct {
	ThreadID    string
	RunID       string
	ParentRunID *string
	Implicit    bool // opened by a RUN_ERROR with no RUN_STARTED
	Status      string
	Outcome     *event.RunFinishedOutcome
	Result      json.RawMessage
	Err         *ErrorInfo
	Interrupts  []event.Interrupt
	Usage       []event.TokenUsage // RUN_FINISHED's or RUN_ERROR's usage; nil when absent
	Start       int                // index of the event that opened it
	End         int                // index of the event that closed it, -1 while open
}

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

	mem *slabs // where the next fold takes its view and hot groups from
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

// NInvs returns the number of subagent nodes.
func (s *State) NInvs() int { return s.Cold.invs.Len() }

// Inv returns subagent node key (0 ≤ key < NInvs).
func (s *State) Inv(key int) *Inv {
	if h := s.hotAt(key); h != nil {
		return h
	}
	return s.Cold.invs.At(key)
}

// SetInvs stores the nodes ns (each under its Key); s must be a private
// copy. A node that leaves the hot groups is written back to the cold part:
// cold returns it as a private copy (copying it on first use), and is
// called only then.
func (s *State) SetInvs(cold func() *Cold, ns ...*Inv) {
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
			c := cold()
			c.invs = c.invs.Set(int(h.d.Key), h)
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

// AppendInv adds node n as the last subagent node and returns its key; s
// and s.C must be private copies.
func (s *State) AppendInv(n *Inv) int {
	key := s.Cold.invs.Len()
	n.d.Key = int32(key)
	s.Cold.invs = s.Cold.invs.Append(n)
	return key
}

// EachInv calls fn for each subagent node in first-seen order until fn
// returns false.
func (s *State) EachInv(fn func(*Inv) bool) {
	for key, n := range s.Cold.invs.All() {
		if h := s.hotAt(key); h != nil {
			n = h
		}
		if !fn(n) {
			return
		}
	}
}

// Cold is the part of a State most events leave alone.
type Cold struct {
	// Stamp is the step of the fold that made this copy: a Builder changes
	// in place a Cold stamped after the last view it handed out.
	Stamp uint64
	Ended bool
	// Thread is the threadId of the last run input folded (reducer.Input):
	// the client's own thread, which the stream's RUN_STARTED may not name.
	Thread string

	Phase Phase
	Runs  persist.Vector[Run]
	Scope RunScope

	// Messages: the AG-UI list in order, where each message lives, which
	// message holds each tool call.
	Order   persist.Seq
	MsgLoc  persist.Map[Loc]
	CallLoc persist.Map[CallLoc] // tool call id → where it is held
	// ResultAfter: assistant message id → the last tool result inserted
	// after it (a hint: the tool messages up to it follow the message).
	ResultAfter persist.Map[string]

	// Owners, kept for the whole stream (docs/protocol.md G6).
	MsgOwner  persist.Map[OwnerRec]
	CallOwner persist.Map[Owner]
	SpanOwner persist.Map[Owner]

	InvIDs persist.Map[int] // subagent id → its latest node
	// invs are the subagent nodes by key, stale for the keys in State.hot.
	invs persist.Vector[*Inv]

	Doc     patch.Document // the run-scoped state
	DocBy   Owner          // who last changed it (provenance)
	DocSet  bool           // DocBy is meaningful
	Pending []event.Interrupt

	Diags     persist.Vector[Diag]
	Violating int // violations recorded
	Thinking  Thinking
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
// copies no message at all. Read messages with MsgAt, Msg and EachMsg;
// change them with Inv.SetMsg, Inv.AppendText and AppendMsg.
type InvData struct {
	Key     int32 // position among the subagent nodes; -1 for the root
	HotPos  int32
	Status  InvStatus
	textHot bool
	Version uint64
	Msgs    *persist.Vector[*Msg]
	hot     *Msg
	Info    *InvInfo
	hotText persist.Text
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

// setMsg stores m at position pos of d's message vector.
func (d *InvData) setMsg(pos int, m *Msg) {
	v := d.Msgs.Set(pos, m)
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

// Streaming reports whether the message at position pos of d's messages is
// the hot one and its content streamed text (hot text), and returns its id.
// AppendText at pos then only appends to that text.
func (d *InvData) Streaming(pos int) (id string, ok bool) {
	if !d.textHot || int(d.HotPos) != pos {
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

// AppendMsg adds m after d's messages and returns its position; d must be a
// private copy.
func (d *InvData) AppendMsg(m *Msg) int {
	var v persist.Vector[*Msg]
	if d.Msgs != nil {
		v = *d.Msgs
	}
	pos := v.Len()
	v = v.Append(m)
	d.Msgs = &v
	return pos
}

// EachMsg calls fn for each message of d in creation order, skipping the
// moved and removed ones, until fn returns false.
func (d *InvData) EachMsg(fn func(*Msg) bool) {
	if d.Msgs == nil {
		return
	}
	for i, m := range d.Msgs.All() {
		if d.hasHot() && i == int(d.HotPos) {
			m = d.MsgAt(i)
		}
		if m != nil && !fn(m) {
			return
		}
	}
}

// InvInfo is the part of an invocation that streamed deltas leave alone.
type InvInfo struct {
	ID          string
	Root        bool
	Announced   bool
	Name        *string
	Description *string
	ParentSub   *string
	ParentKey   int // the parent node (-1: the root)
	ParentTool  *string
	ParentMsg   *string
	Outcome     *event.SubagentOutcome
	Result      json.RawMessage
	Err         *ErrorInfo
	Children    persist.Vector[string] // ids of the invocations it spawned, in start order
	Steps       persist.Vector[Step]
	Spans       persist.Vector[Span]
	Run         int // the run the node was first seen in (started, attributed or in history)
	First       int // index of the event that first named it
}

// Step is one step of an invocation.
type Step struct {
	Name   string
	Status EntStatus
	Run    int
	Start  int
	End    int // -1 while open
}

// Span is one reasoning span (REASONING_START … REASONING_END).
type Span struct {
	ID     string
	Status EntStatus
	Start  int
	End    int
}

// MetaEntry is one member of a metadata object, in insertion order.
type MetaEntry struct {
	Key string
	Val json.RawMessage
}

// Meta is a metadata object kept in insertion order; nil means absent. A
// Meta reachable from a published view is never written: merging copies.
type Meta []MetaEntry

// Msg is one message of the AG-UI list plus what the view adds (status).
// The fields streamed deltas change are held directly; the rest is behind Info.
type Msg struct {
	ID   string
	Role event.Role

	// Content: Text when it is a string (HasText); otherwise Info.Doc for an
	// activity, Info.Raw for an array of parts; all unset = absent.
	Text    persist.Text
	HasText bool
	Status  EntStatus

	// HasCalls: the toolCalls key is present (it may be empty). Calls are an
	// assistant message's tool calls (see CallList).
	HasCalls bool
	Calls    CallList

	Info *MsgInfo
}

// MsgInfo is the part of a message that streamed deltas leave alone.
type MsgInfo struct {
	Tag            *string // the message's subagentRunId
	Name           *string
	Doc            patch.Document
	HasDoc         bool
	Raw            json.RawMessage
	ToolCallID     *string
	Error          *string
	ActivityType   *string
	EncryptedValue *string
	Meta           Meta
}

// plainInfo is the info of every untagged message that has no name,
// metadata or other member: most streamed messages. It is shared and, like
// any MsgInfo reachable from a view, never written (changes go through
// WithInfo), so such a message costs no info of its own.
var plainInfo = &MsgInfo{}

// InfoOf returns the info of a new message with the given tag, name and
// metadata: the shared plainInfo when it has none of them.
func InfoOf(tag, name *string, meta json.RawMessage) *MsgInfo {
	if tag == nil && name == nil && meta == nil {
		return plainInfo
	}
	return &MsgInfo{Tag: tag, Name: name, Meta: MetaOf(meta)}
}

// Kind returns the message's kind.
func (m *Msg) Kind() Kind { return KindOf(m.Role) }

// WithInfo returns a copy of m whose info is a private copy the caller may
// change before publishing.
func (m *Msg) WithInfo() *Msg {
	c := *m
	i := *m.Info
	c.Info = &i
	return &c
}

// Call is one tool call held by an assistant message, plus what the view
// adds. Arguments stream into Args; the rest is behind Info.
type Call struct {
	ID     string
	Name   string
	Args   persist.Text
	Status EntStatus
	Info   *CallInfo
}

// CallInfo is the part of a tool call that streamed arguments leave alone.
type CallInfo struct {
	EncryptedValue *string
	Meta           Meta
	Owner          Owner
	Result         string          // id of the tool message answering it
	HasResult      bool            // a TOOL_CALL_RESULT answered it
	ResultContent  json.RawMessage // that message's content, as sent
	Spawned        []string        // subagent ids it spawned (immutable, copied on write)
	Start          int
}

// WithInfo returns a copy of c whose info is a private copy the caller may
// change before publishing.
func (c *Call) WithInfo() *Call {
	d := *c
	i := *c.Info
	d.Info = &i
	return &d
}

// CloneUsage returns a deep copy of token usage entries (nil stays nil).
func CloneUsage(in []event.TokenUsage) []event.TokenUsage {
	if in == nil {
		return nil
	}
	out := make([]event.TokenUsage, len(in))
	for i, u := range in {
		for _, p := range []**string{&u.Provider, &u.Model} {
			if *p != nil {
				s := **p
				*p = &s
			}
		}
		for _, p := range []**int64{&u.InputTokens, &u.OutputTokens, &u.TotalTokens, &u.ReasoningTokens, &u.CachedInputTokens, &u.CacheWriteInputTokens} {
			if *p != nil {
				n := **p
				*p = &n
			}
		}
		out[i] = u
	}
	return out
}
