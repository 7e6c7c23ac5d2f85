package reducer

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/view"
)

// Reduce verifies e against the protocol rules given v and folds it,
// returning the next view. On a violation it returns v itself, unchanged,
// and a *Violation (docs/protocol.md G1): the event is refused alone and v does
// not count it, so a caller that goes on after a violation should use Fold,
// which does. Warnings (a patch that cannot be applied, an unknown patch
// operation, decoding warnings e carries) are not errors: they are recorded
// in the returned view's diagnostics.
//
// Reduce is pure: it never changes v or e, and reducing the same view again
// (with the same or another event) gives an independent, correct result.
// The cost is O(size of e) for every event but MESSAGES_SNAPSHOT, whose cost
// is O(size of the snapshot + messages), and the run terminals, which visit
// what is still open.
func Reduce(v *view.View, e event.Event) (*view.View, error) {
	next, viol := fold(v, e)
	if viol != nil {
		return v, viol
	}
	return next, nil
}

// Fold is Reduce for consumers that go on after a violation. It always
// returns the view to continue from: the next view, or on a violation a
// view that counts the refused event and records the violation in its
// diagnostics but is otherwise v — except that a stale chunk stream the
// event was refused for (one whose message an explicit end already ended,
// see docs/protocol.md §4) is dropped, so that it refuses one event, not every
// later one. The error is the *Violation, nil when the event was accepted.
func Fold(v *view.View, e event.Event) (*view.View, error) {
	next, viol := fold(v, e)
	if viol != nil {
		return record(v, viol), viol
	}
	return next, nil
}

// Refuse counts one wire event that could not be folded and records why: an
// *event.DecodeError is a violation with the error's rule (E3 when it names
// none); an *event.UnknownTypeError is a warning (docs/protocol.md G2: unknown
// event types are skipped), and so is event.ErrEmpty (G18: an empty frame
// holds no event); any other error is a violation with rule E3. t
// is the event's wire type when known, else "".
func Refuse(v *view.View, t event.Type, err error) *view.View {
	var ute *event.UnknownTypeError
	rule, msg := "G2", ""
	switch {
	case errors.As(err, &ute):
		if t == "" {
			t = ute.Type
		}
		msg = fmt.Sprintf("unknown event type %q skipped", string(ute.Type))
	case errors.Is(err, event.ErrEmpty):
		rule, msg = "G18", "an empty frame (an SSE event whose data is empty) holds no event; skipped"
	default:
		return record(v, refusal(v.EventCount(), t, err))
	}
	nv, st := next(v)
	c, r := *st.Cold, *st.Cold.Rest
	r.Diags = r.Diags.Append(model.Diag{
		Index: st.Events, Kind: kindWarning, Rule: rule, Type: t, Message: msg,
	})
	c.Rest = &r
	st.Cold = &c
	st.Events++
	st.Step++
	return publish(nv)
}

// refusal turns an error that kept an event from being folded into the
// violation recorded for it.
func refusal(index int, t event.Type, err error) *Violation {
	viol := &Violation{Rule: event.RuleSchema, Index: index, Type: t, Err: err}
	if err != nil {
		viol.Message = err.Error()
	}
	var de *event.DecodeError
	if errors.As(err, &de) {
		if de.Rule != "" {
			viol.Rule = de.Rule
		}
		if viol.Type == "" {
			viol.Type = de.Type
		}
	}
	return viol
}

