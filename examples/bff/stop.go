package main

import (
	"context"
	"log/slog"

	"github.com/agview/agview/journal"
)

// stopBus carries POST /threads/{id}/stop to the replica that runs the
// thread's run.
type stopBus interface {
	// stop asks the replica running run of thread to cancel it, and returns
	// once one has, or with an error.
	stop(ctx context.Context, thread, run string) error
	// close stops answering other replicas.
	close()
}

// newStopBus returns the stop bus of replicas sharing j, answering with
// local (which cancels this replica's run of a thread, and reports whether
// it had it); nil when j reaches no other process.
func newStopBus(j journal.Journal, local func(thread, run string) bool, log *slog.Logger) (stopBus, error) {
	return nil, nil
}
