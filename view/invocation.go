package view

import (
	"bytes"
	"encoding/json"
	"iter"
	"slices"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/jsonstr"
	"github.com/agview/agview/internal/model"
)

// Status is the status of an invocation.
type Status string

// Invocation statuses.
const (
	// Running: SUBAGENT_STARTED came (for the root: RUN_STARTED), or a later
	// run continued a suspended invocation with events attributed to it
	// alone, and nothing has ended it yet.
	Running Status = "running"
	// Finished: SUBAGENT_FINISHED with a success outcome (or none); for the
	// root, the last run finished.
	Finished Status = "finished"
	// Suspended: SUBAGENT_FINISHED with a suspended outcome: paused awaiting
	// outside input; a later run may continue it under the same id (G10).
	// For the root: the last run finished with an interrupt outcome.
	Suspended Status = "suspended"
	// Errored: SUBAGENT_ERROR; for the root, the last run errored or failed.
	Errored Status = "errored"
	// Abandoned: the run errored (RUN_ERROR), the transport broke or the
	// stream was cancelled while the invocation was running (G11). An
	// invocation seen only through attribution (Announced false) reads
	// Abandoned when it had something open at that moment — a message, tool
	// call, reasoning span or step it owned, which was abandoned with it —
	// and stays Unannounced when it had nothing open. Attributed again in a
	// later run, it reads Unannounced again; announced in a later run, it is
	// the same invocation, running.
	Abandoned Status = "abandoned"
	// Unannounced: seen only through attribution, never announced by
	// SUBAGENT_STARTED (R11); for the root, before the first run.
	Unannounced Status = "unannounced"
)

// EntityStatus is the status of a message, tool call, step or reasoning span.
type EntityStatus string

// Entity statuses.
const (
	// EntityOpen: started and not yet ended.
	EntityOpen EntityStatus = "open"
	// EntityClosed: ended, or complete when it arrived (history, snapshots).
	EntityClosed EntityStatus = "closed"
	// EntityAbandoned: still open when the run errored, the transport broke
	// or the stream was cancelled (G11).
	EntityAbandoned EntityStatus = "abandoned"
)

func entityStatus(s model.EntStatus) EntityStatus { return EntityStatus(s.String()) }

// Invocation is one node of the invocation tree: the root (the parent agent)
// or one subagent invocation. It is immutable, and shared between successive
// views while unchanged (see the package documentation).
type Invocation model.Inv

func (i *Invocation) d() *model.InvData { return (*model.Inv)(i).Data() }

func (i *Invocation) inf() *model.InvInfo { return (*model.Inv)(i).Data().Info }

// ID returns the invocation's subagentRunId; "" for the root.
func (i *Invocation) ID() string { return i.inf().ID }

// IsRoot reports whether i is the parent agent.
func (i *Invocation) IsRoot() bool { return i.inf().Root }

// Name returns SUBAGENT_STARTED's name (the subagent's type, for display),
// falling back to the id when the invocation was never announced. The root's
// name is "".
func (i *Invocation) Name() string {
	d := i.inf()
	if d.Name != nil {
		return *d.Name
	}
	return d.ID
}

// Description returns SUBAGENT_STARTED's description, "" when absent.
func (i *Invocation) Description() string {
	if p := i.inf().Description; p != nil {
		return *p
	}
	return ""
}

// Announced reports whether SUBAGENT_STARTED announced the invocation (the
// root counts as announced).
func (i *Invocation) Announced() bool { return i.inf().Announced }

// Parent returns the id of the invocation that spawned this one: "" for the
// parent agent (the root has no parent and also returns ""). Use
// ParentSubagentRunID to tell the parent agent from a subagent whose id is "".
func (i *Invocation) Parent() string {
	if p := i.inf().ParentSub; p != nil {
		return *p
	}
	return ""
}

// ParentSubagentRunID returns SUBAGENT_STARTED's parentSubagentRunId and
// true, or ("", false) when the parent agent spawned the invocation.
func (i *Invocation) ParentSubagentRunID() (string, bool) {
	if p := i.inf().ParentSub; p != nil {
		return *p, true
	}
	return "", false
}

