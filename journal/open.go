package journal

import (
	"context"
	"fmt"
	"strings"
)

// Options configure Open. A nil *Options means all defaults.
type Options struct {
	// Owner names this process in the leases it takes; "" means
	// DefaultOwner().
	Owner string
	// Dir configures a file journal (its Owner is Options.Owner when
	// empty).
	Dir *DirOptions
	// NATS configures a NATS journal (its Owner is Options.Owner when
	// empty).
	NATS *NATSOptions
}

// Open opens the journal a DSN names:
//
//	memory                   a new in-memory journal (NewMemory)
//	file:DIR                 the file journal in directory DIR (OpenDir)
//	nats://HOST:PORT         NATS JetStream (DialNATS); tls:// likewise
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
	case strings.HasPrefix(dsn, "nats://") || strings.HasPrefix(dsn, "tls://"):
		var n NATSOptions
		if o.NATS != nil {
			n = *o.NATS
		}
		if n.Owner == "" {
			n.Owner = o.Owner
		}
		return DialNATS(ctx, dsn, &n)
	}
	return nil, fail(ErrInvalid, "open", "", fmt.Errorf("%q names no journal: want memory, file:DIR or nats://HOST:PORT", dsn))
}
