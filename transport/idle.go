package transport

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// idleWatch ends a stream that shows no activity for Options.IdleTimeout: a
// timer checks when the last activity was and, past the timeout, calls
// abort (which cancels the request or closes the connection, ending the
// blocked read). Marking activity is one atomic store: the timer is re-armed
// for the time left only when it fires. A nil *idleWatch (no timeout) does
// nothing.
type idleWatch struct {
	d     time.Duration
	start time.Time
	last  atomic.Int64 // time since start of the last activity
	fired atomic.Bool

	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
	abort   func()
}

// newIdleWatch starts watching; it returns nil when d is not positive.
func newIdleWatch(d time.Duration, abort func()) *idleWatch {
	if d <= 0 {
		return nil
	}
	w := &idleWatch{d: d, start: time.Now(), abort: abort}
	w.mu.Lock()
	w.timer = time.AfterFunc(d, w.check)
	w.mu.Unlock()
	return w
}

// active records activity now.
func (w *idleWatch) active() {
	if w != nil {
		w.last.Store(int64(time.Since(w.start)))
	}
}

func (w *idleWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	if left := w.d - (time.Since(w.start) - time.Duration(w.last.Load())); left > 0 {
		w.timer.Reset(left)
		return
	}
	w.fired.Store(true)
	w.stopped = true
	w.abort()
}

// timedOut reports whether the watch aborted the stream.
func (w *idleWatch) timedOut() bool { return w != nil && w.fired.Load() }

// stop ends the watch; abort is not called after it returns.
func (w *idleWatch) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.stopped = true
	w.timer.Stop()
	w.mu.Unlock()
}

// err returns the KindIdle error for a stream aborted at offset.
func (w *idleWatch) err(offset int64) *Error {
	return &Error{Kind: KindIdle, Offset: offset, Idle: w.d}
}

// lineActivity is an SSE response body that records activity each time a
// read completes a line: an event's line, a comment (a keep-alive), a blank
// line. Bytes that trickle in without ending a line are no sign of life.
type lineActivity struct {
	io.ReadCloser
	w *idleWatch
}

func (r *lineActivity) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 && bytes.ContainsAny(p[:n], "\r\n") {
		r.w.active()
	}
	return n, err
}
