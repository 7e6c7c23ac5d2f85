package threads

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"sync"

	"github.com/agview/agview/client"
	"github.com/agview/agview/view"
)

// WireVersion is the version of the pane stream's wire format
// (docs/panes.md): the "v" of every snapshot and patch.
const WireVersion = 1

// SSE event names of GET /threads/{id}/events.
const (
	// EventSnapshot carries a thread's whole state (Snapshot): the first
	// event of a stream, and the event a viewer too far behind gets.
	EventSnapshot = "snapshot"
	// EventPatch carries what changed since the previous frame (Patch).
	EventPatch = "patch"
)

// Snapshot is the data of a snapshot event.
type Snapshot struct {
	V     int       `json:"v"`     // WireVersion
	Seq   uint64    `json:"seq"`   // the frame it shows
	Run   Header    `json:"run"`   // the header
	State State     `json:"state"` // the state
	Panes []Pane    `json:"panes"` // every pane, the root first, then in first-seen order
	_     [0]func() // not comparable
}

// Patch is the data of a patch event: frame Seq, from frame Seq-1.
type Patch struct {
	V     int             `json:"v"`               // WireVersion
	Seq   uint64          `json:"seq"`             // the frame it brings the viewer to
	Panes []PanePatch     `json:"panes,omitempty"` // the panes that changed, in tree order
	Run   json.RawMessage `json:"run,omitempty"`   // the Header, when it changed
	State json.RawMessage `json:"state,omitempty"` // the State, when it changed
}

// PanePatch is what changed in one pane: the pane whole (new, or rebuilt
// because its messages were replaced), or its meta when any of it changed
// and the operations on its items.
type PanePatch struct {
	Key  string          `json:"key"`
	Pane *Pane           `json:"pane,omitempty"`
	Meta json.RawMessage `json:"meta,omitempty"`
	Ops  []ItemOp        `json:"ops,omitempty"`
}

// paneState is what the hub last sent of one pane.
type paneState struct {
	key     string
	inv     *view.Invocation // the invocation it shows
	sent    *view.Invocation // the version of it last rendered
	meta    []byte
	ids     []string             // the invocation's message ids, as last seen
	at      map[string]int       // message id -> index in ids
	msgKeys map[string][]string  // message id -> its item keys
	items   map[string]*PaneItem // item key -> item
	order   []string             // item keys in order
	open    map[string]bool      // messages to look at again next time (open, or holding an open call)
	calls   map[string]string    // call id -> the message holding it
}

func newPaneState(key string) *paneState {
	return &paneState{key: key, at: map[string]int{}, msgKeys: map[string][]string{}, items: map[string]*PaneItem{}, open: map[string]bool{}, calls: map[string]string{}}
}

// ringEvent is a patch event kept for the viewers behind.
type ringEvent struct {
	seq uint64
	ev  []byte
}

// hub turns one thread's views into frames: a snapshot made on demand
// (once per frame, shared), and a patch per view holding only what changed,
// kept in a ring bounded by bytes. It is fed by one store subscription
// (update); it never waits for a viewer: each viewer has a one-slot doorbell
// and, when ready, writes every patch after the frame it last wrote (frames
// coalesce per viewer), or a snapshot when it fell out of the ring.
type hub struct {
	id      string
	epoch   string // tells this hub's frame numbers from another replica's
	log     *slog.Logger
	ringMax int
	done    chan struct{}

	mu       sync.Mutex
	v        *view.View
	panes    []*paneState // the root, then one per invocation by position
	byID     map[string]int
	parents  []string              // parent key by position
	children map[string][]string   // key -> child keys
	spawned  map[string][]string   // call id -> keys of the invocations it spawned
	callPane map[string]*paneState // call id -> the pane holding it
	marked   map[*paneState]bool   // panes a result for a call they hold marked, during a patch
	recount  bool                  // the view holds fewer messages than the panes: look at every changed pane's ids
	header   []byte
	state    []byte
	seq      uint64
	ring     []ringEvent
	ringSize int
	snapSeq  uint64
	snap     []byte
	tabs     map[*tab]struct{}
	closed   bool
}

// tab is one viewer's doorbell.
type tab struct{ bell chan struct{} }

