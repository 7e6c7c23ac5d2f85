package threads

import (
	"context"
	"encoding/json"
	"iter"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agview/agview/client"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/store"
	"github.com/agview/agview/view"
)

// thread is one thread as this replica serves it: an attachment that folds
// the journal into a store (client.Attach, through skipJournal), the hub
// that turns the store's views into frames, and this replica's run of it,
// if any, whose client folds into the same store.
type thread struct {
	id    string
	owner string
	meta  journal.Meta
	svc   *Service
	att   *client.Attachment
	st    *store.Store
	hub   *hub
	unsub func()

	seen atomic.Uint64 // the last record the attachment was handed or skipped
	used atomic.Int64  // when a request last named the thread (Unix nanoseconds)

	mu      sync.Mutex
	local   *localRun // this replica's run in progress, nil when none
	retired bool      // detached: no run may start
}

// localRun is a run this replica runs.
type localRun struct {
	id       string
	owner    string
	stop     context.CancelCauseFunc
	recorded chan struct{} // closed when its input is in the journal
	done     chan struct{} // closed when the run is over and journalled
	err      error         // why it ended, set before done is closed
	refused0 int           // the thread's violations when it started
	recOnce  sync.Once
}

// skipJournal is the service's journal as a thread's attachment reads it:
// the records of the runs this replica runs are left out, because their
// client folds them into the same store as it receives them (one decode and
// one fold per event per replica).
type skipJournal struct {
	journal.Journal
	t *thread
}

// Read yields thread's records without this replica's runs'.
func (j skipJournal) Read(ctx context.Context, thread string, from uint64) iter.Seq2[journal.Record, error] {
	return j.t.filter(j.Journal.Read(ctx, thread, from))
}

// Follow yields thread's records without this replica's runs'.
func (j skipJournal) Follow(ctx context.Context, thread string, from uint64) iter.Seq2[journal.Record, error] {
	return j.t.filter(j.Journal.Follow(ctx, thread, from))
}

// filter leaves out of recs the records of the run this replica runs: from
// its input to its end.
func (t *thread) filter(recs iter.Seq2[journal.Record, error]) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		skipping := false
		for r, err := range recs {
			if err != nil {
				if !yield(r, err) {
					return
				}
				continue
			}
			switch r.Kind {
			case journal.KindInput:
				skipping = false
				if lr := t.localFor(inputRunID(r.Data)); lr != nil {
					skipping = true
					lr.recOnce.Do(func() { close(lr.recorded) })
				}
			case journal.KindEnd:
				if skipping {
					skipping = false
					t.seen.Store(r.Seq)
					continue
				}
			}
			if skipping {
				t.seen.Store(r.Seq)
				continue
			}
			if !yield(r, nil) {
				return
			}
			t.seen.Store(r.Seq)
		}
	}
}

// inputRunID returns the runId of a RunAgentInput's JSON ("" when none).
func inputRunID(data []byte) string {
	var in struct {
		RunID string `json:"runId"`
	}
	_ = json.Unmarshal(data, &in)
	return in.RunID
}

// localFor returns this replica's run runID of the thread, or nil.
func (t *thread) localFor(runID string) *localRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.local != nil && runID != "" && t.local.id == runID {
		return t.local
	}
	return nil
}

// view returns the thread's latest view.
func (t *thread) view() *view.View { return t.st.View() }

// catchUp waits until the store holds every record the journal holds now
// and the last run in it has ended (an idle thread), or returns ErrBusy
// when a run is in progress on any replica.
func (t *thread) catchUp(ctx context.Context) error {
	st, err := t.svc.j.Stat(ctx, t.id)
	if err != nil {
		return err
	}
	if st.Active != nil {
		return fail(ErrBusy, nil, "A run of this thread is still in progress; wait for it to end or stop it.")
	}
	_, err = t.st.Wait(ctx, func(v *view.View) bool {
		return t.seen.Load() >= st.Last && (st.Last == 0 || v.Ended())
	})
	return err
}

// touch records that a request named the thread.
func (t *thread) touch() { t.used.Store(time.Now().UnixNano()) }

// running reports whether this replica runs a run of the thread.
func (t *thread) running() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.local != nil
}

// setLocal records this replica's run in progress, unless the thread was
// detached or runs one already.
func (t *thread) setLocal(r *localRun) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.retired:
		return fail(ErrNotFound, nil, "No such thread.")
	case t.local != nil:
		return fail(ErrBusy, nil, "A run of this thread is still in progress; wait for it to end or stop it.")
	}
	t.local = r
	return nil
}

// endLocal forgets this replica's run r, which ended with err.
func (t *thread) endLocal(r *localRun, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r.err = err
	close(r.done)
	if t.local == r {
		t.local = nil
	}
}

// retire marks the thread detached when this replica runs nothing of it,
// and reports whether it did.
func (t *thread) retire(force bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.local != nil && !force {
		return false
	}
	t.retired = true
	return true
}

// checkRefusals stops this replica's run when it has had more than max
// refused events: what the journal and the view keep of a stream of junk is
// bounded.
func (t *thread) checkRefusals(v *view.View, max int) {
	t.mu.Lock()
	r := t.local
	t.mu.Unlock()
	if r != nil && max > 0 && v.ViolationCount()-r.refused0 > max {
		r.stop(fail(ErrTooManyRuns, nil, "The run was stopped after %d refused events.", max))
	}
}

// close stops following the thread and ends its viewers' streams.
func (t *thread) close() {
	t.att.Stop()
	t.unsub()
	t.hub.close()
	t.st.Close()
}
