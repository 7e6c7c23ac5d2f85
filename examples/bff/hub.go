package main

import (
	"bytes"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/agview/agview/view"
)

// blob is JSON the hub serialised once and shares, read-only, between every
// viewer of a run: a pane, the header or the state, with the sequence number
// of the frame in which it last changed.
type blob struct {
	seq  uint64
	data []byte
}

// paneBlob is a pane's JSON and the invocation it was made from: while a
// later view holds the same *view.Invocation the pane is unchanged (package
// view shares an invocation between views until something about it changes).
type paneBlob struct {
	blob
	key string
	inv *view.Invocation
}

// frame is one immutable state of a hub: the latest JSON of every pane, of
// the header and of the state. A viewer that last sent frame n sends, from a
// later frame, exactly the blobs whose seq is above n.
type frame struct {
	seq    uint64
	panes  []*paneBlob // the root first, then the subagents in first-seen order
	byKey  map[string]*paneBlob
	header *blob
	state  *blob
}

// hub turns the views of one run's store into frames and tells the run's
// viewers about them. It is fed by one store subscription (update) and by
// the run's life cycle (setActive); it never waits for a viewer: each viewer
// has a one-slot doorbell that a new frame rings, and reads the latest frame
// when it gets round to it (latest-value semantics, as the store's own
// subscribers).
type hub struct {
	id, agent string
	log       *slog.Logger
	cur       atomic.Pointer[frame]
	done      chan struct{} // closed by close: viewers stop

	mu     sync.Mutex // serialises render and guards the fields below
	v      *view.View // the view last rendered
	active bool
	runErr string
	tabs   map[*tab]struct{}
	closed bool
}

// tab is one viewer's doorbell.
type tab struct{ bell chan struct{} }

func (t *tab) ring() {
	select {
	case t.bell <- struct{}{}:
	default:
	}
}

// newHub returns a hub for the run id whose view is v so far; log may be
// nil.
func newHub(id, agent string, v *view.View, active bool, log *slog.Logger) *hub {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &hub{id: id, agent: agent, log: log, done: make(chan struct{}), v: v, active: active, tabs: map[*tab]struct{}{}}
	h.cur.Store(&frame{byKey: map[string]*paneBlob{}})
	h.mu.Lock()
	h.render()
	h.mu.Unlock()
	return h
}

// latest returns the latest frame.
func (h *hub) latest() *frame { return h.cur.Load() }

// update renders v, a view of the run's store. The store's subscription
// calls it, one view at a time, never an older view after a newer one.
func (h *hub) update(v *view.View) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.v = v
	h.render()
}

// setActive records whether an agent run is in progress and how the last one
// ended, and renders the header anew.
func (h *hub) setActive(active bool, runErr string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.active, h.runErr = active, runErr
	h.render()
}

// view returns the view last rendered.
func (h *hub) view() *view.View {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.v
}

// join adds a viewer; leave removes it. After close, join returns a tab
// whose viewer sees done closed at once.
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

// viewers returns the number of viewers.
func (h *hub) viewers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.tabs)
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

// render builds the frame of h.v and publishes it when anything changed,
// serialising only the panes whose invocation changed. The caller holds h.mu.
func (h *hub) render() {
	old := h.cur.Load()
	seq := old.seq + 1
	next := &frame{seq: seq, byKey: make(map[string]*paneBlob, len(old.byKey)+1)}
	changed := false

	add := func(inv *view.Invocation) {
		key := PaneKey(inv)
		if _, dup := next.byKey[key]; dup {
			return
		}
		pb := old.byKey[key]
		if pb == nil || pb.inv != inv {
			data, err := marshal(PaneOf(inv, h.v))
			if err != nil {
				h.log.Error("cannot encode a pane; keeping its last version", "run", h.id, "pane", key, "err", err)
			} else {
				pb = &paneBlob{blob: blob{seq: seq, data: data}, key: key, inv: inv}
				changed = true
			}
		}
		if pb != nil {
			next.panes = append(next.panes, pb)
			next.byKey[key] = pb
		}
	}
	add(h.v.Root())
	for inv := range h.v.Invocations() {
		// When an id was reused for a new invocation in a later run
		// (PROTOCOL.md G10), its pane shows the latest one.
		if latest := h.v.Invocation(inv.ID()); latest != nil && !latest.IsRoot() {
			inv = latest
		}
		add(inv)
	}

	next.header, changed = h.reuse(old.header, HeaderOf(h.id, h.agent, h.v, h.active, h.runErr), seq, changed, "header")
	next.state, changed = h.reuse(old.state, StateOf(h.v), seq, changed, "state")
	if !changed {
		return
	}
	h.cur.Store(next)
	for t := range h.tabs {
		t.ring()
	}
}

// reuse returns old when x encodes to the same JSON, else a new blob for x
// at seq, and whether anything has changed so far.
func (h *hub) reuse(old *blob, x any, seq uint64, changed bool, what string) (*blob, bool) {
	data, err := marshal(x)
	if err != nil {
		h.log.Error("cannot encode the "+what+"; keeping its last version", "run", h.id, "err", err)
		return old, changed
	}
	if old != nil && bytes.Equal(old.data, data) {
		return old, changed
	}
	return &blob{seq: seq, data: data}, true
}
