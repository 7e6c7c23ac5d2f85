package threads

import (
	"github.com/agview/agview/client"
)

// MaxIDBytes bounds a thread id in a path: the service mints ids of 36
// bytes (client.NewID); any id longer than this is refused with 400 before
// the journal is asked about it.
const MaxIDBytes = 128

// NewID returns a new thread id: a random UUID (client.NewID).
func NewID() string { return client.NewID() }

// CheckID returns an ErrBadRequest *Error unless id is 1 to MaxIDBytes
// bytes of the safe alphabet A-Z a-z 0-9 '-' '_' '.' (not "." or ".."),
// so that an id from a path reaches no journal, file name, NATS subject or
// log line unchecked.
func CheckID(id string) error {
	if id == "" || len(id) > MaxIDBytes || id == "." || id == ".." {
		return fail(ErrBadRequest, nil, "A thread id is 1 to %d characters of A-Z, a-z, 0-9, '-', '_' and '.' (got %d bytes).", MaxIDBytes, len(id))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fail(ErrBadRequest, nil, "A thread id is 1 to %d characters of A-Z, a-z, 0-9, '-', '_' and '.'.", MaxIDBytes)
		}
	}
	return nil
}

// logID returns id bounded for a log line.
func logID(id string) string { return bound(id, 64) }