// End records the end of the stream. cause nil: the stream simply ended; a
// run still open ends "incomplete", with a warning (docs/protocol.md G12).
// cause matching context.Canceled or context.DeadlineExceeded (errors.Is):
// the consumer stopped the stream; a run still open is "cancelled" and its
// open invocations, messages, tool calls, reasoning and steps are abandoned.
// cause matching io.EOF (errors.Is; a transport.Error of KindUnterminated
// does): the stream ended cleanly but not as its format says, and the end was
// tolerated (G18): cause is recorded as a warning, then End goes on as for
// nil. Any other cause (a broken transport): a run still open "failed" with
// cause's text as its error, and everything open is abandoned exactly as
// RUN_ERROR does (G11). Pending chunk streams are discarded without END, as
// the reference does. End on a view that has already ended returns it.
func End(v *view.View, cause error) *view.View {
	if state(v).Cold.Rest.Ended {
		return v
	}
	nv, _ := next(v)
	fv := newFolder(nv, "")
	f := &fv
	if cause != nil && errors.Is(cause, io.EOF) {
		// A clean end, though not as the stream's format says (G18).
		f.warn("G18", "%v", cause)
		cause = nil
	}
	if f.st.Cold.Rest.Phase == model.PhaseActive {
		switch {
		case cause == nil:
			f.setRun(func(r *model.Run) { r.Status = model.RunIncomplete })
			f.warn("G12", "the stream ended while run %s was running; the run never finished", f.runName())
		case errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded):
			f.abandonAll()
			f.setRun(func(r *model.Run) { r.Status = model.RunCancelled; r.End = f.index })
			f.setRootStatus(model.InvAbandoned)
			f.warn("G11", "the stream was cancelled while run %s was running: %v", f.runName(), cause)
			f.writeRest().Phase = model.PhaseErrored
		default:
			f.abandonAll()
			f.setRun(func(r *model.Run) {
				r.Status = model.RunFailed
				r.End = f.index
				r.Err = &model.ErrorInfo{Message: cause.Error()}
			})
			f.setRootStatus(model.InvErrored)
			f.warn("G11", "the stream broke while run %s was running: %v", f.runName(), cause)
			f.writeRest().Phase = model.PhaseErrored
		}
	} else if cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded) {
		if _, started := v.LastRun(); started {
			f.warn("G11", "the stream broke after the last run ended: %v", cause)
		} else {
			f.warn("G11", "the stream broke before any run started: %v", cause)
		}
	}
	f.writeScope().Lanes = lanesEmpty
	f.writeRest().Ended = true
	f.commit()
	return publish(nv)
}

// FoldJSON decodes one wire event with event.Decode and folds it: an event
// that does not decode is refused (Refuse) and its *Violation returned; an
// unknown event type is skipped with a warning and a nil error; anything
// else goes to Fold.
func FoldJSON(v *view.View, data []byte) (*view.View, error) {
	var buf [512]byte
	d, text := scanned(data, buf[:])
	return foldWire(v, d, text, data, event.Decode)
}

// foldWire folds the wire event data: in place when d, read from it, is a
// streamed delta the fast path takes, else decoded with decode and folded.
func foldWire(v *view.View, d delta, text string, data []byte, decode func([]byte) (event.Event, error)) (*view.View, error) {
	if d.valid && admits(state(v), d, nil) {
		nv, _ := next(v)
		f := newFolder(nv, d.t)
		if f.foldIn(d, text) {
			f.commit()
			return publish(nv), nil
		}
	}
	e, err := decode(data)
	if err != nil {
		nv, viol := refuseJSON(v, err)
		if viol == nil {
			return nv, nil
		}
		return nv, viol
	}
	return Fold(v, e)
}

// refuseJSON records a wire event that did not decode: an unknown type or
// an empty frame is skipped with a warning (the violation is nil), anything
// else refused.
func refuseJSON(v *view.View, err error) (*view.View, *Violation) {
	var ute *event.UnknownTypeError
	if errors.As(err, &ute) {
		return Refuse(v, ute.Type, err), nil
	}
	if errors.Is(err, event.ErrEmpty) {
		return Refuse(v, "", err), nil
	}
	viol := refusal(v.EventCount(), "", err)
	return record(v, viol), viol
}

const (
	kindViolation = "violation"
	kindWarning   = "warning"
)

func state(v *view.View) *model.State { return (*model.View)(v).Data() }

