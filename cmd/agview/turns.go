package main

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/tui"
)

// conversation continues the watched thread from the terminal UI: each turn
// is the next input client.NextInput builds from the client's view (the
// history, the state, the user's message, the answers to the pending
// interrupts), run on the same client, so the TUI shows it from the same
// store.
type conversation struct {
	c *client.Client

	mu  sync.Mutex
	err error // how the last run ended
}

// run runs input on the client and records how it ended.
func (cv *conversation) run(ctx context.Context, input *event.RunAgentInput) error {
	_, err := cv.c.Run(ctx, input)
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
		text, err := json.Marshal(t.Message)
		if err != nil {
			return err
		}
		opts.Messages = []event.Message{{ID: client.NewID(), Role: event.RoleUser, Content: text}}
	}
	return cv.run(ctx, client.NextInput(cv.c.Store().View(), opts))
}
