package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"strconv"
	"time"
	"unicode/utf8"
)

// Kind says what a record holds.
type Kind uint8

const (
	// KindEvent is an event as received: its wire JSON.
	KindEvent Kind = iota + 1
	// KindInput is what the client sent to start a run: a RunAgentInput's
	// JSON.
	KindInput
	// KindEnd is how the client saw a run end, recorded after its last
	// event: an End's JSON. A run whose records stop without one was cut.
	KindEnd
)

// End is the data of a KindEnd record: how the client's run ended.
type End struct {
	// Error is the text of the error that ended the run (a broken transport,
	// a refused event with stop-on-violation), "" when its stream ended.
	Error string `json:"error,omitempty"`
	// Canceled is true when the client cancelled the run.
	Canceled bool `json:"canceled,omitempty"`
}

// String returns "event", "input" or "end".
func (k Kind) String() string {
	switch k {
	case KindEvent:
		return "event"
	case KindInput:
		return "input"
	case KindEnd:
		return "end"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Record is one entry of a thread's journal.
type Record struct {
	// Seq is the record's position in its thread, from 1. Writers leave it
	// zero; the journal assigns it.
	Seq uint64
	// Kind says what Data holds.
	Kind Kind
	// Data is an event's wire JSON (KindEvent), a RunAgentInput's JSON
	// (KindInput) or an End's JSON (KindEnd). A record read from a journal owns its bytes. The file and
	// NATS journals store JSON on one line: Data that spans lines is stored
	// compacted.
	Data json.RawMessage
}

// Lease says which run is active on a thread and who runs it.
type Lease struct {
	// Thread is the thread's id.
	Thread string `json:"thread"`
	// RunID is the id of the active run.
	RunID string `json:"runId"`
	// Owner names the process running it: a replica's name, by default
	// "HOST:PID" (DefaultOwner).
	Owner string `json:"owner"`
	// Since is when the lease was taken.
	Since time.Time `json:"since"`
	// Expires is when the lease lapses unless its writer refreshes it (the
	// NATS journal); zero when it lasts as long as the writer holds it (the
	// memory and file journals, where the kernel drops a dead process's
	// lock).
	Expires time.Time `json:"expires,omitzero"`
}

// Meta describes a thread apart from its records: who owns it and when it
// was created. Create records it; Stat returns it. A thread whose records
// were appended without Create has the zero Meta.
type Meta struct {
	// Owner names who the thread belongs to (a user, a tenant: the caller
	// decides); "" means no one in particular.
	Owner string `json:"owner,omitempty"`
	// Created is when the thread was created.
	Created time.Time `json:"created"`
}

// Thread is what Stat knows about a thread.
type Thread struct {
	// ID is the thread's id.
	ID string
	// Last is the sequence number of its last record, 0 when it has none.
	Last uint64
	// Active is the lease of the run active on it, nil when none is.
	Active *Lease
	// Meta is what Create recorded, the zero Meta when it was never called.
	Meta Meta
	// Updated is when a record was last appended to the thread (or when it
	// was created, if later); zero when the journal knows neither.
	Updated time.Time
}

// Journal is a store of threads. NewMemory, OpenDir and natsjournal.Dial return one;
// Open picks one from a DSN. See the package documentation for the contract
// every implementation keeps (package journaltest checks it).
type Journal interface {
	// Begin takes the lease of lease.Thread for the run lease.RunID and
	// returns the Writer that appends that run's records. lease.Owner empty
	// means the journal's owner (DefaultOwner unless configured); Since and
	// Expires are set by the journal. When another run holds the thread's
	// lease, Begin fails with ErrBusy and Error.Holder names it.
	Begin(ctx context.Context, lease Lease) (Writer, error)
	// Read yields thread's records from sequence number from (1 or less:
	// from the first) up to the last one appended when Read started, then
	// ends. A thread with no records yields nothing. An error ends the
	// iteration after it is yielded.
	Read(ctx context.Context, thread string, from uint64) iter.Seq2[Record, error]
	// Follow is Read that does not end: after the records already there it
	// waits for new ones and yields them as they are appended, until ctx
	// ends (it then returns without yielding an error). It follows a thread
	// that does not exist yet. A journal that becomes unreachable for a while
	// does not end it: it resumes after the last record it yielded, with no
	// record lost or yielded twice. A thread deleted or lost under it
	// (Delete, a file that shrank, a stream re-created) ends it with an
	// ErrLost error.
	Follow(ctx context.Context, thread string, from uint64) iter.Seq2[Record, error]
	// Threads returns the ids of the threads that hold records or were
	// created (Create), sorted.
	Threads(ctx context.Context) ([]string, error)
	// Stat returns thread's last sequence number and its active lease. The
	// lease is read first, so when Stat reports no active run every record
	// appended by runs that ended is counted in Last.
	Stat(ctx context.Context, thread string) (Thread, error)
	// Create records a new thread and its meta (Meta.Created zero means
	// now). It fails with ErrExists when the thread was created already or
	// holds records. Creating is optional: Begin works on any thread id.
	Create(ctx context.Context, thread string, meta Meta) error
	// Delete removes thread: its records, its meta and any pending stop
	// request. It fails with ErrBusy (Error.Holder set) while a run holds the
	// thread's lease. Deleting a thread that does not exist is not an error.
	// Readers following the thread see no more records: they end with an
	// ErrLost error (package journaltest checks it of every backend).
	Delete(ctx context.Context, thread string) error
	// Stop asks the writer of the run active on thread, in whatever process
	// it runs, to stop that run: its Writer's Stopped channel closes (package
	// client then cancels the run). It returns the lease of the run asked;
	// ErrIdle when no run is active on thread.
	Stop(ctx context.Context, thread string) (Lease, error)
	// Close releases the journal's resources. Writers it handed out stop
	// working (their leases are released as a dead process's would be).
	Close() error
}

// Writer appends the records of one run to its thread while it holds the
// thread's lease.
type Writer interface {
	// Append appends recs, in order, after the thread's last record and
	// returns the sequence number of the last one. The records' Seq fields
	// are ignored. It returns when the records are stored (written to the
	// file; acknowledged by the NATS server). On failure nothing is lost to
	// the next call: a NATS writer keeps records it could not store and
	// stores them, in order and once, at the next Append or End.
	Append(ctx context.Context, recs ...Record) (last uint64, err error)
	// Lease returns the lease the writer holds.
	Lease() Lease
	// Stopped is closed when someone asked the run to stop (Journal.Stop).
	Stopped() <-chan struct{}
	// End stores anything still pending (a NATS writer retries until ctx
	// ends) and releases the lease. It is idempotent; Append fails with
	// ErrClosed after it.
	End(ctx context.Context) error
}

// Code classifies an Error. A Code is itself an error, so
// errors.Is(err, journal.ErrBusy) matches any *Error of that code.
type Code int

const (
	// ErrUnavailable: the journal cannot be reached or refuses to store
	// (a NATS server away, a file that cannot be written). Retrying later
	// may succeed.
	ErrUnavailable Code = iota + 1
	// ErrBusy: another run holds the thread's lease (Error.Holder).
	ErrBusy
	// ErrLeaseLost: the writer's lease lapsed and another writer may have
	// taken the thread; the writer may append no more.
	ErrLeaseLost
	// ErrCorrupt: stored data is not what the journal wrote (a line that is
	// not JSON, a NATS message without its sequence header).
	ErrCorrupt
	// ErrClosed: the journal or writer was closed.
	ErrClosed
	// ErrInvalid: a bad argument (an empty thread or run id, a DSN that
	// names no journal).
	ErrInvalid
	// ErrCut: a run's writer went away without ending it (its lease expired
	// or its process died). Package client's Attach ends such a run with it.
	ErrCut
	// ErrIdle: no run is active on the thread (Stop).
	ErrIdle
	// ErrStopped: the run was asked to stop through the journal; package
	// client ends such a run cancelled, with this as the cause.
	ErrStopped
	// ErrExists: Create named a thread that exists already.
	ErrExists
	// ErrLost: the journal lost records it had acknowledged (a NATS stream
	// deleted and re-created, a file that shrank): the thread cannot be read
	// as it was written.
	ErrLost
	// ErrTooLarge: a record or an id is over a limit of the journal.
	ErrTooLarge
)

var codeNames = [...]string{
	ErrUnavailable: "journal unavailable",
	ErrBusy:        "a run is active on the thread",
	ErrLeaseLost:   "lease lost",
	ErrCorrupt:     "journal corrupt",
	ErrClosed:      "journal closed",
	ErrInvalid:     "invalid argument",
	ErrCut:         "run cut: its writer went away without ending it",
	ErrIdle:        "no run is active on the thread",
	ErrStopped:     "the run was asked to stop",
	ErrExists:      "the thread exists already",
	ErrLost:        "the journal lost records it had stored",
	ErrTooLarge:    "over the journal's size limit",
}

// String returns the code's description.
func (c Code) String() string {
	if c > 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "journal error " + strconv.Itoa(int(c))
}

// Error returns the code's description.
func (c Code) Error() string { return c.String() }

// Error is the error every journal operation returns.
type Error struct {
	// Code classifies the error.
	Code Code
	// Op is the operation: "begin", "append", "read", "follow", "threads",
	// "stat", "end", "open", "create", "delete", "stop".
	Op string
	// Thread is the thread concerned, "" when none.
	Thread string
	// Seq is the sequence number concerned (the first record of a failed
	// append, a corrupt record), 0 when none.
	Seq uint64
	// Holder is the lease of the run that holds the thread (ErrBusy), or
	// nil.
	Holder *Lease
	// Err is the underlying cause, or nil.
	Err error
}

// Error says what failed, where and why, e.g.
// `journal: begin thread "t1": a run is active on the thread: run "r1" by "bff-2:4411" since 12:00:01Z`.
func (e *Error) Error() string {
	b := []byte("journal: ")
	b = append(b, e.Op...)
	if e.Thread != "" {
		if len(e.Thread) > 64 {
			b = fmt.Appendf(b, " thread %s… (%d bytes)", quoteShort(e.Thread), len(e.Thread))
		} else {
			b = fmt.Appendf(b, " thread %q", e.Thread)
		}
	}
	if e.Seq != 0 {
		b = fmt.Appendf(b, " at record %d", e.Seq)
	}
	b = append(b, ": "...)
	b = append(b, e.Code.String()...)
	if h := e.Holder; h != nil && h.RunID != "" {
		b = fmt.Appendf(b, ": run %q by %q", h.RunID, h.Owner)
		if !h.Since.IsZero() {
			b = fmt.Appendf(b, " since %s", h.Since.UTC().Format(time.RFC3339))
		}
	}
	if e.Err != nil {
		b = append(b, ": "...)
		b = append(b, e.Err.Error()...)
	}
	return string(b)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's Code.
func (e *Error) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c == e.Code
}

// Fail returns an *Error: for backends outside this package.
func Fail(code Code, op, thread string, err error) *Error {
	return fail(code, op, thread, err)
}

// fail returns an *Error.
func fail(code Code, op, thread string, err error) *Error {
	return &Error{Code: code, Op: op, Thread: thread, Err: err}
}

// DefaultOwner returns "HOST:PID", the owner a journal writes in the leases it
// takes unless told otherwise.
func DefaultOwner() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "localhost"
	}
	return h + ":" + strconv.Itoa(os.Getpid())
}