// next returns a new, unpublished view holding a copy of v's state, and that
// state for the caller to change.
func next(v *view.View) (*model.View, *model.State) {
	nv := (*model.View)(v).Next()
	return nv, nv.Data()
}

func publish(nv *model.View) *view.View { return (*view.View)(nv) }

// record returns v counting one more event, with viol in its diagnostics.
func record(v *view.View, viol *Violation) *view.View {
	nv, st := next(v)
	c, r := *st.Cold, *st.Cold.Rest
	r.Diags = r.Diags.Append(model.Diag{
		Index: viol.Index, Kind: kindViolation, Rule: viol.Rule, Type: viol.Type, Message: viol.Message,
	})
	r.Violating++
	if len(viol.stale) > 0 {
		sc := *c.RunScope
		sc.Lanes = discardStale(sc.Lanes, viol)
		c.RunScope = &sc
	}
	c.Rest = &r
	st.Cold = &c
	st.Events++
	st.Step++
	return publish(nv)
}

// fold verifies and folds e into a new view, or returns the violation.
func fold(v *view.View, e event.Event) (*view.View, *Violation) {
	if e == nil {
		return nil, nilEvent(v)
	}
	nv, _ := next(v)
	return foldInto(nv, e)
}

// foldInto verifies and folds e into nv, a new view holding a copy of the
// state to fold onto, and publishes it, or returns the violation having
// published nothing. It is the one fold every rule is checked in.
func foldInto(nv *model.View, e event.Event) (*view.View, *Violation) {
	f := newFolder(nv, e.EventType())
	if err := f.fold(e); err != nil {
		return nil, err
	}
	return publish(nv), nil
}

func nilEvent(v *view.View) *Violation {
	return &Violation{Rule: event.RuleSchema, Index: v.EventCount(), Message: "nil event"}
}

// fold verifies and folds e into f's state, or returns the violation
// having published nothing.
func (f *folder) fold(e event.Event) *Violation {
	if err := f.event(e); err != nil {
		return err
	}
	for _, w := range e.Common().Warnings() {
		if w.Rule == event.WarnDeprecated && e.EventType().Deprecated() {
			continue // the translation warning says it
		}
		f.warn(warningRule(w), "%s", w.String())
	}
	f.commit()
	f.st.Events++
	return nil
}

// warningRule returns the rule id a decoding warning is filed under.
func warningRule(w event.Warning) string {
	switch {
	case w.Rule != "":
		return w.Rule
	case w.Pointer == "/subagentRunId":
		return event.WarnMisplacedTag
	}
	return "G2"
}

// folder folds one wire event into a private copy of the state. Nothing it
// writes is reachable from a published view until the view is published, so
// a violation found half-way simply drops the copy.
type folder struct {
	st          *model.State
	coldCopied  bool       // st.Cold is this fold's private copy
	restCopied  bool       // st.Cold.Rest is this fold's private copy
	scopeCopied bool       // st.Cold.RunScope is this fold's private copy
	callsCopied bool       // st.Cold.Calls is this fold's private copy
	wire        event.Type // the wire event's type
	cur         event.Type // the event being folded (differs for chunk expansions)
	index       int
	step        uint64
	// The invocation nodes changed in this fold: usually one or two, kept in
	// an array to spare an allocation; the rest in more.
	few        [4]dirtyNode
	nfew       int
	more       []dirtyNode
	diags      []model.Diag
	remembered *lookups // a Builder's remembered lookups, or nil
	// replaceList: a MESSAGES_SNAPSHOT rebuilds the list even when it
	// restates it (tests compare the two ways).
	replaceList bool
}

// openMsg returns the open text or reasoning message id, as the kind's open
// map's Get does.
func (f *folder) openMsg(k *msgKind, id string) (model.Open, bool) {
	if f.remembered != nil {
		cache := &f.remembered.text
		if k == reasoningMsgs {
			cache = &f.remembered.rsn
		}
		return cache.get(k.open(f.st.Cold), id)
	}
	return k.open(f.st.Cold).Get(id)
}