func (t *tab) ring() {
	select {
	case t.bell <- struct{}{}:
	default:
	}
}

// newHub returns the hub of thread id whose view is v so far.
func newHub(id string, v *view.View, ringMax int, log *slog.Logger) *hub {
	h := &hub{id: id, epoch: client.NewID()[:8], log: log, ringMax: ringMax, done: make(chan struct{}), tabs: map[*tab]struct{}{}}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reset(v)
	return h
}

// reset forgets every pane and renders v whole.
func (h *hub) reset(v *view.View) {
	h.v = v
	h.panes = []*paneState{newPaneState(RootKey)}
	h.byID, h.children, h.spawned, h.callPane = map[string]int{}, map[string][]string{}, map[string][]string{}, map[string]*paneState{}
	h.marked = map[*paneState]bool{}
	h.parents = nil
	n := 0
	for inv := range v.Invocations() {
		h.addInvocation(n, inv)
		n++
	}
	h.rebuild(h.panes[0], v.Root())
	for i := 0; i < n; i++ {
		h.rebuild(h.panes[i+1], h.panes[i+1].inv)
	}
	h.header, _ = marshal(headerOf(h.id, v))
	h.state, _ = marshal(stateOf(v))
	h.seq++
	h.ring, h.ringSize, h.snap = nil, 0, nil
}

// addInvocation records the invocation at position pos, first seen now.
func (h *hub) addInvocation(pos int, inv *view.Invocation) *paneState {
	key := invKey(pos)
	parent := RootKey
	if ps, ok := inv.ParentSubagentRunID(); ok {
		if p, ok := h.byID[ps]; ok {
			parent = invKey(p)
		}
	}
	h.byID[inv.ID()] = pos
	h.parents = append(h.parents, parent)
	h.children[parent] = append(h.children[parent], key)
	if tc := inv.ParentToolCallID(); tc != "" {
		h.spawned[tc] = append(h.spawned[tc], key)
	}
	ps := newPaneState(key)
	ps.inv = inv
	h.panes = append(h.panes, ps)
	return ps
}

// paneOf returns the pane with key, or nil.
func (h *hub) paneOf(key string) *paneState {
	if key == RootKey {
		return h.panes[0]
	}
	n, err := strconv.Atoi(key[len("inv-"):])
	if err != nil || n < 0 || n+1 >= len(h.panes) {
		return nil
	}
	return h.panes[n+1]
}

// metaOf returns the meta of pane ps showing inv.
func (h *hub) metaOf(ps *paneState, inv *view.Invocation) PaneMeta {
	m := PaneMeta{
		Key: ps.key, Root: inv.IsRoot(), Name: inv.Name(), Status: inv.Status(),
		Children: slices.Clone(h.children[ps.key]), Steps: []PaneStep{},
		Outcome: inv.Outcome(), Result: inv.Result(), Error: errorReport(inv.Error()),
	}
	if m.Children == nil {
		m.Children = []string{}
	}
	if !m.Root {
		id := inv.ID()
		m.ID = &id
		n, _ := strconv.Atoi(ps.key[len("inv-"):])
		parent := h.parents[n]
		m.Parent = &parent
		m.Description = inv.Description()
		m.ParentToolCallID = inv.ParentToolCallID()
	}
	stepAt := map[string]int{}
	for _, s := range inv.Steps() {
		if i, ok := stepAt[s.Name]; ok {
			m.Steps[i].Status = s.Status
			continue
		}
		stepAt[s.Name] = len(m.Steps)
		m.Steps = append(m.Steps, PaneStep{Name: s.Name, Status: s.Status})
	}
	return m
}

// pane returns ps whole.
func (h *hub) pane(ps *paneState) Pane {
	p := Pane{PaneMeta: h.metaOf(ps, ps.inv), Items: make([]PaneItem, 0, len(ps.order))}
	for _, k := range ps.order {
		p.Items = append(p.Items, *ps.items[k])
	}
	return p
}