// MaxIDBytes bounds thread and run ids: every backend accepts every id that
// CheckID accepts (hashing it where its own names are shorter), and refuses
// the others before any I/O.
const MaxIDBytes = 512

// CheckID reports whether id can name a thread or a run: 1 to MaxIDBytes
// bytes of valid UTF-8 without control characters (C0, DEL, C1). It returns
// an *Error of code ErrInvalid (ErrTooLarge for a long id) for operation op
// otherwise; the error quotes at most the first 64 bytes of the id.
func CheckID(op, id string) error {
	switch {
	case id == "":
		return fail(ErrInvalid, op, "", errors.New("empty id"))
	case len(id) > MaxIDBytes:
		return fail(ErrTooLarge, op, "", fmt.Errorf("id of %d bytes (%s…), over the limit of %d", len(id), quoteShort(id), MaxIDBytes))
	case !utf8.ValidString(id):
		return fail(ErrInvalid, op, "", fmt.Errorf("id %s is not valid UTF-8", quoteShort(id)))
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return fail(ErrInvalid, op, "", fmt.Errorf("id %s holds a control character", quoteShort(id)))
		}
	}
	return nil
}

// quoteShort quotes at most the first 64 bytes of s.
func quoteShort(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	return strconv.QuoteToASCII(s)
}

// CheckLease validates the ids of a lease for Begin (CheckID).
func CheckLease(l Lease) error {
	if err := CheckID("begin", l.Thread); err != nil {
		return err
	}
	if err := CheckID("begin", l.RunID); err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Thread = l.Thread
		}
		return err
	}
	return nil
}

// CheckRecords validates records before an append: known kinds, data
// present. Backends call it first in Writer.Append.
func CheckRecords(op, thread string, recs []Record) error {
	for i, r := range recs {
		if r.Kind < KindEvent || r.Kind > KindEnd {
			return fail(ErrInvalid, op, thread, fmt.Errorf("record %d of %d: unknown kind %d", i+1, len(recs), r.Kind))
		}
		if len(r.Data) == 0 {
			return fail(ErrInvalid, op, thread, fmt.Errorf("record %d of %d: no data", i+1, len(recs)))
		}
	}
	return nil
}
