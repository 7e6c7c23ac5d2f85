package main

import (
	"context"
	"iter"
	"net/http"
	"strings"
	"sync"

	"github.com/agview/agview/event"
	"github.com/agview/agview/transform"
	"github.com/agview/agview/transport"
)

// logEntry is one pair a transport yielded: an event, or the error of a
// frame that did not decode or of a broken stream.
type logEntry struct {
	ev  event.Event
	err error
}

// eventLog is the append-only record of everything the agent sent during a
// run's agent runs, in order: what GET /runs/{id}/legacy re-emits. Its entries
// are never modified once appended (events yielded by package transport own
// their data), so followers read them without copying.
type eventLog struct {
	mu      sync.Mutex
	entries []logEntry
	active  bool          // an agent run is appending
	closed  bool          // the run is gone: followers stop
	changed chan struct{} // closed at the next change; made by a waiting follower
}

func (l *eventLog) append(e event.Event, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, logEntry{e, err})
	l.signal()
}

// setActive records whether an agent run is appending.
func (l *eventLog) setActive(active bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active = active
	l.signal()
}

// close ends every follower.
func (l *eventLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	l.signal()
}

// signal wakes the waiting followers. The caller holds l.mu.
func (l *eventLog) signal() {
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

// follow yields the entries from the first, then each new one as it is
// appended, until every entry has been yielded while no agent run is in
// progress, the log is closed or ctx ends.
func (l *eventLog) follow(ctx context.Context) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		for i := 0; ; {
			l.mu.Lock()
			if l.closed {
				l.mu.Unlock()
				return
			}
			if i < len(l.entries) {
				batch := l.entries[i:len(l.entries):len(l.entries)]
				l.mu.Unlock()
				for _, en := range batch {
					if !yield(en.ev, en.err) {
						return
					}
				}
				i += len(batch)
				continue
			}
			if !l.active {
				l.mu.Unlock()
				return
			}
			if l.changed == nil {
				l.changed = make(chan struct{})
			}
			ch := l.changed
			l.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return
			}
		}
	}
}

// recorder is a transport.Runner that records in log everything the runner
// it wraps yields, before handing it on.
type recorder struct {
	runner transport.Runner
	log    *eventLog
}

// Run runs the wrapped runner and records its pairs.
func (r recorder) Run(ctx context.Context, input *event.RunAgentInput) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		for e, err := range r.runner.Run(ctx, input) {
			r.log.append(e, err)
			if !yield(e, err) {
				return
			}
		}
	}
}

// serveLegacy is GET /runs/{id}/legacy: the run's event stream as the agent
// sent it, re-emitted as SSE for a consumer older than subagent support:
// transform.HideSubagents expands chunks, keeps each owner's steps apart,
// drops every subagentRunId and the SUBAGENT_* events, leaving a CUSTOM
// trace of a subagent's error or result (PROTOCOL.md R28, the
// SubagentVisibility transformer). It replays what was
// sent so far, then follows the run live, and ends when the agent run ends.
// A frame that did not decode, and a broken stream, become SSE comments,
// which every reader ignores.
func (s *Server) serveLegacy(w http.ResponseWriter, r *http.Request) {
	conv, err := s.lookup(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rc := http.NewResponseController(w)
	startSSE(w, rc)
	var buf []byte
	for e, err := range transform.HideSubagents(conv.log.follow(r.Context())) {
		buf = buf[:0]
		if err == nil {
			data, encErr := event.Encode(e)
			if encErr == nil {
				buf = transport.AppendSSEData(buf, data)
			} else {
				err = encErr
			}
		}
		if err != nil {
			buf = appendComment(buf, "agview: "+err.Error())
		}
		if s.write(rc, w, buf) != nil {
			return
		}
	}
}

// appendComment appends an SSE comment: a line starting with ':' per line of
// text (lines end at LF, CRLF or CR, as SSE has them), then the blank line.
func appendComment(dst []byte, text string) []byte {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	for line := range strings.Lines(text) {
		dst = append(dst, ": "...)
		dst = append(dst, strings.TrimSuffix(line, "\n")...)
		dst = append(dst, '\n')
	}
	return append(dst, '\n')
}