// rebuild renders ps from inv whole, forgetting what was sent.
func (h *hub) rebuild(ps *paneState, inv *view.Invocation) {
	*ps = *newPaneState(ps.key)
	ps.inv, ps.sent = inv, inv
	ids := inv.MessageIDs()
	changed := make(map[string]bool, len(ids))
	for _, id := range ids {
		changed[id] = true
	}
	h.refresh(ps, ids, changed, nil)
	ps.meta, _ = marshal(h.metaOf(ps, inv))
}

// refresh brings the messages in changed (ids of inv's messages, ids being
// all of them in order) up to date in ps, and returns ops extended with the
// item operations that does; more collects the panes whose messages must
// be looked at again (a result came for a call they hold).
func (h *hub) refresh(ps *paneState, ids []string, changed map[string]bool, ops []ItemOp) []ItemOp {
	for i := len(ps.ids); i < len(ids); i++ {
		ps.at[ids[i]] = i
	}
	ps.ids = ids
	idx := make([]int, 0, len(changed))
	for id := range changed {
		if i, ok := ps.at[id]; ok {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	ours := func(call string) bool { _, ok := ps.calls[call]; return ok }
	subKeys := func(call string, _ []string) []string { return slices.Clone(h.spawned[call]) }
	var again []string
	for _, i := range idx {
		id := ids[i]
		m, ok := h.v.Message(id)
		if !ok {
			continue
		}
		for _, tc := range m.ToolCalls {
			ps.calls[tc.ID] = id
			h.callPane[tc.ID] = ps
		}
		if m.ToolCallID != nil {
			if holder, ok := ps.calls[*m.ToolCallID]; ok && !changed[holder] {
				again = append(again, holder)
			} else if other := h.callPane[*m.ToolCallID]; other != nil && other != ps {
				if holder, ok := other.calls[*m.ToolCallID]; ok {
					other.open[holder] = true // looked at again with that pane
					h.marked[other] = true
				}
			}
		}
		ops = h.setItems(ps, i, itemsOf(h.v, m, ours, subKeys), ops)
	}
	for _, id := range again {
		if m, ok := h.v.Message(id); ok {
			ops = h.setItems(ps, ps.at[id], itemsOf(h.v, m, ours, subKeys), ops)
		}
	}
	return ops
}

// setItems replaces the items of message i of ps with items and appends
// the operations that does to ops.
func (h *hub) setItems(ps *paneState, i int, items []PaneItem, ops []ItemOp) []ItemOp {
	id := ps.ids[i]
	old := ps.msgKeys[id]
	keys := make([]string, len(items))
	open := false
	for j := range items {
		keys[j] = items[j].Key
		open = open || items[j].Status == view.EntityOpen
	}
	if open {
		ps.open[id] = true
	} else {
		delete(ps.open, id)
	}
	for _, k := range old {
		if !slices.Contains(keys, k) {
			ops = append(ops, ItemOp{Del: k})
			delete(ps.items, k)
			if at := slices.Index(ps.order, k); at >= 0 {
				ps.order = slices.Delete(ps.order, at, at+1)
			}
		}
	}
	// where a new item goes: after the previous item of this message, or
	// after the last item of the messages before it.
	prev := ""
	for j := i - 1; j >= 0 && prev == ""; j-- {
		if ks := ps.msgKeys[ps.ids[j]]; len(ks) > 0 {
			prev = ks[len(ks)-1]
		}
	}
	for j := range items {
		it := items[j]
		if cur := ps.items[it.Key]; cur != nil {
			ops = append(ops, diffItem(cur, &it)...)
			*cur = it
		} else {
			after := prev
			put := it
			op := ItemOp{Put: &put}
			pos := 0
			if after != "" {
				pos = lastIndex(ps.order, after) + 1
			}
			if pos == len(ps.order) {
				// last: the common case, no "after" on the wire
			} else {
				op.After = &after
			}
			ps.order = slices.Insert(ps.order, pos, it.Key)
			cp := it
			ps.items[it.Key] = &cp
			ops = append(ops, op)
		}
		prev = it.Key
	}
	if len(keys) == 0 {
		delete(ps.msgKeys, id)
	} else {
		ps.msgKeys[id] = keys
	}
	return ops
}

// lastIndex returns the index of k in s, searching from the end (where
// items are added), or -1.
func lastIndex(s []string, k string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == k {
			return i
		}
	}
	return -1
}

// update renders v, a later view of the thread's store: the store's
// subscription calls it, one view at a time, never an older view after a
// newer one.
func (h *hub) update(v *view.View) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || v == h.v {
		return
	}
	p, whole := h.patch(v)
	if whole {
		h.reset(v)
	} else if p == nil {
		return
	} else {
		h.seq++
		p.V, p.Seq = WireVersion, h.seq
		data, err := marshal(p)
		if err != nil {
			h.log.Error("cannot encode a patch; sending a snapshot instead", "thread", logID(h.id), "err", err)
			h.reset(v)
		} else {
			h.push(appendEvent(nil, EventPatch, h.epoch, h.seq, data))
		}
	}
	for t := range h.tabs {
		t.ring()
	}
}

