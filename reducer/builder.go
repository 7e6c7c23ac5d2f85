package reducer

import (
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/view"
)

// A Builder folds a stream of events as Fold, FoldJSON, Refuse and End do,
// for consumers that need the view only now and then — after a burst of
// events, once per frame, at the end of a file — rather than after every
// event. Every event is verified and folded exactly as Fold does it, by
// the same fold, with one exception, the one seam for in-place work: a
// streamed delta (text, reasoning, tool call arguments), which checks
// everything before it changes anything, appends its text in place to a
// message or call that no view the Builder has handed out can reach,
// instead of copying the view for every delta. A run of deltas thus copies
// nothing but the streamed bytes. View returns the view Fold would have
// returned after the same events.
//
// Views a Builder returns are immutable like any other; a Builder itself
// is not safe for concurrent use. The zero Builder is not usable: start one
// with NewBuilder.
type Builder struct {
	cur *view.View
	// owned: cur was made by this Builder after the last view it handed
	// out; the invocation nodes and the cold part it made since then (their
	// version or stamp after frozen, the step of that view) may change in
	// place, by streamed deltas only.
	owned      bool
	frozen     uint64
	remembered lookups   // lookups remembered for streamed deltas
	sm         streams   // where streamed deltas went
	buf        [512]byte // decoded text of an escaped delta read in place
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
	if e == nil {
		viol := nilEvent(b.cur)
		b.replace(record(b.cur, viol))
		return viol
	}
	return b.fold(e)
}

// FoldJSON decodes and folds one wire event as FoldJSON does. data is not
// retained.
func (b *Builder) FoldJSON(data []byte) error {
	d, text := scanned(data, b.buf[:])
	return b.foldWire(d, text, data, event.Decode)
}

// foldWire folds the wire event data as foldWire does.
func (b *Builder) foldWire(d delta, text string, data []byte, decode func([]byte) (event.Event, error)) error {
	if d.valid && b.inPlace(d, text) {
		return nil
	}
	e, err := decode(data)
	if err != nil {
		nv, viol := refuseJSON(b.cur, err)
		b.replace(nv)
		if viol == nil {
			return nil // an unknown type, skipped with a warning
		}
		return viol
	}
	return b.fold(e)
}

// Refuse counts one wire event that could not be folded, as Refuse does.
func (b *Builder) Refuse(t event.Type, err error) {
	b.replace(Refuse(b.cur, t, err))
}

// End records the end of the stream, as End does, and returns the final
// view, as View does.
func (b *Builder) End(cause error) *view.View {
	if nv := End(b.cur, cause); nv != b.cur {
		b.replace(nv)
	}
	return b.View()
}

// replace makes v, a view this Builder made, the current one.
func (b *Builder) replace(v *view.View) { b.cur, b.owned = v, true }

// deltaFolder returns the view to fold the delta d into (the current one
// when the Builder owns it, else a copy of it) and a folder for it.
func (b *Builder) deltaFolder(t event.Type) (*model.View, folder) {
	nv := (*model.View)(b.cur)
	if !b.owned {
		nv = nv.Next()
	}
	f := newFolder(nv, t)
	f.remembered = &b.remembered
	return nv, f
}

// fold folds e as Fold does: every event but a streamed delta takes the one
// fold the rules know.
func (b *Builder) fold(e event.Event) error {
	nv, viol := fold(b.cur, e)
	if viol != nil {
		b.replace(record(b.cur, viol))
		return viol
	}
	b.replace(nv)
	b.rememberOpened(e)
	return nil
}

// rememberOpened remembers where a text or reasoning message e just opened
// lives, so that its first delta, not only the later ones, is folded by
// streamed. A message of a thread often has a single delta.
func (b *Builder) rememberOpened(e event.Event) {
	switch e := e.(type) {
	case *event.TextMessageStart:
		b.remember(delta{t: event.TypeTextMessageContent, id: e.MessageID})
	case *event.ReasoningMessageStart:
		b.remember(delta{t: event.TypeReasoningMessageContent, id: e.MessageID})
	}
}

