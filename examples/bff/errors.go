package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/agview/agview/event"
)

// Errors the service answers with; each maps to an HTTP status (StatusOf).
var (
	// ErrUnknownThread: no thread has the id in the path (404). Threads
	// are kept in memory only, and the oldest idle ones are dropped beyond
	// Options.MaxThreads.
	ErrUnknownThread = errors.New("bff: no such thread")
	// ErrBusy: a run of this thread is still in progress (409): a thread has
	// one run at a time.
	ErrBusy = errors.New("bff: a run of this thread is still in progress")
	// ErrNotRunning: POST /threads/{id}/stop on a thread with no run in
	// progress (409).
	ErrNotRunning = errors.New("bff: no run of this thread is in progress")
	// ErrElsewhere: POST /threads/{id}/stop on a thread whose run another
	// process runs, when that process cannot be asked: the file journal
	// gives no way to reach it, or no replica on the NATS journal answered
	// (409).
	ErrElsewhere = errors.New("bff: the run is in progress in another process")
	// ErrTooManyThreads: Options.MaxThreads threads are kept and none is
	// idle (503).
	ErrTooManyThreads = errors.New("bff: too many threads with a run in progress")
	// ErrTooManyViewers: Options.MaxViewers event streams are open, or
	// Options.MaxViewersPerClient from the same address (429).
	ErrTooManyViewers = errors.New("bff: too many event streams open")
	// ErrClosed: the service is shutting down (503).
	ErrClosed = errors.New("bff: the service is closed")
)

// RequestError reports a request the service cannot act on: which part of it
// was wrong and why.
type RequestError struct {
	// Status is the HTTP status answered: 400; 403 for a Host or Origin
	// the service does not serve; 413 for a body too large; 415 for a body
	// that is not declared as JSON.
	Status int
	// Where is the part of the request at fault: "body", a JSON field
	// ("message", "answer", "payload"), "Content-Type", "Host", "Origin",
	// "since" or "Last-Event-ID".
	Where string
	// Reason says what is wrong with it.
	Reason string
	// Err is the underlying error, if any.
	Err error
}

// Error says where the request was wrong and why.
func (e *RequestError) Error() string {
	return fmt.Sprintf("bff: bad request: %s: %s", e.Where, e.Reason)
}

// Unwrap returns the underlying error.
func (e *RequestError) Unwrap() error { return e.Err }

// StatusOf returns the HTTP status the service answers err with.
func StatusOf(err error) int {
	var re *RequestError
	switch {
	case errors.As(err, &re):
		return re.Status
	case errors.Is(err, ErrUnknownThread):
		return http.StatusNotFound
	case errors.Is(err, ErrBusy), errors.Is(err, ErrNotRunning), errors.Is(err, ErrElsewhere):
		return http.StatusConflict
	case errors.Is(err, ErrTooManyViewers):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrTooManyThreads), errors.Is(err, ErrClosed):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// MaxRequestBytes bounds the body of POST /threads and POST /threads/{id}/runs.
const MaxRequestBytes = 64 << 10

// StartRequest is the body of POST /threads. An empty body is an empty request.
type StartRequest struct {
	// Message is the user's first message, sent as the first run's
	// history; "" sends none.
	Message string `json:"message"`
}

// Answers to pending interrupts (NextRequest.Answer).
const (
	AnswerResolved  = event.ResumeResolved
	AnswerCancelled = event.ResumeCancelled
)

// NextRequest is the body of POST /threads/{id}/runs, which starts the run
// that continues a thread: its message history, its state, and an answer to
// every pending interrupt (client.NextInput), then the user's message. An empty body is an empty
// request.
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

// DecodeStartRequest reads a StartRequest: one JSON object without unknown
// fields, or nothing. Its errors are *RequestError.
func DecodeStartRequest(r io.Reader) (StartRequest, error) {
	var req StartRequest
	err := decodeBody(r, &req)
	return req, err
}

// DecodeNextRequest reads and checks a NextRequest: one JSON object without
// unknown fields, or nothing. Its errors are *RequestError.
func DecodeNextRequest(r io.Reader) (NextRequest, error) {
	var req NextRequest
	if err := decodeBody(r, &req); err != nil {
		return req, err
	}
	return req, req.check()
}

// check refuses a request whose answer or payload makes no sense, and fills
// in the default answer.
func (req *NextRequest) check() error {
	if req.Payload != nil && (!json.Valid(req.Payload) || bytes.Equal(bytes.TrimSpace(req.Payload), []byte("null"))) {
		return &RequestError{Status: http.StatusBadRequest, Where: "payload", Reason: "must be a JSON value other than null (leave it out for none)"}
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
			return &RequestError{Status: http.StatusBadRequest, Where: "payload", Reason: "a cancelled answer carries no payload"}
		}
	default:
		return &RequestError{Status: http.StatusBadRequest, Where: "answer", Reason: fmt.Sprintf("want %q or %q, got %q", AnswerResolved, AnswerCancelled, req.Answer)}
	}
	return nil
}

// checkJSON refuses a POST whose body is not declared as JSON. Browsers send
// a cross-site form only as text/plain, urlencoded or multipart, so this also
// keeps other sites' forms from starting runs through a visitor's browser
// (and checkOrigin refuses their scripts).
func checkJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return &RequestError{Status: http.StatusUnsupportedMediaType, Where: "Content-Type", Reason: fmt.Sprintf("want application/json, got %q", ct), Err: err}
	}
	return nil
}

// decodeBody decodes one JSON object into x, or nothing at all.
func decodeBody(r io.Reader, x any) error {
	data, err := io.ReadAll(r)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &RequestError{Status: http.StatusRequestEntityTooLarge, Where: "body", Reason: fmt.Sprintf("larger than %d bytes", mbe.Limit), Err: err}
		}
		return &RequestError{Status: http.StatusBadRequest, Where: "body", Reason: "cannot be read: " + err.Error(), Err: err}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(x); err != nil {
		re := &RequestError{Status: http.StatusBadRequest, Where: "body", Reason: "not a JSON object of the expected shape: " + err.Error(), Err: err}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			re.Where = te.Field
			re.Reason = fmt.Sprintf("want a JSON %s, got %s", te.Type, te.Value)
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			re.Reason = "unknown field " + f
		}
		return re
	}
	if _, err := dec.Token(); err != io.EOF {
		return &RequestError{Status: http.StatusBadRequest, Where: "body", Reason: "holds more than one JSON value"}
	}
	return nil
}
