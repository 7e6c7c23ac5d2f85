package threads

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
)

// Code classifies an *Error: it names the refusal, fixes its HTTP status,
// and is itself an error, so errors.Is(err, threads.ErrNotFound) matches any
// *Error of that code.
type Code string

// Codes of the errors the service answers with. The page shows an error's
// Message; a program reads its Code (the "code" field of the JSON answer).
const (
	ErrBadRequest     Code = "bad_request"       // 400: a malformed id, body or parameter
	ErrUnauthorized   Code = "unauthorized"      // 401: the identity hook refused the request
	ErrForbidden      Code = "forbidden"         // 403: a Host or Origin the service does not serve
	ErrNotFound       Code = "not_found"         // 404: no such thread, or not the asker's
	ErrBusy           Code = "busy"              // 409: a run of the thread is in progress
	ErrNotRunning     Code = "not_running"       // 409: no run of the thread is in progress
	ErrConflict       Code = "conflict"          // 409: the answer does not fit the thread's interrupts
	ErrTooLarge       Code = "too_large"         // 413: a request body over Options.MaxBodyBytes
	ErrUnsupported    Code = "unsupported_media" // 415: a body not declared as JSON
	ErrTooManyThreads Code = "too_many_threads"  // 429: Options.MaxThreadsPerOwner reached
	ErrTooManyRuns    Code = "too_many_runs"     // 429: Options.MaxRuns or MaxRunsPerOwner reached
	ErrTooManyViewers Code = "too_many_viewers"  // 429: Options.MaxViewers or MaxViewersPerOwner reached
	ErrTimeout        Code = "timeout"           // 408: a request body not sent within Options.BodyTimeout
	ErrUnavailable    Code = "unavailable"       // 503: the journal cannot be reached; try again
	ErrClosed         Code = "closed"            // 503: the service is shutting down
	ErrInternal       Code = "internal"          // 500: anything else
)

var codeStatus = map[Code]int{
	ErrBadRequest:     http.StatusBadRequest,
	ErrUnauthorized:   http.StatusUnauthorized,
	ErrForbidden:      http.StatusForbidden,
	ErrNotFound:       http.StatusNotFound,
	ErrBusy:           http.StatusConflict,
	ErrNotRunning:     http.StatusConflict,
	ErrConflict:       http.StatusConflict,
	ErrTooLarge:       http.StatusRequestEntityTooLarge,
	ErrUnsupported:    http.StatusUnsupportedMediaType,
	ErrTooManyThreads: http.StatusTooManyRequests,
	ErrTooManyRuns:    http.StatusTooManyRequests,
	ErrTooManyViewers: http.StatusTooManyRequests,
	ErrTimeout:        http.StatusRequestTimeout,
	ErrUnavailable:    http.StatusServiceUnavailable,
	ErrClosed:         http.StatusServiceUnavailable,
	ErrInternal:       http.StatusInternalServerError,
}

// Error returns the code itself.
func (c Code) Error() string { return string(c) }

// Status returns the HTTP status the code is answered with.
func (c Code) Status() int {
	if s, ok := codeStatus[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Error is every refusal the service answers: its code (and so its HTTP
// status), a message the page shows as it is (one sentence, at most
// maxMessage bytes, no server paths), and the cause, which is logged, never
// answered.
type Error struct {
	Code    Code
	Message string
	Err     error
}

// Error returns "threads: CODE: MESSAGE".
func (e *Error) Error() string { return "threads: " + string(e.Code) + ": " + e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's Code.
func (e *Error) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c == e.Code
}

// Status returns the HTTP status of e's code.
func (e *Error) Status() int { return e.Code.Status() }

// maxMessage bounds an Error's Message: what the page shows fits a line.
const maxMessage = 240

// fail returns an *Error with a message made of format and args, bounded.
func fail(code Code, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Message: bound(fmt.Sprintf(format, args...), maxMessage), Err: cause}
}

// bound cuts s to at most n bytes, at a rune boundary, with an ellipsis.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// AsError returns err as an *Error: itself when it is one, else the journal's
// or context's error classified (a journal that cannot be reached is
// ErrUnavailable) with a message that names no server path.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var je *journal.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fail(ErrUnavailable, err, "The request was cancelled or took too long.")
	case errors.As(err, &je):
		switch je.Code {
		case journal.ErrBusy:
			return fail(ErrBusy, err, "A run of this thread is still in progress; wait for it to end or stop it.")
		case journal.ErrIdle:
			return fail(ErrNotRunning, err, "No run of this thread is in progress.")
		case journal.ErrInvalid, journal.ErrTooLarge:
			return fail(ErrBadRequest, err, "The thread id is not one this service accepts.")
		case journal.ErrUnavailable, journal.ErrClosed, journal.ErrLeaseLost:
			return fail(ErrUnavailable, err, "The thread store cannot be reached; try again in a moment.")
		}
	}
	return fail(ErrInternal, err, "The service failed to handle the request.")
}

