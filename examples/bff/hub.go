package main

import (
	"bytes"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/agview/agview/view"
)

// blob is a JSON value the hub serialised once and shares, read-only,
// between every viewer of a thread: a pane, the header or the state, as the
// SSE event that carries it, with the sequence number of the frame in which
// it last changed. Viewers write ev itself, never a copy, so a thread's
// memory does not grow with its viewers.
type blob struct {
	seq uint64
	ev  []byte // "event: NAME\ndata: JSON\n\n"
	// at is where the JSON starts in ev (it ends 2 bytes before ev does:
	// JSON as marshal writes it holds no line break, so it is one data line).
	at int
}

// newBlob returns the blob of the event name carrying data at frame seq.
func newBlob(seq uint64, name string, data []byte) *blob {
	ev := make([]byte, 0, len("event: \ndata: \n\n")+len(name)+len(data))
	ev = append(ev, "event: "...)
	ev = append(ev, name...)
	ev = append(ev, "\ndata: "...)
	at := len(ev)
	ev = append(ev, data...)
	ev = append(ev, "\n\n"...)
	return &blob{seq: seq, ev: ev, at: at}
}

// json returns the blob's JSON, shared.
func (b *blob) json() []byte { return b.ev[b.at : len(b.ev)-2] }

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

	snapOnce sync.Once
	snap     *blob // the snapshot event, made once by the first viewer that needs it
}

// snapshot returns the frame's snapshot event (EventSnapshot), encoded once
// and shared by every viewer that connects while the frame is the latest.
func (f *frame) snapshot() *blob {
	f.snapOnce.Do(func() {
		n := 64 + len(f.header.ev) + len(f.state.ev)
		for _, p := range f.panes {
			n += len(p.ev)
		}
		data := make([]byte, 0, n)
		data = append(data, `{"run":`...)
		data = append(data, f.header.json()...)
		data = append(data, `,"state":`...)
		data = append(data, f.state.json()...)
		data = append(data, `,"panes":[`...)
		for i, p := range f.panes {
			if i > 0 {
				data = append(data, ',')
			}
			data = append(data, p.json()...)
		}
		data = append(data, "]}"...)
		f.snap = newBlob(f.seq, EventSnapshot, data)
	})
	return f.snap
}

// hub turns the views of one thread's store into frames and tells the
// thread's viewers about them. It is fed by one store subscription (update)
// and by the thread's life cycle (setActive); it never waits for a viewer:
// each viewer has a one-slot doorbell that a new frame rings, and reads the
// latest frame when it gets round to it (latest-value semantics, as the
// store's own subscribers). A viewer still writing an old frame when a new
// one comes, with more than maxQueued bytes of it left, is dropped (kick).
type hub struct {
	id, agent string
	log       *slog.Logger
	maxQueued int64
	cur       atomic.Pointer[frame]
	done      chan struct{} // closed by close: viewers stop

	mu     sync.Mutex // serialises render and guards the fields below
	v      *view.View // the view last rendered
	active bool
	runErr string
	tabs   map[*tab]struct{}
	closed bool
}

// tab is one viewer: its doorbell, and what it is writing, so that the hub
// can drop it when it falls behind.
type tab struct {
	bell    chan struct{}
	writing atomic.Uint64 // the frame being written; 0 between writes
	pending atomic.Int64  // bytes of it not written yet
	kicked  atomic.Bool   // dropped by the hub: stop at once
	unblock func()        // makes a write in progress fail (set before join)
}

func (t *tab) ring() {
	select {
	case t.bell <- struct{}{}:
	default:
	}
}

// behind reports whether the tab is still writing a frame older than seq
// with more than max bytes of it to go.
func (t *tab) behind(seq uint64, max int64) bool {
	w := t.writing.Load()
	return w != 0 && w < seq && t.pending.Load() > max
}

// kick drops the tab: its handler sees kicked before its next write, and a
// write in progress fails at once.
func (t *tab) kick() {
	if t.kicked.Swap(true) {
		return
	}
	if t.unblock != nil {
		t.unblock()
	}
}

// newHub returns a hub for the run id whose view is v so far; log may be
// nil.
func newHub(id, agent string, v *view.View, active bool, log *slog.Logger) *hub {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &hub{id: id, agent: agent, log: log, maxQueued: DefaultMaxQueuedBytes, done: make(chan struct{}), v: v, active: active, tabs: map[*tab]struct{}{}}
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

// setActive records whether a run is in progress and how the last one
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

// join adds a viewer whose write in progress unblock makes fail (nil: none);
// leave removes it. After close, join returns a tab whose viewer sees done
// closed at once.
func (h *hub) join(unblock func()) (t *tab, leave func()) {
	t = &tab{bell: make(chan struct{}, 1), unblock: unblock}
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
				h.log.Error("cannot encode a pane; keeping its last version", "thread", h.id, "pane", key, "err", err)
			} else {
				pb = &paneBlob{blob: *newBlob(seq, EventPane, data), key: key, inv: inv}
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
		// (docs/protocol.md G10), its pane shows the latest one.
		if latest := h.v.Invocation(inv.ID()); latest != nil && !latest.IsRoot() {
			inv = latest
		}
		add(inv)
	}

	next.header, changed = h.reuse(old.header, HeaderOf(h.id, h.agent, h.v, h.active, h.runErr), seq, changed, EventRun)
	next.state, changed = h.reuse(old.state, StateOf(h.v), seq, changed, EventState)
	if !changed {
		return
	}
	h.cur.Store(next)
	for t := range h.tabs {
		if t.behind(seq, h.maxQueued) {
			h.log.Info("dropped a viewer that fell behind", "thread", h.id, "frame", t.writing.Load(), "latest", seq, "pending", t.pending.Load())
			t.kick()
		}
		t.ring()
	}
}

// reuse returns old when x encodes to the same JSON, else a new blob for x,
// the event name, at seq, and whether anything has changed so far.
func (h *hub) reuse(old *blob, x any, seq uint64, changed bool, name string) (*blob, bool) {
	data, err := marshal(x)
	if err != nil {
		h.log.Error("cannot encode the "+name+" event; keeping its last version", "thread", h.id, "err", err)
		return old, changed
	}
	if old != nil && bytes.Equal(old.json(), data) {
		return old, changed
	}
	return newBlob(seq, name, data), true
}
