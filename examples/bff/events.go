package main

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/agview/agview/transport"
)

// SSE event names of GET /threads/{id}/events.
const (
	// EventSnapshot carries the whole view, once, when a viewer connects:
	// {"run": Header, "state": State, "panes": [Pane, …]}.
	EventSnapshot = "snapshot"
	// EventPane carries one Pane whose invocation changed (or appeared).
	EventPane = "pane"
	// EventState carries the State when it changed.
	EventState = "state"
	// EventRun carries the Header when it changed.
	EventRun = "run"
)

// serveEvents is GET /threads/{id}/events: the live view of a thread as an
// SSE stream. On connect a viewer gets a snapshot event; then, whenever the
// store publishes a view, a pane event for each invocation that changed
// (serialised once per change by the thread's hub and shared between all
// viewers), a state event when the state changed and a run event when the
// header did, in that order. A slow viewer skips versions, never the
// latest: it is sent the latest JSON of everything that changed since it was
// last written to, and never slows the store or the other viewers.
//
// Every event a viewer is sent is the hub's own bytes, not a copy: memory
// does not grow with the number of viewers. A viewer that still has more
// than Options.MaxQueuedBytes of an old frame to write when a new one is
// published is disconnected, and so is one that reads nothing for
// Options.WriteTimeout; EventSource reconnects, with Last-Event-ID.
//
// The last event of each write carries an SSE id, the hub's frame number. A
// viewer that reconnects with Last-Event-ID (as EventSource does), or with
// ?since=N, is sent only what changed after frame N, without a snapshot.
// The stream stays open across the thread's runs, until the viewer leaves
// or the service closes; an idle stream gets a comment every
// Options.KeepAlive. Options.MaxViewers and Options.MaxViewersPerClient
// bound the streams open at once (429 beyond).
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	t, err := s.lookup(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	since, err := parseSince(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	release, err := s.viewers.acquire(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer release()
	h := t.hub
	rc := http.NewResponseController(w)
	tb, leave := h.join(func() { _ = rc.SetWriteDeadline(time.Now()) })
	defer leave()

	startSSE(w, rc)
	var keepAlive <-chan time.Time
	if s.opts.KeepAlive > 0 {
		tk := time.NewTicker(s.opts.KeepAlive)
		defer tk.Stop()
		keepAlive = tk.C
	}
	last, snapshot := since, since == 0 || since > h.latest().seq
	var batch [][]byte
	for {
		if f := h.latest(); snapshot || f.seq > last {
			batch = appendFrame(batch[:0], f, last, snapshot)
			err := s.writeBatch(rc, w, tb, f.seq, batch)
			clear(batch) // let go of the blobs: a newer frame may replace them
			last, snapshot = f.seq, false
			if err != nil || !s.pause(r, h) {
				return
			}
		}
		select {
		case <-tb.bell:
		case <-keepAlive:
			if s.write(rc, w, []byte(": keep-alive\n\n")) != nil {
				return
			}
		case <-h.done:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// writeChunk is the most writeBatch hands the connection at once: what a
// viewer has left to write is known to within that.
const writeChunk = 64 << 10

// writeBatch writes the events of frame seq to a viewer, each within the
// write timeout, and flushes them. It fails at once when the hub drops the
// viewer (tb.kick).
func (s *Server) writeBatch(rc *http.ResponseController, w http.ResponseWriter, tb *tab, seq uint64, batch [][]byte) error {
	var n int64
	for _, b := range batch {
		n += int64(len(b))
	}
	tb.pending.Store(n)
	tb.writing.Store(seq)
	defer tb.writing.Store(0)
	for _, b := range batch {
		for len(b) > 0 {
			c := b[:min(len(b), writeChunk)]
			// The deadline first, then kicked: kick sets kicked, then the
			// deadline, so one of the two sees the other.
			if err := rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return err
			}
			if tb.kicked.Load() {
				return errFellBehind
			}
			if _, err := w.Write(c); err != nil {
				return err
			}
			b = b[len(c):]
			tb.pending.Add(-int64(len(c)))
		}
	}
	return rc.Flush()
}

// errFellBehind ends the stream of a viewer the hub dropped.
var errFellBehind = errors.New("bff: the viewer fell behind")

// pause waits Options.FlushInterval after a write, and reports whether the
// stream goes on.
func (s *Server) pause(r *http.Request, h *hub) bool {
	if s.opts.FlushInterval <= 0 {
		return true
	}
	tm := time.NewTimer(s.opts.FlushInterval)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-h.done:
	case <-r.Context().Done():
	}
	return false
}

// parseSince returns the frame a viewer has seen: ?since=N, else the
// Last-Event-ID header, else 0 (none: send a snapshot).
func parseSince(r *http.Request) (uint64, error) {
	where, v := "since", r.URL.Query().Get("since")
	if v == "" {
		where, v = "Last-Event-ID", r.Header.Get("Last-Event-ID")
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, &RequestError{Status: http.StatusBadRequest, Where: where, Reason: "want a frame number (a non-negative decimal integer), got " + strconv.Quote(v), Err: err}
	}
	return n, nil
}

// appendFrame appends to dst the events that bring a viewer who has seen
// frame last up to frame f, as the hub's shared bytes: a snapshot, or the
// panes, state and header whose JSON changed after last. The last event
// carries f's number as its id: its final blank line is left out and an id
// line that ends the event follows it.
func appendFrame(dst [][]byte, f *frame, last uint64, snapshot bool) [][]byte {
	start := len(dst)
	if snapshot {
		dst = append(dst, f.snapshot().ev)
	} else {
		for _, p := range f.panes {
			if p.seq > last {
				dst = append(dst, p.ev)
			}
		}
		if f.state.seq > last {
			dst = append(dst, f.state.ev)
		}
		if f.header.seq > last {
			dst = append(dst, f.header.ev)
		}
	}
	if len(dst) == start {
		return dst
	}
	end := dst[len(dst)-1]
	dst[len(dst)-1] = end[:len(end)-1]
	return append(dst, strconv.AppendUint([]byte("id: "), f.seq, 10), []byte("\n\n"))
}

// appendEvent appends one SSE event: its name, its id unless 0, and its
// data.
func appendEvent(dst []byte, name string, id uint64, data []byte) []byte {
	dst = append(dst, "event: "...)
	dst = append(dst, name...)
	dst = append(dst, '\n')
	if id != 0 {
		dst = append(dst, "id: "...)
		dst = strconv.AppendUint(dst, id, 10)
		dst = append(dst, '\n')
	}
	return transport.AppendSSEData(dst, data)
}
