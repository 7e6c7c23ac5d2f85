package natsjournal

import (
	"context"
	"fmt"

	"github.com/agview/agview/journal"
)

func init() {
	journal.Register("nats", open)
	journal.Register("tls", open)
}

// open is the journal.Opener of nats:// and tls:// DSNs: opts.Backend may be
// nil or an *Options; opts.Owner fills Options.Owner when that is empty.
func open(ctx context.Context, dsn string, opts *journal.Options) (journal.Journal, error) {
	var o Options
	switch b := opts.Backend.(type) {
	case nil:
	case *Options:
		if b != nil {
			o = *b
		}
	default:
		return nil, journal.Fail(journal.ErrInvalid, "open", "", fmt.Errorf("journal.Options.Backend is a %T, want *natsjournal.Options", b))
	}
	if o.Owner == "" {
		o.Owner = opts.Owner
	}
	return Dial(ctx, dsn, &o)
}
