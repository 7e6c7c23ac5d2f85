package journal

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Options configure Open. A nil *Options means all defaults.
type Options struct {
	// Owner names this process in the leases it takes; "" means
	// DefaultOwner().
	Owner string
	// Dir configures a file journal (its Owner is Options.Owner when
	// empty).
	Dir *DirOptions
	// Backend configures a registered backend: its own options type, such
	// as *natsjournal.Options. Open hands it to the backend's Opener, which
	// documents what it accepts; nil means its defaults.
	Backend any
}

// An Opener opens the journal a DSN names for a backend registered with
// Register. opts is never nil.
type Opener func(ctx context.Context, dsn string, opts *Options) (Journal, error)

var registry struct {
	sync.RWMutex
	openers map[string]Opener
}

// Register makes Open accept DSNs that begin with scheme and ":" (as
// "nats:" for "nats://HOST:PORT"), opening them with open. A backend
// package calls it from its init function, so a program has the backends it
// imports and links no other: importing journal/natsjournal (for its side
// effect alone, `import _ ".../journal/natsjournal"`) adds nats:// and tls://.
// Register panics when scheme is empty, "memory" or "file", or registered
// already, as database/sql.Register does.
func Register(scheme string, open Opener) {
	registry.Lock()
	defer registry.Unlock()
	switch {
	case scheme == "" || scheme == "memory" || scheme == "file" || strings.ContainsAny(scheme, ":/"):
		panic(fmt.Sprintf("journal: Register of scheme %q", scheme))
	case open == nil:
		panic("journal: Register of a nil Opener for " + scheme)
	case registry.openers[scheme] != nil:
		panic("journal: Register called twice for scheme " + scheme)
	}
	if registry.openers == nil {
		registry.openers = map[string]Opener{}
	}
	registry.openers[scheme] = open
}

// Schemes returns the schemes Open accepts, sorted: "file", "memory" and
// those registered.
func Schemes() []string {
	registry.RLock()
	defer registry.RUnlock()
	s := []string{"file", "memory"}
	for k := range registry.openers {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// Open opens the journal a DSN names:
//
//	memory                   a new in-memory journal (NewMemory)
//	file:DIR                 the file journal in directory DIR (OpenDir)
//	SCHEME:…                 a registered backend (Register), such as
//	                         nats://HOST:PORT once journal/natsjournal is
//	                         imported
//
// opts may be nil. A DSN that names no journal is ErrInvalid.
func Open(ctx context.Context, dsn string, opts *Options) (Journal, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case dsn == "memory":
		return NewMemory(o.Owner), nil
	case strings.HasPrefix(dsn, "file:"):
		var d DirOptions
		if o.Dir != nil {
			d = *o.Dir
		}
		if d.Owner == "" {
			d.Owner = o.Owner
		}
		return OpenDir(strings.TrimPrefix(strings.TrimPrefix(dsn, "file:"), "//"), &d)
	}
	if scheme, _, ok := strings.Cut(dsn, ":"); ok {
		registry.RLock()
		open := registry.openers[scheme]
		registry.RUnlock()
		if open != nil {
			return open(ctx, dsn, &o)
		}
		if scheme == "nats" || scheme == "tls" {
			return nil, fail(ErrInvalid, "open", "", fmt.Errorf("%s:// needs the NATS backend: import github.com/agview/agview/journal/natsjournal", scheme))
		}
	}
	return nil, fail(ErrInvalid, "open", "", fmt.Errorf("%q names no journal: want one of the schemes %s (memory, file:DIR, …)", quoteShortDSN(dsn), strings.Join(Schemes(), ", ")))
}

// quoteShortDSN quotes a DSN for an error, at most its first 64 bytes.
func quoteShortDSN(dsn string) string {
	if len(dsn) > 64 {
		return dsn[:64] + "…"
	}
	return dsn
}
