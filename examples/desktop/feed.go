package main

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/store"
	"github.com/agview/agview/view"
)

// feed hands the store's latest view to the UI goroutine. The store calls
// its subscriber on a goroutine of its own, with the latest view (skipping
// views when the subscriber is slower than the stream); the subscriber
// stores it in an atomic pointer and asks the window for a frame. The UI
// goroutine loads the pointer when it draws. Neither side ever waits for the
// other: a burst of a thousand events costs at most a few frames, each
// drawing the latest view.
type feed struct {
	latest atomic.Pointer[view.View]
}

// subscribe starts feeding from s; invalidate asks the window for a frame
// and must not block (Gio's Window.Invalidate does not).
func (f *feed) subscribe(s *store.Store, invalidate func()) (unsubscribe func()) {
	return s.Subscribe(func(v *view.View) {
		f.latest.Store(v)
		invalidate()
	})
}

// view returns the latest view delivered, nil before the first. It never
// blocks.
func (f *feed) view() *view.View { return f.latest.Load() }

// turner runs the next turn of a conversation: *client.Client.
type turner interface {
	Run(ctx context.Context, input *event.RunAgentInput) (*view.View, error)
	Continue(ctx context.Context, opts *client.InputOptions) (*view.View, error)
}

// sender runs turns on a goroutine of its own, one at a time, so that the UI
// goroutine never makes a call that blocks: send and run return at once,
// false when a turn is already under way. What the turn changes reaches
// the window through the store, like any other event; the turn's error, if
// any, is kept for the UI to show.
type sender struct {
	ctx        context.Context
	c          turner
	invalidate func()
	busy       atomic.Bool
	err        atomic.Pointer[error]
	wg         sync.WaitGroup
}

func newSender(ctx context.Context, c turner, invalidate func()) *sender {
	return &sender{ctx: ctx, c: c, invalidate: invalidate}
}

// send starts Continue(opts) and reports whether it did.
func (s *sender) send(opts *client.InputOptions) bool {
	return s.do(func(ctx context.Context) error {
		_, err := s.c.Continue(ctx, opts)
		return err
	})
}

// run starts Run(input) and reports whether it did.
func (s *sender) run(input *event.RunAgentInput) bool {
	return s.do(func(ctx context.Context) error {
		_, err := s.c.Run(ctx, input)
		return err
	})
}

func (s *sender) do(turn func(context.Context) error) bool {
	if !s.busy.CompareAndSwap(false, true) {
		return false
	}
	s.err.Store(nil)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := turn(s.ctx)
		if err != nil {
			s.err.Store(&err)
		}
		s.busy.Store(false)
		s.invalidate()
	}()
	return true
}

// sending reports whether a turn is under way.
func (s *sender) sending() bool { return s.busy.Load() }

// lastErr returns the error of the last turn, nil when it succeeded.
func (s *sender) lastErr() error {
	if p := s.err.Load(); p != nil {
		return *p
	}
	return nil
}

// wait waits for the turn under way, if any (its context ends first when
// the program stops).
func (s *sender) wait() { s.wg.Wait() }