// openTool returns the open tool call id, as OpenTool.Get does.
func (f *folder) openTool(id string) (model.OpenCall, bool) {
	if f.remembered != nil {
		return f.remembered.tool.get(f.st.Cold.Open.Tool, id)
	}
	return f.st.Cold.Open.Tool.Get(id)
}

type dirtyNode struct {
	key  int
	n    *model.Inv
	info bool // n's info is a private copy
}

func newFolder(v *model.View, wire event.Type) folder {
	st := v.Data()
	return folder{st: st, wire: wire, cur: wire, index: st.Events, step: st.Step + 1}
}

// dirtyNodes iterates the nodes changed in this fold.
func (f *folder) dirtyNode(i int) *dirtyNode {
	if i < f.nfew {
		return &f.few[i]
	}
	return &f.more[i-f.nfew]
}

func (f *folder) ndirty() int { return f.nfew + len(f.more) }

func (f *folder) addDirty(d dirtyNode) int {
	if f.nfew < len(f.few) && len(f.more) == 0 {
		f.few[f.nfew] = d
		f.nfew++
		return f.nfew - 1
	}
	f.more = append(f.more, d)
	return f.ndirty() - 1
}

// private returns *p, which this fold may write: the first time it is
// asked (copied unset), *p is replaced by a copy of its own.
func private[T any](p **T, copied *bool) *T {
	if !*copied {
		*copied = true
		c := **p
		*p = &c
	}
	return *p
}

// writeCold returns the cold part of the state, copied on first use in this fold.
func (f *folder) writeCold() *model.Cold { return private(&f.st.Cold, &f.coldCopied) }

// writeRest returns the rest of the cold part of the state, copied (with
// the cold part) on first use in this fold.
func (f *folder) writeRest() *model.Rest { return private(&f.writeCold().Rest, &f.restCopied) }

// writeScope returns the run scope of the cold part of the state, copied
// (with the cold part) on first use in this fold.
func (f *folder) writeScope() *model.RunScope {
	return private(&f.writeCold().RunScope, &f.scopeCopied)
}

// writeCalls returns the tool call records of the cold part of the state,
// copied (with the cold part) on first use in this fold.
func (f *folder) writeCalls() *model.Calls { return private(&f.writeCold().Calls, &f.callsCopied) }

// resetScope empties the run's bookkeeping (Opens and RunScope) for a new
// run, keeping what keep returns of the run scope.
func (f *folder) resetScope(keep model.RunScope) {
	c := f.writeCold()
	c.Open, c.RunScope, f.scopeCopied = model.Opens{}, &keep, true
}

// commit publishes the nodes changed during the fold into the state and
// appends the warnings collected.
func (f *folder) commit() {
	var buf [4]*model.Inv
	subs := buf[:0]
	for i := range f.ndirty() {
		d := f.dirtyNode(i)
		if d.key < 0 {
			f.st.Root = d.n
		} else {
			subs = append(subs, d.n)
		}
	}
	f.st.SetInvs(f.writeRest, subs...)
	if len(f.diags) > 0 {
		r := f.writeRest()
		for _, d := range f.diags {
			r.Diags = r.Diags.Append(d)
		}
	}
	f.st.Step = f.step
}

// dirtyAt returns the index of node key among the nodes changed in this
// fold, copying the node on first use, and stamps it with this fold's step:
// callers take it to change it.
func (f *folder) dirtyAt(key int) int {
	for i := range f.ndirty() {
		if d := f.dirtyNode(i); d.key == key {
			d.n.Data().Version = f.step
			return i
		}
	}
	var src *model.Inv
	if key < 0 {
		src = f.st.Root
	} else {
		src = f.st.Inv(key)
	}
	n := src.Clone()
	n.Data().Version = f.step
	return f.addDirty(dirtyNode{key: key, n: n})
}