// inPlace folds d into the Builder's view in place. It reports false,
// having changed nothing, when d must take the full path.
func (b *Builder) inPlace(d delta, text string) bool {
	if d.t == event.TypeToolCallArgs {
		if b.streamedArgs(d, text) {
			return true
		}
	} else if b.streamed(d, text) {
		return true
	}
	if !admits(state(b.cur), d, &b.remembered) {
		return false
	}
	nv, f := b.deltaFolder(d.t)
	if !f.foldIn(d, text) { // it checks everything before it changes anything
		return false
	}
	f.commit()
	if nv != (*model.View)(b.cur) {
		b.replace(publish(nv))
	}
	if d.t == event.TypeToolCallArgs {
		b.rememberArgs(d, text)
	} else {
		b.remember(d)
	}
	return true
}

// streamedArgs folds the tool call argument delta d by appending its text
// to the call of a remembered argStream, and reports whether it could:
// exactly what foldIn would do (toolArgs), which the checks make sure (see
// streamAt.target), and the node's hot message is still the message and call
// objects the last delta made, after the last view handed out.
func (b *Builder) streamedArgs(d delta, text string) bool {
	s := b.sm.args.find(d.id)
	if s == nil || s.made <= b.frozen {
		return false
	}
	n := s.target(b, d, state(b.cur).Cold.Open.Tool)
	if n == nil {
		return false
	}
	nd := n.Data()
	if m, pos, ok := nd.HotMsg(); !ok || m != s.msg || pos != s.pos || m.Calls().At(s.idx) != s.call {
		return false
	}
	st := state(b.cur)
	st.Step++
	if text != "" {
		nd.Version = st.Step
		s.call.Args = s.call.Args.Append(text)
	}
	st.Events++
	return true
}

// rememberArgs records where the tool call argument delta d with text, just
// folded in place, went, for streamedArgs. Only a delta with text made the
// message and call objects now in the node: after an empty one, the node's
// hot message may be older than the last view handed out.
func (b *Builder) rememberArgs(d delta, text string) {
	if text == "" {
		b.sm.args.forget(d.id)
		return
	}
	open := state(b.cur).Cold.Open.Tool
	id, o, ok := b.remembered.tool.lookup(open, d.id)
	if !ok || !o.Held {
		b.sm.args.forget(d.id)
		return
	}
	var s argStream
	s.set(b, open, id, o.Owner, o.Loc)
	m, pos, ok := s.node.Data().HotMsg()
	if !ok || pos != o.Loc.Pos || o.Idx >= m.Calls().Len() || m.Calls().At(o.Idx).ID != id {
		b.sm.args.forget(id)
		return
	}
	s.msg, s.call, s.idx, s.made = m, m.Calls().At(o.Idx), o.Idx, state(b.cur).Step
	b.sm.args.put(id, s)
}

// streamed folds the text or reasoning delta d by appending its text to a
// remembered stream, and reports whether it could: exactly what foldIn
// would do, which the checks make sure (see streamAt.target), and the
// message is still the node's hot one, its content text (see
// InvData.Appendable).
func (b *Builder) streamed(d delta, text string) bool {
	tb := b.sm.table(d.t)
	if tb == nil {
		return false
	}
	s := tb.find(d.id)
	if s == nil {
		return false
	}
	st := state(b.cur)
	open := st.Cold.Open.Text
	if d.t == event.TypeReasoningMessageContent {
		open = st.Cold.Open.Rsn
	}
	n := s.target(b, d, open)
	if n == nil {
		return false
	}
	nd := n.Data()
	if id, ok := nd.Appendable(s.pos); !ok || id != d.id {
		return false
	}
	st.Step++
	if text != "" {
		nd.Version = st.Step
		n.AppendText(s.pos, text)
	}
	st.Events++
	return true
}

// remember records where the text or reasoning delta d, just folded in
// place, went, for streamed. Everything it keeps is the view's own (the
// stored id, the opener's owner), never d's strings, which may alias the
// wire bytes.
func (b *Builder) remember(d delta) {
	tb := b.sm.table(d.t)
	if tb == nil {
		return
	}
	c := state(b.cur).Cold
	cache, open := &b.remembered.text, c.Open.Text
	if d.t == event.TypeReasoningMessageContent {
		cache, open = &b.remembered.rsn, c.Open.Rsn
	}
	id, o, ok := cache.lookup(open, d.id)
	if !ok || !o.In {
		tb.forget(d.id)
		return
	}
	var s stream
	s.set(b, open, id, o.Owner, o.Loc)
	tb.put(id, s)
}
