package view

import (
	"bytes"
	"encoding/json"
	"iter"
	"slices"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/patch"
)

// View is one immutable snapshot of everything folded from a stream so far.
// Build views with package reducer; the zero value is not usable, start from
// [New].
type View model.View

// New returns the view of an empty stream: no runs, no messages, state {},
// no events.
func New() *View {
	root := model.NewInv(model.InvData{
		Key:    -1,
		Status: model.InvUnannounced,
		Info:   &model.InvInfo{Root: true, Announced: true, ParentKey: -1, First: -1},
	})
	return (*View)(model.NewView(model.NewState(root, patch.EmptyObject())))
}

func (v *View) st() *model.State { return (*model.View)(v).Data() }

// EventCount returns the number of wire events seen: folded, refused or
// skipped. It is the index the next event will have.
func (v *View) EventCount() int { return v.st().Events }

// Ended reports whether the end of the stream has been recorded (reducer.End).
func (v *View) Ended() bool { return v.st().Ended() }

// Runs returns the runs of the stream in order. The slice is a fresh copy.
func (v *View) Runs() []Run {
	st := v.st()
	out := make([]Run, 0, st.NRuns())
	for r := range st.Runs() {
		out = append(out, runOf(&r))
	}
	return out
}

// LastRun returns the latest run, and false when no run has started.
func (v *View) LastRun() (Run, bool) {
	r, ok := v.st().LastRun()
	if !ok {
		return Run{}, false
	}
	return runOf(&r), true
}

// Thread returns the conversation's thread id: the threadId of the last run
// input folded into the view (reducer.Input, as a client does before each
// run), else the threadId of the last run's RUN_STARTED, else "". A
// client's next run goes to this thread (client.NextInput).
func (v *View) Thread() string {
	st := v.st()
	if t := st.Thread(); t != "" {
		return t
	}
	if r, ok := st.LastRun(); ok {
		return r.ThreadID
	}
	return ""
}

// Root returns the parent agent: the invocation events without a
// subagentRunId belong to. Its ID is "" and it has no parent.
func (v *View) Root() *Invocation { return (*Invocation)(v.st().Root) }

// Invocation returns the subagent invocation with the given subagentRunId, or
// nil if no event has named it. When an id was reused for a new invocation in
// a later run (docs/protocol.md G10) it returns the latest one. Invocation("")
// returns the subagent whose id is "" if there is one, else the root.
//
// The pointer is shared between successive views while the invocation is
// unchanged: comparing the pointers two views return tells whether anything
// about the invocation changed (see the package documentation).
func (v *View) Invocation(id string) *Invocation {
	st := v.st()
	if k, ok := st.InvKey(id); ok {
		return (*Invocation)(st.Inv(k))
	}
	if id == "" {
		return (*Invocation)(st.Root)
	}
	return nil
}

// Invocations iterates the subagent invocations in the order they were
// first seen. The parent agent is not among them: Root returns it (its
// messages, tool calls and steps are those of untagged events).
func (v *View) Invocations() iter.Seq[*Invocation] {
	st := v.st()
	return func(yield func(*Invocation) bool) {
		st.EachInv(func(n *model.Inv) bool { return yield((*Invocation)(n)) })
	}
}

// ChangedSince iterates the invocations of v, the root first, that changed
// since old (a view v was folded from, directly or not) or are new since
// then: what a front end redraws when it goes from old to v. It compares
// each invocation's node with old's (nodes are shared while unchanged), so
// it costs a pointer comparison per invocation and reads nothing else. old
// nil yields every invocation.
func (v *View) ChangedSince(old *View) iter.Seq[*Invocation] {
	st := v.st()
	return func(yield func(*Invocation) bool) {
		if old == nil {
			if yield(v.Root()) {
				st.EachInv(func(n *model.Inv) bool { return yield((*Invocation)(n)) })
			}
			return
		}
		ost := old.st()
		if st.Root != ost.Root && !yield(v.Root()) {
			return
		}
		n, key := ost.NInvs(), 0
		st.EachInv(func(inv *model.Inv) bool {
			changed := key >= n || ost.Inv(key) != inv
			key++
			return !changed || yield((*Invocation)(inv))
		})
	}
}

// InvocationCount returns the number of subagent invocations.
func (v *View) InvocationCount() int { return v.st().NInvs() }

// Messages iterates the AG-UI message list exactly as the reference client
// builds it (docs/protocol.md §7, G14): protocol order, each message carrying its
// subagentRunId. Each message yielded owns its memory.
func (v *View) Messages() iter.Seq[event.Message] {
	st := v.st()
	return func(yield func(event.Message) bool) {
		for _, m := range st.ListMsgs() {
			if !yield(m.Message()) {
				return
			}
		}
	}
}

