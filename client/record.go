package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"reflect"
	"runtime"
	"sync"
	"time"

	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// WithJournal makes the client record each run (Run and Continue) in j: an
// input the view refuses (reducer.Input) is refused before anything is
// recorded; then, before anything is sent, the run takes its thread's lease (a run already active on the
// thread, in this process or another, refuses the run with journal.ErrBusy
// and nothing is sent), and the RunAgentInput is appended; then every event
// as it arrives, its wire bytes exactly as received, before it is folded
// (nothing folded is ever missing from the journal); then how the run ended
// (a journal.KindEnd record), and the lease is released. A run asked to stop
// through the journal (Journal.Stop, from any process) is cancelled: Run
// returns an error matching context.Canceled and journal.ErrStopped, and the
// run reads as cancelled.
//
// Events are appended in batches: while the client folds one batch, the
// transport goes on reading the next, so journaling costs the live path
// little. An append that fails (a NATS server away) does not stop the run:
// the client's view is unharmed, and onError, when not nil, is called with
// the *journal.Error (on the goroutine running Run). A NATS writer keeps the
// records it could not store and stores them with the next batch.
//
// Runners given with WithRunner that are not built on package transport are
// recorded by re-encoding each decoded event (event.Encode); a frame such a
// runner could not decode is then missing from the journal.
func WithJournal(j journal.Journal, onError func(error)) Option {
	return func(c *config) { c.journal, c.journalErr = j, onError }
}

// Journal returns the journal the client records into, or nil.
func (c *Client) Journal() journal.Journal { return c.journal }

// endTimeout bounds the appending of a run's end and the release of its
// lease, which happen even when the run was cancelled.
const endTimeout = 5 * time.Second

// recorder journals one run.
type recorder struct {
	w       journal.Writer
	onError func(error)
	recs    []journal.Record
	ended   bool
	trusted bool   // the store's view before the run was the journal's (journalView)
	failed  bool   // an append failed: the journal may not hold what the store folded
	last    uint64 // the sequence number of the run's end record
}

// record starts journaling the run of in, or returns nil when the client has
// no journal. Its error refuses the run.
func (c *Client) record(ctx context.Context, in *event.RunAgentInput) (*recorder, error) {
	if c.journal == nil {
		return nil, nil
	}
	w, err := c.journal.Begin(ctx, journal.Lease{Thread: in.ThreadID, RunID: in.RunID})
	if err != nil {
		return nil, err
	}
	// Under the lease, the journal's end stays where it is: the input
	// record holds only what the thread's fold up to there does not.
	base, trusted, err := c.journalView(ctx, in.ThreadID)
	var b []byte
	if err == nil {
		b, err = EncodeInputRecord(base, in)
	}
	if err == nil {
		_, err = w.Append(ctx, journal.Record{Kind: journal.KindInput, Data: b})
	}
	if err != nil {
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endTimeout)
		defer cancel()
		_ = w.End(ectx)
		c.known = knownView{}
		return nil, err
	}
	return &recorder{w: w, onError: c.journalErr, trusted: trusted}, nil
}

// knownView is the view the journal of a thread folds into up to a record:
// the client's own view after a run it recorded, when nothing else had been
// folded into its store (see journalView).
type knownView struct {
	j      journal.Journal
	thread string
	seq    uint64 // the run's end record
	v      *view.View
}

