package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agview/agview/journal"
	"github.com/agview/agview/journal/natsjournal"
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

// StopSubject is the NATS subject on which replicas sharing a NATS journal
// ask each other to stop a run: a request whose data is {"thread": ID,
// "runId": ID}, answered by the replica running it.
const StopSubject = "agview.bff.stop"

// newStopBus returns the stop bus of the replicas sharing j, answering with
// local (which cancels this replica's run of a thread, and reports whether
// it had it): over the journal's NATS connection for a NATS journal; nil
// for the others, which reach no other process.
func newStopBus(j journal.Journal, local func(thread, run string) bool, log *slog.Logger) (stopBus, error) {
	nj, ok := j.(*natsjournal.Journal)
	if !ok {
		return nil, nil
	}
	conn := nj.Conn()
	sub, err := conn.Subscribe(StopSubject, func(m *nats.Msg) {
		var req stopRequest
		if err := json.Unmarshal(m.Data, &req); err != nil {
			log.Warn("a stop request that does not decode", "err", err)
			return
		}
		if local(req.Thread, req.RunID) {
			log.Info("stopping a run at another replica's request", "thread", req.Thread, "run", req.RunID)
			_ = m.Respond([]byte(`{"stopped":true}`))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("bff: cannot listen for stop requests on NATS: %w", err)
	}
	return &natsStopBus{conn: conn, sub: sub}, nil
}

type stopRequest struct {
	Thread string `json:"thread"`
	RunID  string `json:"runId"`
}

// natsStopBus asks the replicas over NATS request/reply: the one running
// the run answers.
type natsStopBus struct {
	conn *nats.Conn
	sub  *nats.Subscription
}

func (b *natsStopBus) stop(ctx context.Context, thread, run string) error {
	data, err := json.Marshal(stopRequest{Thread: thread, RunID: run})
	if err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStopTimeout)
		defer cancel()
	}
	if _, err := b.conn.RequestWithContext(ctx, StopSubject, data); err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) {
			return fmt.Errorf("%w: no replica answered for run %s: %w", ErrElsewhere, run, err)
		}
		return fmt.Errorf("bff: cannot ask the other replicas to stop run %s: %w", run, err)
	}
	return nil
}

func (b *natsStopBus) close() { _ = b.sub.Unsubscribe() }

// DefaultStopTimeout bounds how long POST /threads/{id}/stop waits for the
// replica running the run to answer.
const DefaultStopTimeout = 5 * time.Second