// MessageList returns the AG-UI message list as a fresh slice (see Messages).
func (v *View) MessageList() []event.Message {
	st := v.st()
	out := make([]event.Message, 0, st.ListLen())
	for m := range v.Messages() {
		out = append(out, m)
	}
	return out
}

// MessageCount returns the number of messages in the AG-UI list.
func (v *View) MessageCount() int { return v.st().ListLen() }

// Message returns the message with the given id, and false if the list has
// none.
func (v *View) Message(id string) (event.Message, bool) {
	m := v.st().ListedMsg(id)
	if m == nil {
		return event.Message{}, false
	}
	return m.Message(), true
}

// MessageStatus returns whether the message with the given id is still open
// (being streamed), closed, or was abandoned when its run errored, its
// transport broke or its stream was cancelled (G11); false if there is no
// such message. Messages that arrived whole (history, snapshots, tool
// results) are closed.
func (v *View) MessageStatus(id string) (EntityStatus, bool) {
	m := v.st().ListedMsg(id)
	if m == nil {
		return "", false
	}
	return entityStatus(m.Status), true
}

// ToolCall returns the tool call with the given id as held by its message,
// and false if no message holds it.
func (v *View) ToolCall(id string) (ToolCall, bool) {
	m, i, ok := v.st().CallMsg(id)
	if !ok {
		return ToolCall{}, false
	}
	return toolCallOf(m.Calls().At(i), m.ID), true
}

// State returns the run-scoped state document as compact JSON (any JSON
// value; {} before any STATE_SNAPSHOT). The slice is a fresh copy.
func (v *View) State() json.RawMessage { return v.st().Doc().JSON() }

// StateChangedBy names the producer of the last STATE_SNAPSHOT or
// STATE_DELTA that changed the state: a subagentRunId and true, or ("",
// false) for the parent agent or when nothing has changed it. This is
// provenance: the state is one run-scoped document whoever changes it.
func (v *View) StateChangedBy() (subagentRunID string, ok bool) {
	by, ok := v.st().DocChangedBy()
	if !ok || !by.Sub {
		return "", false
	}
	return by.ID, true
}

// PendingInterrupts returns the interrupts the last finished run left
// awaiting an answer (its interrupt outcome's interrupts; empty after a run
// that finished otherwise). Each carries the subagent that raised it. The
// slice is a fresh copy.
func (v *View) PendingInterrupts() []event.Interrupt {
	if out := model.CloneInterrupts(v.st().Pending()); out != nil {
		return out
	}
	return []event.Interrupt{}
}

// Diagnostics returns the violations and warnings recorded, in the order
// of the events they concern: all of them, or, past 2,000, the first 1,000
// and the last 1,000 (DiagnosticsOmitted counts the others, which the view
// does not keep). The slice is a fresh copy.
func (v *View) Diagnostics() []Diagnostic {
	st := v.st()
	out := make([]Diagnostic, 0, st.NDiags())
	for d := range st.Diags() {
		out = append(out, Diagnostic{Index: d.Index, Kind: DiagKind(d.Kind), Rule: d.Rule, Type: d.Type, Message: d.Message})
	}
	return out
}

// DiagnosticsOmitted returns the number of diagnostics recorded but left
// out of Diagnostics: those after the first 1,000 and before the last
// 1,000 of a stream that has more than 2,000. A view keeps no more than
// those, so that a stream refused event after event holds a view of
// bounded size.
func (v *View) DiagnosticsOmitted() int { return v.st().DiagsOmitted() }

// ViolationCount returns the number of refused events recorded, those
// DiagnosticsOmitted counts included.
func (v *View) ViolationCount() int { return v.st().Violations() }

// RunStatus is the status of a run.
type RunStatus string

// Run statuses.
const (
	// RunRunning: RUN_STARTED came, nothing has ended the run yet.
	RunRunning RunStatus = "running"
	// RunFinished: RUN_FINISHED with a success outcome (or none).
	RunFinished RunStatus = "finished"
	// RunErrored: RUN_ERROR.
	RunErrored RunStatus = "errored"
	// RunInterrupted: RUN_FINISHED with an interrupt outcome; the interrupts
	// await an answer in the next run.
	RunInterrupted RunStatus = "interrupted"
	// RunIncomplete: the stream ended while the run was running (G12).
	RunIncomplete RunStatus = "incomplete"
	// RunCancelled: RUN_FINISHED with a cancelled outcome, or the consumer
	// cancelled the stream (its context) while the run was running.
	RunCancelled RunStatus = "cancelled"
	// RunFailed: the transport broke while the run was running (G11).
	RunFailed RunStatus = "failed"
)

