package main

import (
	"context"
	"errors"
	"sync"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/tui"
)

// conversation continues the watched thread from the terminal UI: each turn
// is Client.Continue with the user's message and answers (the next input is
// the thread's history, its state, the message and the answers, as the
// reference client builds it), on the same client, so that the TUI shows it
// from the same store.
type conversation struct {
	c *client.Client

	mu  sync.Mutex
	err error // how the last run ended
}

// run runs input on the client and records how it ended.
func (cv *conversation) run(ctx context.Context, input *event.RunAgentInput) error {
	_, err := cv.c.Run(ctx, input)
	return cv.record(err)
}

// record records how a run ended and returns err. A turn the client refused
// before sending anything (its answers do not fit the pending interrupts)
// changes nothing: the last run's outcome stands.
func (cv *conversation) record(err error) error {
	var refused *client.InterruptError
	if errors.As(err, &refused) {
		return err
	}
	cv.mu.Lock()
	cv.err = err
	cv.mu.Unlock()
	return err
}

// lastErr returns the error the last run ended with.
func (cv *conversation) lastErr() error {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	return cv.err
}

// Continue implements tui.Conversation.
func (cv *conversation) Continue(ctx context.Context, t tui.Turn) error {
	opts := &client.InputOptions{Answer: t.Answer}
	if t.Message != "" {
		opts.Messages = []event.Message{client.UserMessage(t.Message)}
	}
	_, err := cv.c.Continue(ctx, opts)
	return cv.record(err)
}
