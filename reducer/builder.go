package reducer

import (
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/view"
)

// A Builder folds a stream of events as Fold, FoldJSON, Refuse and End do,
// for consumers that need the view only now and then — after a burst of
// events, once per frame, at the end of a file — rather than after every
// event. Between two calls of View it may change in place what no view it
// has returned can reach: a run of streamed deltas (text, reasoning, tool
// call arguments) then costs no copy of the view or of the invocations they
// stream into, and leaves far less garbage than folding the events one by
// one. Every event is verified exactly as Fold verifies it, and View returns
// the view Fold would have returned after the same events.
//
// Views a Builder returns are immutable like any other; a Builder itself
// is not safe for concurrent use. The zero Builder is not usable: start one
// with NewBuilder.
type Builder struct {
	cur *view.View
	// owned: cur was made by this Builder after the last view it handed
	// out, and may change in place, as may the invocation nodes stamped
	// with a version after frozen, the step of that view.
	owned  bool
	frozen uint64
	buf    [512]byte // decoded text of an escaped delta read in place
}

// NewBuilder returns a Builder that goes on from v (view.New() for a new
// stream). v itself is never changed.
func NewBuilder(v *view.View) *Builder { return &Builder{cur: v, frozen: state(v).Step} }

// View returns the view of everything folded so far. It may be called any
// number of times; the Builder goes on from the view it returns, which
// never changes.
func (b *Builder) View() *view.View {
	b.owned, b.frozen = false, state(b.cur).Step
	return b.cur
}

// Fold verifies and folds e as Fold does, and returns the *Violation when e
// was refused (the view then counts it and records the violation).
func (b *Builder) Fold(e event.Event) error {
	if d, text := deltaOf(e); d.valid && b.inPlace(d, text) {
		return nil
	}
	var err error
	b.cur, err = Fold(b.cur, e)
	b.owned = true
	return err
}

// FoldJSON decodes and folds one wire event as FoldJSON does. data is not
// retained.
func (b *Builder) FoldJSON(data []byte) error {
	if d, text := scanned(data, b.buf[:]); d.valid && b.inPlace(d, text) {
		return nil
	}
	var err error
	b.cur, err = FoldJSON(b.cur, data)
	b.owned = true
	return err
}

// Refuse counts one wire event that could not be folded, as Refuse does.
func (b *Builder) Refuse(t event.Type, err error) {
	b.cur = Refuse(b.cur, t, err)
	b.owned = true
}

// End records the end of the stream, as End does, and returns the final
// view, as View does.
func (b *Builder) End(cause error) *view.View {
	b.cur = End(b.cur, cause)
	b.owned = true
	return b.View()
}

// inPlace folds d into the Builder's view in place. It reports false,
// having changed nothing, when d must take the full path.
func (b *Builder) inPlace(d delta, text string) bool {
	if !admits(state(b.cur), d) {
		return false
	}
	var nv *model.View
	if b.owned {
		nv = (*model.View)(b.cur)
	} else {
		nv, _ = next(b.cur)
	}
	f := newFolder(nv, d.t)
	f.transient, f.frozen = true, b.frozen
	if !f.foldIn(d, text) {
		return false // a fresh nv is simply dropped
	}
	f.commit()
	b.cur, b.owned = publish(nv), true
	return true
}