// Run is one run of the stream.
type Run struct {
	// ThreadID and RunID are RUN_STARTED's; both "" for a run a RUN_ERROR
	// opened without RUN_STARTED.
	ThreadID string
	RunID    string
	// ParentRunID is RUN_STARTED's parentRunId, nil when absent.
	ParentRunID *string
	Status      RunStatus
	// Outcome is RUN_FINISHED's outcome as sent; nil when absent (success)
	// or while the run has not finished.
	Outcome *event.RunFinishedOutcome
	// Result is RUN_FINISHED's result; nil when absent.
	Result json.RawMessage
	// Error is set for an errored or failed run: RUN_ERROR's message and
	// code, or the transport's error.
	Error *Error
	// Interrupts are the interrupt outcome's interrupts, each carrying the
	// subagent that raised it (Subagent nil: the parent agent).
	Interrupts []event.Interrupt
	// Usage is the token usage the run reported, as sent: RUN_FINISHED's
	// usage, or RUN_ERROR's for an errored run (one entry per provider or
	// model); nil when the run reported none. Tokens sums it.
	Usage []event.TokenUsage
	// StartIndex is the index of the event that opened the run; EndIndex of
	// the event that ended it, -1 while it has not ended.
	StartIndex int
	EndIndex   int
}

func runOf(r *model.Run) Run {
	out := Run{
		ThreadID:    r.ThreadID,
		RunID:       r.RunID,
		ParentRunID: cloneStr(r.ParentRunID),
		Status:      RunStatus(r.Status),
		Result:      bytes.Clone(r.Result),
		Error:       errorOf(r.Err),
		Usage:       model.CloneUsage(r.Usage),
		StartIndex:  r.Start,
		EndIndex:    r.End,
	}
	if r.Interrupts != nil {
		out.Interrupts = model.CloneInterrupts(r.Interrupts)
	}
	if r.Outcome != nil {
		o := *r.Outcome
		o.PendingToolCallIDs = slices.Clone(o.PendingToolCallIDs)
		o.Interrupts = model.CloneInterrupts(o.Interrupts)
		out.Outcome = &o
	}
	return out
}

// Tokens sums a run's token usage over its entries (Run.Usage); Reported
// is false when the run reported no usage at all.
type Tokens struct {
	// Reported: the run reported usage (RUN_FINISHED or RUN_ERROR carried a
	// usage list, even an empty one).
	Reported bool
	// Input, Output and Total are the tokens read, written and in all. An
	// entry without totalTokens counts its input plus output in Total.
	Input, Output, Total int64
	// Reasoning, CachedInput and CacheWriteInput sum the entries' optional
	// counts of the same names.
	Reasoning, CachedInput, CacheWriteInput int64
}

// Tokens returns the run's token usage summed over its entries: what a
// front end shows as a run's tokens in, out and total.
func (r *Run) Tokens() Tokens {
	t := Tokens{Reported: r.Usage != nil}
	n := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	for _, u := range r.Usage {
		t.Input += n(u.InputTokens)
		t.Output += n(u.OutputTokens)
		if u.TotalTokens != nil {
			t.Total += *u.TotalTokens
		} else {
			t.Total += n(u.InputTokens) + n(u.OutputTokens)
		}
		t.Reasoning += n(u.ReasoningTokens)
		t.CachedInput += n(u.CachedInputTokens)
		t.CacheWriteInput += n(u.CacheWriteInputTokens)
	}
	return t
}

// Error is an error report: RUN_ERROR's or SUBAGENT_ERROR's message and
// code, or a transport error's text.
type Error struct {
	Message string
	Code    *string
}

func errorOf(e *model.ErrorInfo) *Error {
	if e == nil {
		return nil
	}
	return &Error{Message: e.Message, Code: cloneStr(e.Code)}
}

// DiagKind says whether a diagnostic is a violation or a warning.
type DiagKind string

// Diagnostic kinds.
const (
	// DiagViolation: the event was refused (G1); nothing it carried was folded.
	DiagViolation DiagKind = "violation"
	// DiagWarning: the event was folded or skipped, but something about it
	// (or about the stream) should be fixed.
	DiagWarning DiagKind = "warning"
)

// Diagnostic is one violation or warning.
type Diagnostic struct {
	// Index is the index of the wire event concerned (for the end of the
	// stream: the number of events).
	Index int
	Kind  DiagKind
	// Rule is the docs/protocol.md rule id (R15, V7, A1, G8, E3, …).
	Rule string
	// Type is the wire type of the event concerned; "" when unknown.
	Type event.Type
	// Message says what, where and why, naming the ids involved.
	Message string
}

func cloneStr(s *string) *string {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}