// ParentToolCallID returns the id of the tool call that spawned the
// invocation (SUBAGENT_STARTED's parentToolCallId), "" when absent.
func (i *Invocation) ParentToolCallID() string {
	if p := i.inf().ParentTool; p != nil {
		return *p
	}
	return ""
}

// ParentMessageID returns SUBAGENT_STARTED's parentMessageId, "" when absent.
func (i *Invocation) ParentMessageID() string {
	if p := i.inf().ParentMsg; p != nil {
		return *p
	}
	return ""
}

// Status returns the invocation's status.
func (i *Invocation) Status() Status { return Status(i.d().Status.String()) }

// RunIndex returns the position in View.Runs of the run in which the
// invocation was first seen: started, named by an attributed event, or
// carried by history (RUN_STARTED.input, MESSAGES_SNAPSHOT; for the history
// of a client's run input, reducer.Input, the run before it, -1 before the
// first run). It stays the
// same when a later run continues a suspended invocation, and tells apart
// the invocations of an id reused in a later run (docs/protocol.md G10). The
// root returns 0: the parent agent takes part in every run.
func (i *Invocation) RunIndex() int { return i.inf().Run }

// Outcome returns SUBAGENT_FINISHED's outcome as sent: nil when absent
// (success) or when the invocation has not finished.
func (i *Invocation) Outcome() *event.SubagentOutcome {
	o := i.inf().Outcome
	if o == nil {
		return nil
	}
	c := *o
	c.InterruptIDs = slices.Clone(o.InterruptIDs)
	return &c
}

// Result returns SUBAGENT_FINISHED's result, nil when absent. The slice is a
// fresh copy.
func (i *Invocation) Result() json.RawMessage { return bytes.Clone(i.inf().Result) }

// Error returns SUBAGENT_ERROR's message and code, nil when it did not error.
func (i *Invocation) Error() *Error { return errorOf(i.inf().Err) }

// Children returns the ids of the invocations this one spawned, in start
// order. The slice is a fresh copy.
func (i *Invocation) Children() []string { return i.inf().Children.Slice() }

// Version increases every time the invocation changes; two views holding
// the same *Invocation hold the same version.
func (i *Invocation) Version() uint64 { return i.d().Version }

// MessageIDs returns the ids of the invocation's messages (those carrying its
// subagentRunId; the root's carry none) in the order they were created. The
// slice is a fresh copy.
func (i *Invocation) MessageIDs() []string {
	var out []string
	for m := range i.msgs() {
		out = append(out, m.ID)
	}
	return out
}

// Messages iterates the invocation's messages (see MessageIDs) as AG-UI
// messages. Each message yielded owns its memory.
func (i *Invocation) Messages() iter.Seq[event.Message] {
	return func(yield func(event.Message) bool) {
		for m := range i.msgs() {
			if !yield(m.Message()) {
				return
			}
		}
	}
}

// OpenMessageIDs returns the ids of the invocation's text and reasoning
// messages that are still streaming (started and not ended).
func (i *Invocation) OpenMessageIDs() []string {
	var out []string
	for m := range i.msgs() {
		if m.Status == model.EntOpen {
			out = append(out, m.ID)
		}
	}
	return out
}

func (i *Invocation) msgs() iter.Seq[*model.Msg] {
	d := i.d()
	return func(yield func(*model.Msg) bool) { d.EachMsg(yield) }
}

// ToolCall is one tool call, as held by its assistant message, with what
// the view knows about it.
type ToolCall struct {
	ID   string
	Name string
	// Arguments is the JSON text streamed by TOOL_CALL_ARGS.
	Arguments string
	// MessageID is the assistant message holding the call.
	MessageID string
	Status    EntityStatus
	// ResultMessageID and Result are the tool message a TOOL_CALL_RESULT
	// minted for the call and its content (a JSON string or an array of
	// content parts), both unset while unanswered.
	ResultMessageID string
	Result          json.RawMessage
	// Subagents are the ids of the invocations whose SUBAGENT_STARTED named
	// this call as parentToolCallId, in start order.
	Subagents      []string
	EncryptedValue *string
}

