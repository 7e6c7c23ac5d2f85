package client

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/store"
	"github.com/agview/agview/view"
)

// DefaultAttachPoll is how often an attachment asks the journal whether the
// run it shows is still active.
const DefaultAttachPoll = 500 * time.Millisecond

// AttachOptions configure Attach. A nil *AttachOptions means all defaults.
type AttachOptions struct {
	// Poll is how often the attachment asks the journal whether the run it
	// shows is still active (journal.Stat), to mark it cut once its lease is
	// gone; 0 means DefaultAttachPoll.
	Poll time.Duration
	// UntilIdle ends the attachment once no run is active on the thread and
	// everything journaled has been folded (`agview attach --json`);
	// otherwise it follows the thread until its context ends or Stop.
	UntilIdle bool
}

// Attachment is a view of a journaled thread, kept up to date: Attach folds
// what the journal holds into a new store and follows the thread live.
type Attachment struct {
	store  *store.Store
	cancel context.CancelFunc
	done   chan struct{}
	err    error // set before done is closed
}

// Attach folds the journal of thread into a new store (through a
// reducer.Builder, as agview replay folds a file) and returns once the store
// holds that first full view. It then follows the thread on a goroutine of
// its own: every record appended later is folded as it comes, exactly as the
// client that recorded it folded it (inputs, events, and the run's end), so
// a viewer that was not there when a run started sees the same view.
//
// A run that is in the journal without its end, while no writer holds its
// lease (its process died, or its NATS lease expired), was cut: the
// attachment ends it as a broken stream ends a run (status failed, open
// invocations abandoned, docs/protocol.md G11, everything received kept), with a
// *journal.Error of code journal.ErrCut as its error. The view then reads
// the run as neither running nor finished.
//
// The store is the caller's: Stop ends the following and leaves the store
// open (a process that continues the thread with its own client run stops
// following first, then runs with WithStore and WithJournal). Close the
// store when done with it.
func Attach(ctx context.Context, j journal.Journal, thread string, opts *AttachOptions) (*Attachment, error) {
	var o AttachOptions
	if opts != nil {
		o = *opts
	}
	if o.Poll <= 0 {
		o.Poll = DefaultAttachPoll
	}
	f := &JournalFolder{thread: thread, b: reducer.NewBuilder(view.New())}
	// Read up to the end, then make sure that end is where it stands: a
	// run whose lease went away while we read is cut here, at once.
	for {
		for r, err := range j.Read(ctx, thread, f.seq+1) {
			if err != nil {
				return nil, err
			}
			f.fold(r)
		}
		st, err := j.Stat(ctx, thread)
		if err != nil {
			return nil, err
		}
		if f.seq >= st.Last {
			f.check(st)
			break
		}
	}
	a := &Attachment{store: store.New(&store.Options{Initial: f.b.View()}), done: make(chan struct{})}
	f.b, f.s = nil, a.store
	fctx, cancel := context.WithCancel(ctx)
	a.cancel = cancel
	go a.follow(ctx, fctx, j, f, &o)
	return a, nil
}

// Store returns the store the attachment folds into.
func (a *Attachment) Store() *store.Store { return a.store }

// Done is closed when the attachment stops following: its context ended,
// Stop was called, the thread went idle (UntilIdle), or the journal failed
// (Err says which).
func (a *Attachment) Done() <-chan struct{} { return a.done }

// Err returns why the attachment stopped following, once Done is closed:
// nil for UntilIdle and Stop, the context's error, or the journal's error.
func (a *Attachment) Err() error {
	select {
	case <-a.done:
		return a.err
	default:
		return nil
	}
}

// Stop ends the following and waits for its goroutine. The store stays
// open. It is idempotent.
func (a *Attachment) Stop() {
	a.cancel()
	<-a.done
}

// follow folds what is appended to the thread until fctx ends (parent is
// the caller's context, to tell its end from Stop).
func (a *Attachment) follow(parent, fctx context.Context, j journal.Journal, f *JournalFolder, o *AttachOptions) {
	defer close(a.done)
	defer a.cancel()
	recs := make(chan journal.Record, 256)
	ctx := fctx
	var wg sync.WaitGroup
	var ferr error
	wg.Go(func() {
		defer close(recs)
		for r, err := range j.Follow(fctx, f.thread, f.seq+1) {
			if err != nil {
				ferr = err
				return
			}
			select {
			case recs <- r:
			case <-fctx.Done():
				return
			}
		}
	})
	defer wg.Wait()
	defer a.cancel()
	tick := time.NewTicker(o.Poll)
	defer tick.Stop()
	for {
		select {
		case r, ok := <-recs:
			if !ok {
				wg.Wait()
				switch {
				case ferr != nil:
					a.err = ferr
				case parent.Err() != nil:
					a.err = parent.Err()
				}
				return
			}
			f.fold(r)
		case <-tick.C:
			if !f.open && !o.UntilIdle {
				continue
			}
			st, err := j.Stat(ctx, f.thread)
			if err != nil {
				continue // the journal is away: ask again at the next tick
			}
			if f.seq < st.Last {
				continue // records are on their way
			}
			f.check(st)
			if o.UntilIdle && !f.open && st.Active == nil {
				return
			}
		}
	}
}