// patch returns the patch from h.v to v and records v as sent, or reports
// that the views differ beyond a patch (invocations gone: a new snapshot).
func (h *hub) patch(v *view.View) (*Patch, bool) {
	h.v = v
	var p Patch
	dirty := map[*paneState]bool{}
	n := 0
	for inv := range v.Invocations() {
		if n+1 < len(h.panes) {
			if ps := h.panes[n+1]; ps.inv != inv {
				ps.inv = inv
				dirty[ps] = true
			}
		} else {
			ps := h.addInvocation(n, inv)
			dirty[ps] = true
			if parent := h.paneOf(h.parents[n]); parent != nil {
				dirty[parent] = true // its children
			}
			if tc := inv.ParentToolCallID(); tc != "" {
				if other := h.callPane[tc]; other != nil {
					other.open[other.calls[tc]] = true // its subagents
					dirty[other] = true
				}
			}
		}
		n++
	}
	if n+1 < len(h.panes) {
		return nil, true
	}
	known := 0
	for _, ps := range h.panes {
		known += len(ps.ids)
	}
	h.recount = known != v.MessageCount()
	if root := v.Root(); root != h.panes[0].inv {
		h.panes[0].inv = root
		dirty[h.panes[0]] = true
	}
	at := map[string]int{} // pane key -> its patch in p.Panes
	add := func(ps *paneState) {
		pp, ok := h.patchPane(ps)
		if !ok {
			return
		}
		i, seen := at[pp.Key]
		if !seen {
			at[pp.Key] = len(p.Panes)
			p.Panes = append(p.Panes, pp)
			return
		}
		q := &p.Panes[i]
		switch {
		case pp.Pane != nil:
			*q = pp
		case q.Pane != nil:
			whole := h.pane(ps)
			q.Pane = &whole
		default:
			q.Ops = append(q.Ops, pp.Ops...)
			if pp.Meta != nil {
				q.Meta = pp.Meta
			}
		}
	}
	for _, ps := range h.panes {
		if dirty[ps] || len(ps.open) > 0 {
			delete(h.marked, ps)
			add(ps)
		}
	}
	// A result in one pane for a call an earlier pane holds marks that
	// pane: look at it once more.
	for range 3 {
		if len(h.marked) == 0 {
			break
		}
		for _, ps := range h.panes {
			if h.marked[ps] {
				delete(h.marked, ps)
				add(ps)
			}
		}
	}
	clear(h.marked)
	if hd, err := marshal(headerOf(h.id, v)); err == nil && !bytes.Equal(hd, h.header) {
		h.header, p.Run = hd, hd
	}
	if st, err := marshal(stateOf(v)); err == nil && !bytes.Equal(st, h.state) {
		h.state, p.State = st, st
	}
	if len(p.Panes) == 0 && p.Run == nil && p.State == nil {
		return nil, false
	}
	return &p, false
}

