package patch

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Sentinel errors. An *Error wraps exactly one of them (match with errors.Is);
// ErrInvalidPatch may also wrap a *SyntaxError.
var (
	// ErrInvalidPatch: the patch is not a JSON array of operation objects, or
	// an operation lacks a member its op requires ("path", "from", "value"),
	// has one of the wrong type, or moves a value into its own child.
	ErrInvalidPatch = errors.New("invalid patch")
	// ErrUnknownOp: an operation's "op" is not one of add, remove, replace,
	// move, copy, test, or is missing, or is not a string. Returned only with
	// Options.RejectUnknownOps; by default such operations are dropped with a
	// Warning (docs/protocol.md G2, G8).
	ErrUnknownOp = errors.New("unknown operation")
	// ErrInvalidPointer: a "path" or "from" is not an RFC 6901 JSON pointer,
	// or reaches into an array with a token that is not an index (leading
	// zero, sign, exponent, letters).
	ErrInvalidPointer = errors.New("invalid JSON pointer")
	// ErrPathNotFound: the location an operation needs does not exist (for
	// add: its parent), including array indices out of range and descending
	// into a string, number, boolean or null.
	ErrPathNotFound = errors.New("path not found")
	// ErrTestFailed: a test operation found a different value.
	ErrTestFailed = errors.New("test failed")
	// ErrTooLarge: an operation would grow the document past
	// Options.MaxDocumentBytes (the defence against copy bombs).
	ErrTooLarge = errors.New("document too large")
	// ErrTooDeep: an operation would nest the document's arrays and objects
	// deeper than MaxNesting levels (the defence against depth bombs: a short
	// patch that copies the document into itself until nothing can walk it).
	ErrTooDeep = errors.New("document too deep")
)

// Error is the error Apply returns when a patch cannot be applied. The
// document is then unchanged: a patch applies whole or not at all.
type Error struct {
	// Index is the position of the failing operation in the patch array, or
	// -1 when the patch as a whole is malformed (not a JSON array).
	Index int
	// Op is the failing operation's "op" ("" when absent or not a string).
	Op string
	// Path is the failing operation's "path" as written ("" when absent).
	Path string
	// Reason says what went wrong, in words, naming the JSON pointer of the
	// location involved.
	Reason string
	// Err is one of the sentinel errors of this package (ErrTestFailed,
	// ErrPathNotFound, ...), for errors.Is; for a patch that is not JSON, an
	// error that matches both ErrInvalidPatch and a *SyntaxError.
	Err error
}

// Error implements error, e.g.
//
//	patch: operation 1 (test "/version"): test failed: value at "/version" is 1, want 2
func (e *Error) Error() string {
	where := "patch"
	if e.Index >= 0 {
		where = "patch: operation " + strconv.Itoa(e.Index)
		switch {
		case e.Op != "":
			where += fmt.Sprintf(" (%s %s)", clip(e.Op), quote(e.Path))
		case e.Path != "":
			where += fmt.Sprintf(" (at %s)", quote(e.Path))
		}
	}
	if e.Err == nil {
		return where + ": " + e.Reason
	}
	return where + ": " + e.Err.Error() + ": " + e.Reason
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Warning reports something Apply tolerated: an operation whose "op" is
// unknown, missing or not a string, removed before the rest of the patch was
// applied (docs/protocol.md G2, G8).
type Warning struct {
	// Index is the position of the operation in the patch array.
	Index int
	// Op is the operation's "op" as written ("" when absent or not a string).
	Op string
	// Path is the operation's "path" as written ("" when absent).
	Path string
	// Message says what was done and why.
	Message string
}

// String formats the warning like an Error.
func (w Warning) String() string {
	if w.Op == "" {
		return fmt.Sprintf("patch: operation %d (at %s): %s", w.Index, quote(w.Path), w.Message)
	}
	return fmt.Sprintf("patch: operation %d (%s %s): %s", w.Index, clip(w.Op), quote(w.Path), w.Message)
}

// causeError is a sentinel with the error that caused it: it prints as the
// sentinel (the cause is in Error.Reason) and matches both.
type causeError struct {
	sentinel, cause error
}

func (e causeError) Error() string { return e.sentinel.Error() }

func (e causeError) Unwrap() []error { return []error{e.sentinel, e.cause} }

// failure is what goes wrong inside the engine, before the operation index
// and op are known; Apply turns it into an *Error. It is deliberately not an
// error, so that a nil *failure never becomes a non-nil error.
type failure struct {
	err    error // sentinel
	reason string
}

// maxQuoted bounds the bytes of a path or op that a message quotes: a
// hostile patch's pointer may be megabytes long, and every failed delta
// becomes a warning that is kept and printed.
const maxQuoted = 200

// quote returns s quoted as %q does, cut after maxQuoted bytes with a note
// of its length.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(cut(s)) + fmt.Sprintf("… (%d bytes)", len(s))
}

// clip is quote without the quotes, for op names.
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	return cut(s) + fmt.Sprintf("… (%d bytes)", len(s))
}

// cut returns the first maxQuoted bytes of s, or fewer to end on a
// character boundary.
func cut(s string) string {
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func failf(sentinel error, format string, args ...any) *failure {
	return &failure{err: sentinel, reason: fmt.Sprintf(format, args...)}
}
