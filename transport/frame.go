package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/agview/agview/event"
)

// Frame is one event's wire JSON as a source framed it, before decoding: the
// data of one SSE event, one JSONL line, one JSON-array element or one
// WebSocket text message.
type Frame struct {
	// Index is the frame's position in the stream, from 0.
	Index int
	// Offset is the byte offset where the frame begins in the stream (the
	// first line of its SSE block, its JSONL line, its array element), or -1
	// over WebSocket, which has no byte stream.
	Offset int64
	// Data is the frame's bytes. The frame owns them.
	Data json.RawMessage
}

// Runner starts a run on a live agent and streams its events. SSE and
// WebSocket implement it.
type Runner interface {
	// Run sends input and returns the run's events. See the package
	// documentation for the contract of the iterator.
	Run(ctx context.Context, input *event.RunAgentInput) iter.Seq2[event.Event, error]
}

// source is one opened stream of frames.
type source interface {
	// next returns the next frame's data, valid until the following call,
	// and the stream offset where it begins; io.EOF at the clean end of the
	// stream; or a *Error carrying at least Kind (Offset, Err and the rest
	// where the source knows them).
	next() (data []byte, offset int64, err error)
	// offset returns the stream offset reached so far, -1 when unknown.
	offset() int64
	// close releases the source. It is called once, by the goroutine that
	// iterates.
	close()
}

// stream names a source and knows how to open it.
type stream struct {
	op, src string
	// open opens the source. Its error is a *Error; Op and Source are filled
	// in by the caller when empty.
	open func(ctx context.Context) (source, error)
}

// frames returns the iterator over s's frames, each owning its bytes.
func (s *stream) frames(ctx context.Context) iter.Seq2[Frame, error] {
	return func(yield func(Frame, error) bool) {
		src, err := s.open(ctx)
		if err != nil {
			yield(Frame{Index: -1, Offset: -1}, s.fail(ctx, err, -1))
			return
		}
		defer src.close()
		tap := tapFrom(ctx)
		for i := 0; ; i++ {
			if ctx.Err() != nil {
				yield(Frame{Index: -1, Offset: -1}, s.fail(ctx, &Error{Kind: KindCanceled, Offset: src.offset()}, i))
				return
			}
			data, off, err := src.next()
			if err == io.EOF {
				if ctx.Err() != nil {
					// The peer ended the stream because we cancelled (a
					// WebSocket echoes our close): that is a cancellation.
					yield(Frame{Index: -1, Offset: -1}, s.fail(ctx, &Error{Kind: KindCanceled, Offset: src.offset()}, i))
				}
				return
			}
			if err != nil {
				yield(Frame{Index: -1, Offset: -1}, s.fail(ctx, err, i))
				return
			}
			if tap != nil {
				tap(i, data)
			}
			if !yield(Frame{Index: i, Offset: off, Data: bytes.Clone(data)}, nil) {
				return
			}
		}
	}
}

// events returns the iterator over s's decoded events, ending with a
// KindIncomplete error when the stream ends cleanly before its last run
// finished.
func (s *stream) events(ctx context.Context) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		src, err := s.open(ctx)
		if err != nil {
			yield(nil, s.fail(ctx, err, -1))
			return
		}
		defer src.close()
		tap := tapFrom(ctx)
		var runs runTracker
		for i := 0; ; i++ {
			if ctx.Err() != nil {
				yield(nil, s.fail(ctx, &Error{Kind: KindCanceled, Offset: src.offset()}, i))
				return
			}
			data, _, err := src.next()
			unterminated := errors.Is(err, KindUnterminated)
			if err == io.EOF || unterminated {
				if ctx.Err() != nil {
					// The peer ended the stream because we cancelled: a
					// cancellation, not an incomplete run.
					yield(nil, s.fail(ctx, &Error{Kind: KindCanceled, Offset: src.offset()}, i))
					return
				}
				if cause := runs.incomplete(i); cause != nil {
					if unterminated {
						cause = fmt.Errorf("%w (%v)", cause, errors.Unwrap(err))
					}
					yield(nil, s.fail(ctx, &Error{Kind: KindIncomplete, Offset: src.offset(), Err: cause}, i))
				} else if unterminated {
					// A clean end all the same (G18): the consumer warns.
					yield(nil, s.fail(ctx, err, i))
				}
				return
			}
			if err != nil {
				yield(nil, s.fail(ctx, err, i))
				return
			}
			if tap != nil {
				tap(i, data)
			}
			ev, derr := event.Decode(data)
			runs.observe(i, ev)
			if !yield(ev, derr) {
				return
			}
		}
	}
}

// fail completes a source's *Error with the stream's names and the frame
// index, and turns a failure caused by ctx into KindCanceled.
func (s *stream) fail(ctx context.Context, err error, index int) *Error {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Kind: KindIO, Offset: -1, Err: err}
	}
	if e.Op == "" {
		e.Op = s.op
	}
	if e.Source == "" {
		e.Source = s.src
	}
	e.Index = index
	if ctx.Err() != nil && e.Kind != KindIncomplete && e.Kind != KindUnterminated {
		e.Kind = KindCanceled
		e.Err = contextError(ctx)
	}
	return e
}

// contextError returns ctx's error, with its cause when one was given.
func contextError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}

// runTracker follows the run lifecycle events to tell whether a stream ended
// after its last run finished.
type runTracker struct {
	open     bool // a RUN_STARTED came after the last terminal event
	finished bool // some RUN_FINISHED or RUN_ERROR was seen
	start    int  // frame index of the open run's RUN_STARTED
	runID    string
	threadID string
}

func (t *runTracker) observe(i int, e event.Event) {
	switch e := e.(type) {
	case *event.RunStarted:
		t.open, t.start, t.runID, t.threadID = true, i, e.RunID, e.ThreadID
	case *event.RunFinished, *event.RunError:
		t.open, t.finished = false, true
	}
}

// incomplete returns why a stream of n frames that ends here is incomplete,
// or nil when its last run finished.
func (t *runTracker) incomplete(n int) error {
	switch {
	case t.open:
		return fmt.Errorf("run %q of thread %q (RUN_STARTED at frame %d) has no RUN_FINISHED or RUN_ERROR",
			t.runID, t.threadID, t.start)
	case t.finished:
		return nil
	case n == 0:
		return errors.New("the stream held no event")
	}
	return fmt.Errorf("none of its %d frames is RUN_FINISHED or RUN_ERROR", n)
}