// patchPane brings ps up to date with its invocation and returns what
// changed, false when nothing did.
func (h *hub) patchPane(ps *paneState) (PanePatch, bool) {
	inv := ps.inv
	pp := PanePatch{Key: ps.key}
	if ps.meta == nil {
		// A new pane: whole.
		h.rebuild(ps, inv)
		whole := h.pane(ps)
		pp.Pane = &whole
		return pp, true
	}
	changed := make(map[string]bool, len(ps.open)+1)
	for id := range ps.open {
		changed[id] = true
	}
	appended := false
	for id := range inv.ChangedMessageIDs(ps.sent) {
		changed[id] = true
		if _, known := ps.at[id]; !known {
			appended = true
		}
	}
	ids := ps.ids
	if appended || h.recount {
		// New messages, or some gone: read the ids (O(messages)), and
		// rebuild the pane when they are not the old ones and more.
		ids = inv.MessageIDs()
		if len(ids) < len(ps.ids) || !slices.Equal(ids[:len(ps.ids)], ps.ids) {
			h.rebuild(ps, inv)
			whole := h.pane(ps)
			pp.Pane = &whole
			return pp, true
		}
	}
	ps.sent = inv
	pp.Ops = h.refresh(ps, ids, changed, nil)
	if meta, err := marshal(h.metaOf(ps, inv)); err == nil && !bytes.Equal(meta, ps.meta) {
		ps.meta, pp.Meta = meta, meta
	}
	return pp, len(pp.Ops) > 0 || pp.Meta != nil
}

// push keeps a patch event in the ring, dropping the oldest beyond ringMax
// bytes.
func (h *hub) push(ev []byte) {
	h.ring = append(h.ring, ringEvent{seq: h.seq, ev: ev})
	h.ringSize += len(ev)
	drop := 0
	for h.ringSize > h.ringMax && drop < len(h.ring)-1 {
		h.ringSize -= len(h.ring[drop].ev)
		drop++
	}
	if drop > 0 {
		clear(h.ring[:drop])
		h.ring = h.ring[drop:]
	}
}

// snapshot returns the snapshot event of the latest frame, made once. The
// caller holds h.mu.
func (h *hub) snapshot() []byte {
	if h.snap != nil && h.snapSeq == h.seq {
		return h.snap
	}
	s := Snapshot{V: WireVersion, Seq: h.seq, Panes: make([]Pane, 0, len(h.panes))}
	_ = json.Unmarshal(h.header, &s.Run)
	_ = json.Unmarshal(h.state, &s.State)
	for _, ps := range h.panes {
		s.Panes = append(s.Panes, h.pane(ps))
	}
	data, err := marshal(s)
	if err != nil {
		h.log.Error("cannot encode a snapshot", "thread", logID(h.id), "err", err)
		data = []byte(`{"v":1,"seq":0,"panes":[]}`)
	}
	h.snap, h.snapSeq = appendEvent(nil, EventSnapshot, h.epoch, h.seq, data), h.seq
	return h.snap
}

// since returns the events that bring a viewer from frame last (0: none)
// to the latest frame, as the hub's shared bytes, and the latest frame's
// number.
func (h *hub) since(last uint64) ([][]byte, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if last == h.seq {
		return nil, last
	}
	if last == 0 || last > h.seq || len(h.ring) == 0 || h.ring[0].seq > last+1 {
		return [][]byte{h.snapshot()}, h.seq
	}
	i, _ := slices.BinarySearchFunc(h.ring, last+1, func(e ringEvent, s uint64) int { return cmpU(e.seq, s) })
	out := make([][]byte, 0, len(h.ring)-i)
	for _, e := range h.ring[i:] {
		out = append(out, e.ev)
	}
	return out, h.seq
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// join adds a viewer; leave removes it.
func (h *hub) join() (t *tab, leave func()) {
	t = &tab{bell: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.tabs[t] = struct{}{}
	}
	return t, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.tabs, t)
	}
}

// close ends every viewer's stream. It is idempotent.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
		clear(h.tabs)
	}
}

// appendEvent appends one SSE event: its name, its id (epoch-seq) and its
// data, which holds no line break (JSON as marshal writes it).
func appendEvent(dst []byte, name, epoch string, seq uint64, data []byte) []byte {
	dst = append(dst, "event: "...)
	dst = append(dst, name...)
	dst = append(dst, "\nid: "...)
	dst = append(dst, epoch...)
	dst = append(dst, '-')
	dst = strconv.AppendUint(dst, seq, 10)
	dst = append(dst, "\ndata: "...)
	dst = append(dst, data...)
	return append(dst, "\n\n"...)
}
