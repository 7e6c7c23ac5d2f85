package main

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"strings"

	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/transform"
	"github.com/agview/agview/transport"
)

// records yields the thread's events as the journal holds them, replayed,
// then live while a run is in progress: it follows the journal until the
// thread is idle with every record read, or ctx ends. A record that does not
// decode is yielded as its error, and so is the error that ended a run (a
// broken stream).
func (t *thread) records(ctx context.Context) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		var next uint64 = 1
		emit := func(rec journal.Record) bool {
			next = rec.Seq + 1
			switch rec.Kind {
			case journal.KindEvent:
				return yield(event.Decode(rec.Data))
			case journal.KindEnd:
				var end journal.End
				if json.Unmarshal(rec.Data, &end) == nil && end.Error != "" {
					return yield(nil, errors.New(end.Error))
				}
			}
			return true
		}
		for {
			busy, change := t.busy()
			if !busy {
				// Idle: read what is there, and stop.
				for rec, err := range t.j.Read(ctx, t.id, next) {
					if err != nil {
						yield(nil, err)
						return
					}
					if !emit(rec) {
						return
					}
				}
				return
			}
			fctx, cancel := context.WithCancel(ctx)
			stop := context.AfterFunc(t.ctx, cancel)
			go func() {
				select {
				case <-change:
				case <-fctx.Done():
				}
				cancel()
			}()
			for rec, err := range t.j.Follow(fctx, t.id, next) {
				if err != nil || !emit(rec) {
					break
				}
			}
			stop()
			cancel()
			if ctx.Err() != nil || t.ctx.Err() != nil {
				return
			}
		}
	}
}

// serveLegacy is GET /threads/{id}/legacy: the thread's events as the agent
// sent them, re-emitted as SSE for a consumer older than subagent support:
// transform.HideSubagents expands chunks, keeps each owner's steps apart,
// drops every subagentRunId and the SUBAGENT_* events, leaving a CUSTOM
// trace of a subagent's error or result (docs/protocol.md R28, the
// SubagentVisibility transformer). It replays what was sent so far, then
// follows the thread live, and ends when its run ends.
// A frame that did not decode, and a broken stream, become SSE comments,
// which every reader ignores.
func (s *Server) serveLegacy(w http.ResponseWriter, r *http.Request) {
	t, err := s.lookup(r.Context(), r.PathValue("id"))
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
	rc := http.NewResponseController(w)
	startSSE(w, rc)
	var buf []byte
	for e, err := range transform.HideSubagents(t.records(r.Context())) {
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