// node returns a private, changeable copy of invocation node key (-1: the
// root), copying it on first use within this fold. Its info is shared: use
// info to change that.
func (f *folder) node(key int) *model.InvData { return f.dirtyNode(f.dirtyAt(key)).n.Data() }

// inv is node for callers that need the node itself.
func (f *folder) inv(key int) *model.Inv { return f.dirtyNode(f.dirtyAt(key)).n }

// info returns a private, changeable copy of the info of node key.
func (f *folder) info(key int) *model.InvInfo {
	d := f.dirtyNode(f.dirtyAt(key))
	if !d.info {
		inf := *d.n.Data().Info
		d.n.Data().Info = &inf
		d.info = true
	}
	return d.n.Data().Info
}

// peek returns invocation node key without copying it; callers must not write.
func (f *folder) peek(key int) *model.InvData {
	for i := range f.ndirty() {
		if d := f.dirtyNode(i); d.key == key {
			return d.n.Data()
		}
	}
	if key < 0 {
		return f.st.Root.Data()
	}
	return f.st.Inv(key).Data()
}

// newNode appends a new subagent node and makes it the latest node of its id.
func (f *folder) newNode(info model.InvInfo, status model.InvStatus) int {
	info.First = f.index
	info.Run = f.runIndex()
	n := model.NewInv(model.InvData{Status: status, Version: f.step, Info: &info})
	r := f.writeRest()
	key := f.st.AppendInv(n)
	r.InvIDs = r.InvIDs.Set(info.ID, key)
	f.addDirty(dirtyNode{key: key, n: n, info: true})
	return key
}

// invFor returns the node an owner's things live in, creating an
// unannounced node for a subagent id never seen (R11).
func (f *folder) invFor(o model.Owner) int {
	if !o.Sub {
		return -1
	}
	if k, ok := f.st.Cold.Rest.InvIDs.Get(o.ID); ok {
		return k
	}
	return f.newNode(model.InvInfo{ID: o.ID, ParentKey: -1}, model.InvUnannounced)
}

func (f *folder) runIndex() int { return f.st.Cold.Rest.Runs.Len() - 1 }

// setRun changes the current run.
func (f *folder) setRun(fn func(*model.Run)) {
	i := f.runIndex()
	if i < 0 {
		return
	}
	rest := f.writeRest()
	r := rest.Runs.At(i)
	fn(&r)
	rest.Runs = rest.Runs.Set(i, r)
}

func (f *folder) runName() string {
	r, ok := f.st.Cold.Rest.Runs.Last()
	if !ok {
		return "(none)"
	}
	return fmt.Sprintf("'%s' (thread '%s')", r.RunID, r.ThreadID)
}

func (f *folder) setRootStatus(s model.InvStatus) {
	if f.peek(-1).Status != s {
		f.node(-1).Status = s
	}
}

// violation returns a *Violation for the wire event, mentioning the
// expanded event when the wire event is a chunk or a THINKING_* event.
func (f *folder) violation(rule, format string, args ...any) *Violation {
	msg := fmt.Sprintf(format, args...)
	if f.cur != f.wire && f.cur != "" {
		msg = fmt.Sprintf("%s (expanded from %s): %s", f.cur, f.wire, msg)
	}
	return &Violation{Rule: rule, Index: f.index, Type: f.wire, Message: msg}
}

func (f *folder) warn(rule, format string, args ...any) {
	f.diags = append(f.diags, model.Diag{
		Index: f.index, Kind: kindWarning, Rule: rule, Type: f.wire, Message: fmt.Sprintf(format, args...),
	})
}

// as runs fn with the event being folded set to t (for expansions).
func (f *folder) as(t event.Type, fn func() *Violation) *Violation {
	prev := f.cur
	f.cur = t
	err := fn()
	f.cur = prev
	return err
}

// tagOf returns the owner an event's optional tag names (the zero Owner for
// an untagged event).
func tagOf(e event.Event) model.Owner {
	id, ok := e.SubagentRunID()
	return model.OwnerOf(id, ok)
}