// StatusOf returns the HTTP status the service answers err with.
func StatusOf(err error) int { return AsError(err).Status() }

// errorBody is the JSON of a refusal.
type errorBody struct {
	Error string `json:"error"` // the message, for the page
	Code  Code   `json:"code"`  // the code, for programs
}

// StartRequest is the body of POST /threads. An empty body is an empty
// request.
type StartRequest struct {
	// Message is the user's first message; "" sends none.
	Message string `json:"message"`
}

// Answers to pending interrupts (NextRequest.Answer).
const (
	AnswerResolved  = event.ResumeResolved
	AnswerCancelled = event.ResumeCancelled
)

// NextRequest is the body of POST /threads/{id}/runs, which starts the run
// that continues a thread: its history, its state, and an answer to every
// pending interrupt (client.NextInput), then the user's message. An empty
// body is an empty request.
type NextRequest struct {
	// Message is the user's next message; "" sends none.
	Message string `json:"message"`
	// Answer answers every pending interrupt: AnswerResolved or
	// AnswerCancelled; "" means resolved when Payload is set, else
	// cancelled.
	Answer string `json:"answer"`
	// Payload is a resolved answer's payload: any JSON but null.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// check refuses an answer or payload that makes no sense and fills in the
// default answer.
func (req *NextRequest) check() error {
	if req.Payload != nil && (!json.Valid(req.Payload) || bytes.Equal(bytes.TrimSpace(req.Payload), []byte("null"))) {
		return fail(ErrBadRequest, nil, "The payload must be a JSON value other than null (leave it out for none).")
	}
	switch req.Answer {
	case "":
		req.Answer = AnswerCancelled
		if req.Payload != nil {
			req.Answer = AnswerResolved
		}
	case AnswerResolved:
	case AnswerCancelled:
		if req.Payload != nil {
			return fail(ErrBadRequest, nil, "A cancelled answer carries no payload.")
		}
	default:
		return fail(ErrBadRequest, nil, "The answer must be %q or %q, not %q.", AnswerResolved, AnswerCancelled, bound(req.Answer, 40))
	}
	return nil
}

// readBody reads a POST's JSON body into x (nothing at all leaves x as it
// is): declared as JSON, at most max bytes, sent within timeout.
func readBody(w http.ResponseWriter, r *http.Request, max int64, timeout time.Duration, x any) error {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return fail(ErrUnsupported, err, "The request body must be declared as application/json, not %q.", bound(ct, 60))
	}
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return fail(ErrInternal, err, "The service cannot time the request body.")
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fail(ErrTooLarge, err, "The request body is larger than %d bytes.", mbe.Limit)
		}
		if isTimeout(err) {
			return fail(ErrTimeout, err, "The request body was not sent within %s.", timeout)
		}
		return fail(ErrBadRequest, err, "The request body could not be read.")
	}
	return decodeJSON(data, x)
}

// decodeJSON decodes one JSON object without unknown fields into x, or
// nothing at all.
func decodeJSON(data []byte, x any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(x); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fail(ErrBadRequest, err, "The field %q must be a JSON %s, not %s.", bound(te.Field, 40), te.Type, te.Value)
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fail(ErrBadRequest, err, "The request has an unknown field %s.", bound(f, 60))
		}
		return fail(ErrBadRequest, err, "The request body is not a JSON object of the expected shape.")
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(ErrBadRequest, nil, "The request body holds more than one JSON value.")
	}
	return nil
}

// isTimeout reports whether err is a read deadline that passed.
func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}