// journalView returns the view the journal folds thread into up to its last
// record (the caller holds the thread's lease, so nothing is appended
// meanwhile), and whether the client's store holds that view, as far as
// the next run can tell: the same messages and state, so that the view the
// run leaves in the store is the one the journal will fold into, and the
// next run may use it as its base (c.known).
//
// When the last record is the end of the client's own last run, and the
// store's view is still the one that run left, that view is the fold: no
// read. Otherwise the thread is read and folded (once per process that
// continues a thread another one wrote, and at every run of a client whose
// store is not the journal's view).
func (c *Client) journalView(ctx context.Context, thread string) (*view.View, bool, error) {
	st, err := c.journal.Stat(ctx, thread)
	if err != nil {
		return nil, false, err
	}
	cur := c.store.View()
	if k := c.known; k.j == c.journal && k.thread == thread && k.seq == st.Last && k.v != nil {
		return k.v, cur == k.v || sameConversation(cur, k.v), nil
	}
	if st.Last == 0 {
		fresh := view.New()
		return fresh, sameConversation(cur, fresh), nil
	}
	f := &JournalFolder{thread: thread, b: reducer.NewBuilder(view.New())}
	for r, err := range c.journal.Read(ctx, thread, 1) {
		if err != nil {
			return nil, false, err
		}
		if r.Seq > st.Last {
			break
		}
		f.fold(r)
	}
	if f.open {
		// The last run has no end and its writer is gone (we hold the
		// lease): readers cut it before they read this input, so do we.
		f.open = false
		f.end(f.cutError())
	}
	v := f.b.View()
	return v, sameConversation(cur, v), nil
}

// sameConversation reports whether two views hold the same events count,
// messages and state: a run folded onto either leaves the same messages and
// state.
func sameConversation(a, b *view.View) bool {
	if a.EventCount() != b.EventCount() || a.MessageCount() != b.MessageCount() || !bytes.Equal(a.State(), b.State()) {
		return false
	}
	next, stop := iter.Pull(b.Messages())
	defer stop()
	for m := range a.Messages() {
		n, ok := next()
		if !ok || !reflect.DeepEqual(m, n) {
			return false
		}
	}
	return true
}

func (r *recorder) report(err error) {
	if err != nil {
		r.failed = true
		if r.onError != nil {
			r.onError(err)
		}
	}
}

// end appends how the run ended (cause as client.Run ends the store with
// it) and releases the lease. It is idempotent and does nothing on a nil
// recorder.
func (r *recorder) end(ctx context.Context, cause error) {
	if r == nil || r.ended {
		return
	}
	r.ended = true
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endTimeout)
	defer cancel()
	var e journal.End
	if cause != nil {
		e.Error = cause.Error()
		e.Canceled = errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded)
	}
	b, _ := json.Marshal(e)
	last, err := r.w.Append(ctx, journal.Record{Kind: journal.KindEnd, Data: b})
	r.last = last
	r.report(err)
	r.report(r.w.End(ctx))
}

// known returns what the next run may take as the journal's view of the
// thread once the store has ended the run with v: v, when the store's view
// was the journal's before the run and every record was stored.
func (r *recorder) known(j journal.Journal, thread string, v *view.View) knownView {
	if r == nil || !r.ended || r.failed || !r.trusted || r.last == 0 {
		return knownView{}
	}
	return knownView{j: j, thread: thread, seq: r.last, v: v}
}

// events runs runner and yields its events after journaling them, a batch
// at a time.
func (r *recorder) events(ctx context.Context, runner transport.Runner, in *event.RunAgentInput) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		ctx, cancel := context.WithCancelCause(ctx)
		p := newPipe()
		var wg sync.WaitGroup
		defer func() {
			cancel(nil)
			p.stop()
			wg.Wait()
		}()
		wg.Go(func() {
			select {
			case <-r.w.Stopped(): // Journal.Stop, from any process
				l := r.w.Lease()
				cancel(&journal.Error{Code: journal.ErrStopped, Op: "stop", Thread: l.Thread, Err: errors.New("run " + l.RunID)})
			case <-ctx.Done():
			}
		})
		wg.Go(func() {
			defer p.close()
			var frame []byte
			tapped := false
			tctx := transport.WithTap(ctx, func(_ int, data []byte) { frame, tapped = data, true })
			for e, err := range runner.Run(tctx, in) {
				data := frame
				switch {
				case tapped:
				case err == nil:
					data, _ = event.Encode(e) // a runner without a tap
				default:
					data = nil // a failure of the stream, not a frame
				}
				tapped = false
				if !p.put(e, err, data) {
					return
				}
			}
		})
		for {
			b, ok := p.take()
			if !ok {
				return
			}
			r.recs = r.recs[:0]
			for _, it := range b.items {
				var te *transport.Error
				switch {
				case it.n > 0:
					r.recs = append(r.recs, journal.Record{Kind: journal.KindEvent, Data: b.arena[it.off : it.off+it.n]})
				case !errors.As(it.err, &te):
					r.failed = true // folded without a frame: the journal will not fold it
				}
			}
			if len(r.recs) > 0 {
				// These events arrived and will be folded: they are appended
				// even when the run has just been cancelled or stopped
				// (bounded like the run's end), so that nothing folded is
				// missing from the journal.
				actx, acancel := context.WithTimeout(context.WithoutCancel(ctx), endTimeout)
				_, err := r.w.Append(actx, r.recs...)
				acancel()
				r.report(err)
			}
			for i, it := range b.items {
				if !yield(it.e, it.err) {
					if it.err == nil || i < len(b.items)-1 {
						// Journaled, not folded (WithStopOnViolation): the
						// journal's view is not the store's.
						r.failed = true
					}
					return
				}
			}
			p.recycle(b)
		}
	}
}

