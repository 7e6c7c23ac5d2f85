package threads

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

// records yields the thread's events as the journal holds them, then live
// while a run is in progress on any replica: it follows the journal until
// the thread is idle with every record read, or ctx ends. A record that
// does not decode is yielded as its error, and so is the error that ended a
// run.
func (s *Service) records(ctx context.Context, id string) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		var next uint64 = 1
		for {
			st, err := s.j.Stat(ctx, id)
			if err != nil {
				yield(nil, err)
				return
			}
			idle := st.Active == nil
			rctx, cancel := context.WithCancel(ctx)
			recs := s.j.Read(rctx, id, next)
			if !idle {
				recs = s.j.Follow(rctx, id, next)
			}
			stop := false
			for rec, err := range recs {
				if err != nil {
					yield(nil, err)
					cancel()
					return
				}
				next = rec.Seq + 1
				switch rec.Kind {
				case journal.KindEvent:
					if !yield(event.Decode(rec.Data)) {
						cancel()
						return
					}
				case journal.KindEnd:
					var end journal.End
					if json.Unmarshal(rec.Data, &end) == nil && end.Error != "" && !yield(nil, errors.New(end.Error)) {
						cancel()
						return
					}
					stop = true // a run ended: look again whether another is active
				}
				if stop {
					break
				}
			}
			cancel()
			if ctx.Err() != nil || (idle && !stop) {
				return
			}
		}
	}
}

// serveLegacy is GET /threads/{id}/legacy: the thread's events re-emitted
// as SSE for a consumer older than subagent support, through
// transform.HideSubagents (docs/protocol.md R28). It replays what was sent,
// follows a run in progress and ends when the thread is idle. A frame that
// did not decode, and a broken stream, become SSE comments.
func (s *Service) serveLegacy(w http.ResponseWriter, r *http.Request) {
	s.withThread(func(w http.ResponseWriter, r *http.Request, t *thread, owner string) error {
		release, err := s.acquireViewer(owner)
		if err != nil {
			return err
		}
		defer release()
		rc := http.NewResponseController(w)
		startSSE(w, rc)
		var buf []byte
		for e, err := range transform.HideSubagents(s.records(r.Context(), t.id)) {
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
				buf = appendComment(buf, "agview: "+bound(err.Error(), maxMessage))
			}
			if s.write(rc, w, buf) != nil {
				return nil
			}
		}
		return nil
	})(w, r)
}

// appendComment appends an SSE comment: ": " before each line of text.
func appendComment(dst []byte, text string) []byte {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	for line := range strings.Lines(text) {
		dst = append(dst, ": "...)
		dst = append(dst, strings.TrimSuffix(line, "\n")...)
		dst = append(dst, '\n')
	}
	return append(dst, '\n')
}