func toolCallOf(c *model.Call, holder string) ToolCall {
	tc := ToolCall{
		ID:             c.ID,
		Name:           c.Name,
		Arguments:      jsonstr.Join(c.Args.String()), // a pair split across deltas is one character (G19)
		MessageID:      holder,
		Status:         entityStatus(c.Status),
		Subagents:      slices.Clone(c.Info.Spawned),
		EncryptedValue: cloneStr(c.Info.EncryptedValue),
	}
	if c.HasResult {
		tc.ResultMessageID = c.Result
		if c.ResultContent != "" {
			tc.Result = json.RawMessage(c.ResultContent)
		}
	}
	return tc
}

// ToolCalls returns the tool calls held by the invocation's messages, in
// message order. The slice is a fresh copy.
func (i *Invocation) ToolCalls() []ToolCall {
	var out []ToolCall
	for m := range i.msgs() {
		for _, c := range m.Calls().All() {
			out = append(out, toolCallOf(c, m.ID))
		}
	}
	return out
}

// Step is one step (STEP_STARTED … STEP_FINISHED) of an invocation.
type Step struct {
	Name   string
	Status EntityStatus
	// RunIndex is the position in View.Runs of the run it belongs to.
	RunIndex int
	// StartIndex and EndIndex are the indexes of the events that started and
	// finished it; EndIndex is -1 while it is open.
	StartIndex int
	EndIndex   int
}

// Steps returns the invocation's steps, open and closed, in start order. The
// slice is a fresh copy.
func (i *Invocation) Steps() []Step {
	v := i.inf().Steps
	out := make([]Step, 0, v.Len())
	for s := range v.Values() {
		out = append(out, Step{Name: s.Name, Status: entityStatus(s.Status), RunIndex: s.Run, StartIndex: s.Start, EndIndex: s.End})
	}
	return out
}

// Reasoning is one reasoning message of an invocation.
type Reasoning struct {
	MessageID      string
	Content        string
	Status         EntityStatus
	EncryptedValue *string
}

// Reasoning returns the invocation's reasoning messages in creation order.
func (i *Invocation) Reasoning() []Reasoning {
	var out []Reasoning
	for m := range i.msgs() {
		if m.Role() != event.RoleReasoning {
			continue
		}
		r := Reasoning{MessageID: m.ID, Status: entityStatus(m.Status), EncryptedValue: cloneStr(m.Info().EncryptedValue())}
		if m.HasText {
			r.Content = jsonstr.Join(m.Text.String())
		}
		out = append(out, r)
	}
	return out
}

// Span is one reasoning span (REASONING_START … REASONING_END).
type Span struct {
	ID     string
	Status EntityStatus
	// StartIndex and EndIndex are the indexes of the events that opened and
	// closed it; EndIndex is -1 while it is open.
	StartIndex int
	EndIndex   int
}

// Spans returns the invocation's reasoning spans in start order.
func (i *Invocation) Spans() []Span {
	v := i.inf().Spans
	out := make([]Span, 0, v.Len())
	for s := range v.Values() {
		out = append(out, Span{ID: s.ID, Status: entityStatus(s.Status), StartIndex: s.Start, EndIndex: s.End})
	}
	return out
}

// Activity is one activity message of an invocation.
type Activity struct {
	MessageID    string
	ActivityType string
	// Content is the activity's JSON object, a fresh copy.
	Content json.RawMessage
}

// Activity returns the invocation's activity messages in creation order.
func (i *Invocation) Activity() []Activity {
	var out []Activity
	for m := range i.msgs() {
		if m.Role() != event.RoleActivity {
			continue
		}
		a := Activity{MessageID: m.ID}
		if t := m.Info().ActivityType(); t != nil {
			a.ActivityType = *t
		}
		switch {
		case m.HasDoc:
			a.Content = m.Info().Doc().JSON()
		case m.Info().Raw() != nil:
			a.Content = bytes.Clone(m.Info().Raw())
		}
		out = append(out, a)
	}
	return out
}