// JournalFolder folds a journaled thread's records, in order, into a
// reducer.Builder exactly as Attach folds them (agview replay reads journal
// files with it): an input begins a run, an event is folded as the client
// folded it, an end ends the run as the client's run ended (the same error
// text, or a cancellation); a run still open when the next input comes was
// cut, and ends with a *journal.Error of code journal.ErrCut.
//
// Attach also tells a cut run from the journal's lease; a JournalFolder,
// which knows no lease, leaves the last run as the records leave it.
type JournalFolder struct {
	thread string
	b      *reducer.Builder
	s      *store.Store
	seq    uint64 // the last record folded
	open   bool   // an input was folded and its run's end was not
	run    string // the open run's id
}

// NewJournalFolder returns a folder of thread's records into b.
func NewJournalFolder(b *reducer.Builder, thread string) *JournalFolder {
	return &JournalFolder{thread: thread, b: b}
}

// Fold folds one record. r.Data is not retained.
func (f *JournalFolder) Fold(r journal.Record) { f.fold(r) }

func (f *JournalFolder) fold(r journal.Record) {
	if r.Seq != 0 {
		f.seq = r.Seq
	}
	switch r.Kind {
	case journal.KindInput:
		if f.open {
			// A new run began while the last one had no end: its writer
			// went away without one.
			f.end(f.cutError())
		}
		f.open, f.run = true, ""
		rec, err := parseInputRecord(r.Data)
		if err != nil {
			return // not an input Run recorded: the run's events fold as they are
		}
		in := rec.in
		f.run = in.RunID
		if rec.stateSame {
			in.State = f.view().State()
		}
		// Run folds its input (the history it sends, docs/protocol.md G15)
		// before the stream; so does the folder. Run checked it first, so
		// it folds here as it did there. The record holds what the view
		// does not (EncodeInputRecord): the history it continues is the
		// view's. One that refers to history this view does not hold is
		// refused (reducer.InputError): the run's events fold as they are.
		if f.b != nil {
			_ = f.b.InputAfter(rec.held, rec.heldID, in)
		} else {
			_ = f.s.InputAfter(rec.held, rec.heldID, in)
		}
	case journal.KindEnd:
		var e journal.End
		_ = json.Unmarshal(r.Data, &e)
		f.open = false
		f.end(recordedEnd(e))
	default:
		if f.b != nil {
			_ = f.b.FoldJSON(r.Data) // a refusal is recorded in the view
			return
		}
		e, err := event.Decode(r.Data)
		if err != nil {
			_ = f.s.Refuse(err)
			return
		}
		_ = f.s.Dispatch(e)
	}
}

// check cuts the open run when st shows no writer holds its lease. The
// caller has folded everything up to st.Last.
func (f *JournalFolder) check(st journal.Thread) {
	if f.open && (st.Active == nil || st.Active.RunID != f.run) {
		f.open = false
		f.end(f.cutError())
	}
}

func (f *JournalFolder) cutError() error {
	return &journal.Error{Code: journal.ErrCut, Op: "attach", Thread: f.thread, Err: errors.New("run " + f.run)}
}

// view returns the view folded so far.
func (f *JournalFolder) view() *view.View {
	if f.b != nil {
		return f.b.View()
	}
	return f.s.View()
}

func (f *JournalFolder) end(cause error) {
	if f.b != nil {
		f.b.End(cause)
		return
	}
	_ = f.s.End(cause)
}

// recordedEnd turns a recorded end back into the cause client.Run ended its
// store with: nil, a cancellation, or an error of the same text.
func recordedEnd(e journal.End) error {
	switch {
	case e.Canceled:
		return canceledEnd(e.Error)
	case e.Error != "":
		return errors.New(e.Error)
	}
	return nil
}

// canceledEnd is a recorded cancellation: it matches context.Canceled and
// context.DeadlineExceeded and reads as the original error did.
type canceledEnd string

func (c canceledEnd) Error() string { return string(c) }
func (c canceledEnd) Is(target error) bool {
	return target == context.Canceled || target == context.DeadlineExceeded
}
