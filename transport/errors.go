package transport

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Kind classifies a fatal transport error. A Kind is itself an error value so
// that errors.Is can match on it:
//
//	if errors.Is(err, transport.KindIncomplete) { … }
type Kind uint8

// The kinds of fatal error a source reports.
const (
	// KindConnect: the request could not be made: bad URL or options, the
	// input does not encode, the dial or the WebSocket handshake failed before
	// any answer (an HTTP answer is KindStatus).
	KindConnect Kind = iota + 1
	// KindStatus: the server answered with a non-2xx HTTP status (an SSE
	// response or a refused WebSocket handshake). Error.Status holds it and
	// Error.Body a bounded excerpt of the body.
	KindStatus
	// KindContentType: the SSE response is not text/event-stream.
	KindContentType
	// KindIO: reading failed or the connection broke mid-stream (reset,
	// unexpected EOF, a WebSocket closed without a close frame, no message or
	// pong within the keepalive window, a ping or pong that could not be
	// written because the peer does not read).
	KindIO
	// KindLimit: one event is larger than Options.MaxEventBytes. Error.Limit
	// holds the limit.
	KindLimit
	// KindProtocol: the framing was violated (a binary WebSocket message, a
	// malformed WebSocket frame, a JSON-array file that is not an array).
	KindProtocol
	// KindClosed: the WebSocket peer closed the connection with a close code
	// other than 1000 (normal) or 1001 (going away). Error.CloseCode holds it.
	KindClosed
	// KindTruncated: the stream ended inside an event: an unterminated final
	// line or SSE data lines without the blank line that dispatches them.
	KindTruncated
	// KindIncomplete: the stream ended cleanly between events, but its last
	// run has no RUN_FINISHED or RUN_ERROR (or the stream held no run at all).
	KindIncomplete
	// KindCanceled: the context was canceled or its deadline passed.
	// Error.Err wraps the context's error, so errors.Is(err,
	// context.Canceled) and errors.Is(err, context.DeadlineExceeded) work.
	KindCanceled
	// KindIdle: the server showed no activity for Options.IdleTimeout (see
	// there what counts). Error.Idle holds the timeout.
	KindIdle
	// KindUnterminated is not a failure: the SSE stream ended cleanly but not
	// as the format says (docs/protocol.md G18). Its last event had no blank line
	// (or its last line no line ending) and was dispatched, its data being
	// one complete JSON value; or its last line held no data (a comment, a
	// stray field, junk) and was ignored. Error.Err says which, and matches
	// io.EOF (errors.Is), so that reducer.End records it as a warning and
	// ends the view as for a clean end.
	KindUnterminated
)

var kindText = [...]string{
	KindConnect:      "request failed",
	KindStatus:       "unexpected HTTP status",
	KindContentType:  "unexpected content type",
	KindIO:           "read failed",
	KindLimit:        "event too large",
	KindProtocol:     "protocol error",
	KindClosed:       "closed by peer",
	KindTruncated:    "stream ended inside an event",
	KindIncomplete:   "stream ended before the run finished",
	KindCanceled:     "canceled",
	KindIdle:         "idle timeout",
	KindUnterminated: "stream ended without its final line ending",
}

// String returns a short description of the kind, e.g. "event too large".
func (k Kind) String() string {
	if int(k) < len(kindText) && kindText[k] != "" {
		return kindText[k]
	}
	return "transport error kind " + strconv.Itoa(int(k))
}

// Error returns k.String(); it lets a Kind serve as an errors.Is target.
func (k Kind) Error() string { return k.String() }

// endNote is the cause of a KindUnterminated error: what was tolerated at
// the end of the stream. It matches io.EOF, the clean end it stands for.
type endNote string

func (n endNote) Error() string { return string(n) }

// Is reports whether target is io.EOF.
func (n endNote) Is(target error) bool { return target == io.EOF }

// ErrIncomplete matches (errors.Is) the error that ends a stream whose last run
// never finished. It is KindIncomplete.
var ErrIncomplete error = KindIncomplete

// Error is a fatal transport error: it is the last value a source yields, and
// the iteration ends with it. Per-event decoding errors are not wrapped in an
// Error; they are yielded as the event package returns them and the stream
// goes on.
//
// Match it with errors.As, or its Kind with errors.Is(err, transport.KindX).
type Error struct {
	// Kind classifies the failure.
	Kind Kind
	// Op names the operation: "sse", "websocket", or for a recorded stream
	// "read" followed by the format once known ("read jsonl", "read sse",
	// "read json").
	Op string
	// Source is the URL or the file name, "" for a bare reader.
	Source string
	// Index is the index of the frame being read when the failure happened,
	// which is the number of frames (events and per-event errors) yielded
	// before it; -1 when no frame was read (a failed request).
	Index int
	// Offset is the byte offset in the stream (the response body, the file or
	// the reader) where the failure was detected, or where the offending
	// frame begins; -1 when unknown (WebSocket has no byte stream).
	Offset int64
	// Status is the HTTP status code for KindStatus, else 0.
	Status int
	// Body is a bounded excerpt (at most 1 KiB, valid UTF-8) of the response
	// body for KindStatus, else "".
	Body string
	// CloseCode is the WebSocket close code received or sent, when there was
	// one (KindClosed, KindLimit over WebSocket), else 0.
	CloseCode int
	// Limit is the limit exceeded for KindLimit (Options.MaxEventBytes), else 0.
	Limit int64
	// Idle is the timeout that passed for KindIdle (Options.IdleTimeout),
	// else 0.
	Idle time.Duration
	// Err is the underlying cause, or nil.
	Err error
}

// Error says what failed, where and why, e.g.
//
//	transport: sse http://127.0.0.1:8080/agent: frame 12 at byte 4096: event too large: more than 8388608 bytes (Options.MaxEventBytes)
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("transport: ")
	b.WriteString(e.Op)
	if e.Source != "" {
		b.WriteByte(' ')
		b.WriteString(e.Source)
	}
	b.WriteString(": ")
	if e.Index >= 0 {
		b.WriteString("frame ")
		b.WriteString(strconv.Itoa(e.Index))
		if e.Offset >= 0 {
			b.WriteString(" at byte ")
			b.WriteString(strconv.FormatInt(e.Offset, 10))
		}
		b.WriteString(": ")
	} else if e.Offset >= 0 {
		b.WriteString("byte ")
		b.WriteString(strconv.FormatInt(e.Offset, 10))
		b.WriteString(": ")
	}
	switch e.Kind {
	case KindStatus:
		fmt.Fprintf(&b, "HTTP %d", e.Status)
		if t := http.StatusText(e.Status); t != "" {
			b.WriteByte(' ')
			b.WriteString(t)
		}
		if e.Body != "" {
			b.WriteString(": ")
			b.WriteString(strconv.Quote(e.Body))
		}
	case KindClosed:
		fmt.Fprintf(&b, "closed by peer with code %d", e.CloseCode)
	case KindLimit:
		fmt.Fprintf(&b, "event too large: more than %d bytes (Options.MaxEventBytes)", e.Limit)
	case KindIdle:
		fmt.Fprintf(&b, "idle timeout: nothing received for %v (Options.IdleTimeout)", e.Idle)
	default:
		b.WriteString(e.Kind.String())
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's Kind, so that errors.Is(err, KindLimit)
// matches a *Error of that kind anywhere in a chain.
func (e *Error) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && k == e.Kind
}
