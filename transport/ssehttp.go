package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agview/agview/event"
)

// SSE runs an AG-UI agent over HTTP: each run POSTs a RunAgentInput as JSON
// and reads the text/event-stream answer, one event per SSE event's data.
//
// An SSE is safe for concurrent use; each Run is an independent request.
type SSE struct {
	url  string
	opts Options

	mu       sync.Mutex
	lastID   string
	retry    time.Duration
	hasRetry bool
}

var _ Runner = (*SSE)(nil)

// NewSSE returns an SSE source for the agent at url. opts may be nil.
func NewSSE(url string, opts *Options) *SSE {
	o := opts.resolve()
	o.HTTPClient = guardRedirects(o.HTTPClient, o.Header)
	return &SSE{url: url, opts: o}
}

// Run POSTs input (nil sends an empty RunAgentInput) with Content-Type
// application/json, Accept text/event-stream and Options.Header, and yields
// the events of the answer. See the package documentation for the contract;
// a non-2xx answer is a KindStatus error, an answer that is not
// text/event-stream a KindContentType error.
//
// The request is made when the iteration starts; each iteration makes a new
// one. Canceling ctx or ending the iteration early closes the response.
func (s *SSE) Run(ctx context.Context, input *event.RunAgentInput) iter.Seq2[event.Event, error] {
	return s.stream(input).events(ctx)
}

// Frames is Run without decoding: it yields each SSE event's data with its
// index and byte offset in the response body, and reports only transport
// failures (no KindIncomplete error).
func (s *SSE) Frames(ctx context.Context, input *event.RunAgentInput) iter.Seq2[Frame, error] {
	return s.stream(input).frames(ctx)
}

// LastEventID returns the last event ID string (the SSE "id:" field) of the
// most recent run, as a cursor for a caller that reconnects; "" when the
// server sent none.
func (s *SSE) LastEventID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastID
}

// Retry returns the reconnection time the most recent run's server set with
// an SSE "retry:" field, and whether it set one.
func (s *SSE) Retry() (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retry, s.hasRetry
}

func (s *SSE) stream(input *event.RunAgentInput) *stream {
	st := &stream{op: "sse", src: s.url}
	st.open = func(ctx context.Context) (source, error) {
		if input == nil {
			input = &event.RunAgentInput{}
		}
		body, err := json.Marshal(input)
		if err != nil {
			return nil, &Error{Kind: KindConnect, Offset: -1, Err: fmt.Errorf("encode RunAgentInput: %w", err)}
		}
		// The request has a context of its own, which the idle watch cancels.
		rctx, cancel := context.WithCancel(ctx)
		watch := newIdleWatch(s.opts.IdleTimeout, cancel)
		fail := func(err *Error) (source, error) {
			watch.stop()
			cancel()
			return nil, err
		}
		req, err := http.NewRequestWithContext(rctx, http.MethodPost, s.url, bytes.NewReader(body))
		if err != nil {
			return fail(&Error{Kind: KindConnect, Offset: -1, Err: err})
		}
		for k, v := range s.opts.Header {
			req.Header[k] = append([]string(nil), v...)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := s.opts.HTTPClient.Do(req)
		if err != nil {
			if watch.timedOut() {
				return fail(watch.err(-1))
			}
			return fail(&Error{Kind: KindConnect, Offset: -1, Err: err})
		}
		watch.active()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			defer resp.Body.Close()
			return fail(&Error{Kind: KindStatus, Offset: -1, Status: resp.StatusCode, Body: bodyExcerpt(resp.Body)})
		}
		ct := resp.Header.Get("Content-Type")
		if mt, _, _ := mime.ParseMediaType(ct); mt != "text/event-stream" {
			resp.Body.Close()
			why := fmt.Errorf("the response is %q, want text/event-stream", ct)
			if mt == "application/vnd.ag-ui.event+proto" {
				why = fmt.Errorf("%w (the protobuf framing is not supported)", why)
			}
			return fail(&Error{Kind: KindContentType, Offset: -1, Err: why})
		}
		s.mu.Lock()
		s.lastID, s.retry, s.hasRetry = "", 0, false
		s.mu.Unlock()
		src := &httpSSESource{owner: s, body: resp.Body, watch: watch, cancel: cancel}
		var r io.Reader = resp.Body
		if watch != nil {
			r = &lineActivity{ReadCloser: resp.Body, w: watch}
		}
		src.p.init(r, s.opts.MaxEventBytes)
		src.p.lenient = true
		return src, nil
	}
	return st
}

// httpSSESource is an sseSource over a response body that publishes the
// stream's cursor to its SSE.
type httpSSESource struct {
	sseSource
	owner  *SSE
	body   io.ReadCloser
	watch  *idleWatch
	cancel context.CancelFunc
	id     string
	retry  int64
}

func (s *httpSSESource) next() ([]byte, int64, error) {
	data, off, err := s.sseSource.next()
	if err != nil && err != io.EOF && s.watch.timedOut() {
		// The read failed because the idle watch cancelled the request.
		at := int64(-1)
		if e, ok := err.(*Error); ok {
			at = e.Offset
		}
		err = s.watch.err(at)
	}
	if s.p.lastID != s.id || s.p.retry != s.retry {
		s.id, s.retry = s.p.lastID, s.p.retry
		s.owner.mu.Lock()
		s.owner.lastID = s.id
		s.owner.retry, s.owner.hasRetry = retryDuration(s.retry), s.p.hasRetry
		s.owner.mu.Unlock()
	}
	return data, off, err
}

func (s *httpSSESource) close() {
	s.watch.stop()
	s.cancel()
	s.body.Close()
}

// maxExcerpt bounds the body kept in an Error.
const maxExcerpt = 1 << 10

// bodyExcerpt reads at most maxExcerpt bytes of r and returns them as valid
// UTF-8, trimmed, with "…" when the body was longer.
func bodyExcerpt(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, maxExcerpt+1))
	cut := len(b) > maxExcerpt
	if cut {
		b = b[:maxExcerpt]
		for len(b) > 0 && !utf8.Valid(b) && len(b) > maxExcerpt-utf8.UTFMax {
			b = b[:len(b)-1]
		}
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD"))
	if cut {
		s += "…"
	}
	return s
}
