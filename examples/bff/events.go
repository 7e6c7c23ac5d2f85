package main

import (
	"net/http"
	"strconv"
	"time"

	"github.com/agview/agview/transport"
)

// SSE event names of GET /runs/{id}/events.
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

// serveEvents is GET /runs/{id}/events: the live view of a run as an SSE
// stream. On connect a viewer gets a snapshot event; then, whenever the
// store publishes a view, a pane event for each invocation that changed
// (serialised once per change by the run's hub and shared between all
// viewers), a state event when the state changed and a run event when the
// header did, in that order. A slow viewer skips versions, never the
// latest: it is sent the latest JSON of everything that changed since it was
// last written to, and never slows the store or the other viewers.
//
// The last event of each write carries an SSE id, the hub's frame number. A
// viewer that reconnects with Last-Event-ID (as EventSource does), or with
// ?since=N, is sent only what changed after frame N, without a snapshot.
// The stream stays open across the run's agent runs, until the viewer leaves
// or the service closes; an idle stream gets a comment every
// Options.KeepAlive.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	conv, err := s.lookup(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	since, err := parseSince(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	h := conv.hub
	t, leave := h.join()
	defer leave()

	rc := http.NewResponseController(w)
	startSSE(w, rc)
	var keepAlive <-chan time.Time
	if s.opts.KeepAlive > 0 {
		tk := time.NewTicker(s.opts.KeepAlive)
		defer tk.Stop()
		keepAlive = tk.C
	}
	last, snapshot := since, since == 0 || since > h.latest().seq
	var buf []byte
	for {
		if f := h.latest(); snapshot || f.seq > last {
			buf = appendFrame(buf[:0], f, last, snapshot)
			last, snapshot = f.seq, false
			if s.write(rc, w, buf) != nil {
				return
			}
			if !s.pause(r, h) {
				return
			}
		}
		select {
		case <-t.bell:
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
// frame last up to frame f: a snapshot, or the panes, state and header whose
// JSON changed after last. The last event carries f's number as its id.
func appendFrame(dst []byte, f *frame, last uint64, snapshot bool) []byte {
	if snapshot {
		data := make([]byte, 0, 64+len(f.header.data)+len(f.state.data)+len(f.panes)*512)
		data = append(data, `{"run":`...)
		data = append(data, f.header.data...)
		data = append(data, `,"state":`...)
		data = append(data, f.state.data...)
		data = append(data, `,"panes":[`...)
		for i, p := range f.panes {
			if i > 0 {
				data = append(data, ',')
			}
			data = append(data, p.data...)
		}
		data = append(data, "]}"...)
		return appendEvent(dst, EventSnapshot, f.seq, data)
	}
	type ev struct {
		name string
		data []byte
	}
	var evs []ev
	for _, p := range f.panes {
		if p.seq > last {
			evs = append(evs, ev{EventPane, p.data})
		}
	}
	if f.state.seq > last {
		evs = append(evs, ev{EventState, f.state.data})
	}
	if f.header.seq > last {
		evs = append(evs, ev{EventRun, f.header.data})
	}
	for i, e := range evs {
		var id uint64
		if i == len(evs)-1 {
			id = f.seq
		}
		dst = appendEvent(dst, e.name, id, e.data)
	}
	return dst
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