// pipe hands batches of events from the goroutine reading the transport to
// the one journaling and folding them. The reader fills one batch while the
// other is being handled.
type pipe struct {
	mu      sync.Mutex
	cur     *batch // being filled
	spare   *batch // handled, ready for reuse
	closed  bool   // the reader is done
	stopped bool   // the folder is done
	bell    chan struct{}
	room    chan struct{}
}

// batch is a run of events with their wire bytes in one arena.
type batch struct {
	items []pipeItem
	arena []byte
}

type pipeItem struct {
	e      event.Event
	err    error
	off, n int // the frame's bytes in the arena; n == 0: none
}

// Bounds of one batch: a full batch makes the reader wait.
const (
	maxBatchItems = 1024
	maxBatchBytes = 1 << 20
	// minBatchItems: a batch smaller than this waits for one scheduler pass.
	minBatchItems = 64
)

func newPipe() *pipe {
	return &pipe{cur: &batch{}, bell: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

func ring(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// put adds an event to the batch being filled, copying data. It reports
// false once the folder has stopped.
func (p *pipe) put(e event.Event, err error, data []byte) bool {
	p.mu.Lock()
	for !p.stopped && len(p.cur.items) > 0 && (len(p.cur.items) >= maxBatchItems || len(p.cur.arena) >= maxBatchBytes) {
		p.mu.Unlock()
		<-p.room
		p.mu.Lock()
	}
	if p.stopped {
		p.mu.Unlock()
		return false
	}
	b := p.cur
	b.items = append(b.items, pipeItem{e: e, err: err, off: len(b.arena), n: len(data)})
	b.arena = append(b.arena, data...)
	first := len(b.items) == 1
	p.mu.Unlock()
	if first {
		ring(p.bell)
	}
	return true
}

// take returns the filled batch, waiting for one; false when the reader is
// done and everything was taken.
func (p *pipe) take() (*batch, bool) {
	waited := false
	for {
		p.mu.Lock()
		if n := len(p.cur.items); n > 0 && n < minBatchItems && !p.closed && !waited {
			// A small batch: let the reader add what it has at hand first,
			// so that one append carries more events (one write, one
			// publish), at the cost of a scheduler pass.
			p.mu.Unlock()
			waited = true
			runtime.Gosched()
			continue
		}
		if len(p.cur.items) > 0 {
			b := p.cur
			p.cur = p.spare
			if p.cur == nil {
				p.cur = &batch{}
			}
			p.spare = nil
			p.mu.Unlock()
			ring(p.room)
			return b, true
		}
		if p.closed {
			p.mu.Unlock()
			return nil, false
		}
		p.mu.Unlock()
		<-p.bell
	}
}

// recycle gives a handled batch back for reuse.
func (p *pipe) recycle(b *batch) {
	clear(b.items)
	b.items, b.arena = b.items[:0], b.arena[:0]
	if cap(b.arena) > 4*maxBatchBytes {
		b.arena = nil
	}
	p.mu.Lock()
	p.spare = b
	p.mu.Unlock()
}

func (p *pipe) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	ring(p.bell)
}

func (p *pipe) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	ring(p.room)
}

// errRunAborted is the end recorded when Run returns without ending the run
// normally (the store was closed, the reducer panicked).
var errRunAborted = errors.New("client: the run was aborted")
