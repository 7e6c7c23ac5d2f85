package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// ProtocolVersion is the protocolVersion a client sends (the reference
// client's, @ag-ui/client 1.0).
const ProtocolVersion = "1.0"

// InputOptions says how NextInput builds the next run's input. The zero
// value (and nil) continues the thread with nothing added and no interrupt
// answered.
type InputOptions struct {
	// ThreadID of the next run; "" means the view's thread (View.Thread).
	ThreadID string
	// RunID of the next run; "" means a random UUID.
	RunID string
	// Messages are appended after the view's history, e.g. the user's next
	// message.
	Messages []event.Message
	// Answer answers the pending interrupts: it is called once per pending
	// interrupt, in order, and the entry it returns goes into resume (its
	// InterruptID filled in when empty). A nil Answer, or a nil return,
	// leaves that interrupt unanswered, and Client.Run refuses an input that
	// leaves a pending interrupt unanswered (*InterruptError), as the
	// reference client does. ResolveAll and CancelAll answer every one.
	Answer func(event.Interrupt) *event.ResumeEntry
	// Tools and Context are sent as given ([] when nil).
	Tools   []event.Tool
	Context []event.Context
	// ForwardedProps is any JSON value, sent as given ({} when nil).
	ForwardedProps json.RawMessage
}

// UserMessage returns a user message saying text, with a new random id, as
// a front end adds the user's next message to a conversation
// (InputOptions.Messages).
func UserMessage(text string) event.Message {
	content, _ := json.Marshal(text) // a string always marshals
	return event.Message{ID: NewID(), Role: event.RoleUser, Content: content}
}

// ResolveAll returns an InputOptions.Answer that resolves every pending
// interrupt with payload (nil: no payload), e.g.
// ResolveAll(json.RawMessage(`{"approved":true}`)).
func ResolveAll(payload json.RawMessage) func(event.Interrupt) *event.ResumeEntry {
	return func(it event.Interrupt) *event.ResumeEntry {
		return &event.ResumeEntry{InterruptID: it.ID, Status: event.ResumeResolved, Payload: bytes.Clone(payload)}
	}
}

// CancelAll is an InputOptions.Answer that cancels every pending interrupt
// (the only answer an expired interrupt accepts).
func CancelAll(it event.Interrupt) *event.ResumeEntry {
	return &event.ResumeEntry{InterruptID: it.ID, Status: event.ResumeCancelled}
}

// NextInput builds the input of the run that continues the conversation in
// v, exactly as the reference client's prepareRunAgentInput does
// (docs/protocol.md G15): threadId (the view's thread unless opts names one), a
// new runId, protocolVersion "1.0", the run state, the message history as
// the view holds it (each message with its subagentRunId; activity messages
// left out, reasoning kept) followed by opts.Messages, tools and context
// ([] unless given), forwardedProps ({} unless given), and resume with one
// entry per pending interrupt that opts.Answer answers (no resume key when it
// answers none). The returned input shares nothing with v or opts.
func NextInput(v *view.View, opts *InputOptions) *event.RunAgentInput {
	var o InputOptions
	if opts != nil {
		o = *opts
	}
	in := &event.RunAgentInput{
		ThreadID:        o.ThreadID,
		RunID:           o.RunID,
		ProtocolVersion: event.Ptr(ProtocolVersion),
		State:           v.State(),
		Messages:        make([]event.Message, 0, v.MessageCount()+len(o.Messages)),
		Tools:           make([]event.Tool, 0, len(o.Tools)),
		Context:         append([]event.Context{}, o.Context...),
		ForwardedProps:  json.RawMessage(`{}`),
	}
	if in.ThreadID == "" {
		in.ThreadID = v.Thread()
	}
	if in.ThreadID == "" {
		in.ThreadID = NewID()
	}
	if in.RunID == "" {
		in.RunID = NewID()
	}
	if len(o.ForwardedProps) > 0 {
		in.ForwardedProps = bytes.Clone(o.ForwardedProps)
	}
	for m := range v.Messages() {
		if m.Role == event.RoleActivity {
			continue
		}
		in.Messages = append(in.Messages, m)
	}
	for _, m := range o.Messages {
		in.Messages = append(in.Messages, cloneMessage(m))
	}
	for _, t := range o.Tools {
		t.Parameters, t.Metadata = bytes.Clone(t.Parameters), bytes.Clone(t.Metadata)
		in.Tools = append(in.Tools, t)
	}
	if o.Answer == nil {
		return in
	}
	for _, it := range v.PendingInterrupts() {
		r := o.Answer(it)
		if r == nil {
			continue
		}
		e := *r
		if e.InterruptID == "" {
			e.InterruptID = it.ID
		}
		e.Payload, e.Metadata = bytes.Clone(e.Payload), bytes.Clone(e.Metadata)
		in.Resume = append(in.Resume, e)
	}
	return in
}

// cloneMessage returns a copy of m that shares no memory with it.
func cloneMessage(m event.Message) event.Message {
	m.Content, m.Metadata = bytes.Clone(m.Content), bytes.Clone(m.Metadata)
	for _, p := range []**string{&m.Name, &m.ToolCallID, &m.Error, &m.ActivityType, &m.EncryptedValue, &m.Subagent} {
		if *p != nil {
			*p = event.Ptr(**p)
		}
	}
	if m.ToolCalls != nil {
		calls := make([]event.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			c.Metadata = bytes.Clone(c.Metadata)
			if c.EncryptedValue != nil {
				c.EncryptedValue = event.Ptr(*c.EncryptedValue)
			}
			calls[i] = c
		}
		m.ToolCalls = calls
	}
	return m
}

// InterruptError reports a run input whose resume entries do not answer the
// thread's pending interrupts as the protocol requires: Client.Run refuses
// it before anything is sent (the reference client refuses the first two
// kinds too). Each list names interrupt ids, in the order of the pending
// interrupts or of the resume entries. Match it with errors.As.
type InterruptError struct {
	// Unanswered are pending interrupts no resume entry answers.
	Unanswered []string
	// Expired are pending interrupts answered "resolved" although their
	// expiresAt has passed: an expired interrupt can only be cancelled.
	Expired []string
	// NotPending are resume entries naming an interrupt that is not pending.
	NotPending []string
	// Repeated are interrupts more than one resume entry answers.
	Repeated []string
	// BadStatus are resume entries whose status is neither "resolved" nor
	// "cancelled".
	BadStatus []string
}

// Error lists every fault with the interrupt ids concerned.
func (e *InterruptError) Error() string {
	var parts []string
	add := func(ids []string, what string) {
		if len(ids) > 0 {
			parts = append(parts, fmt.Sprintf("%s: %s", what, strings.Join(ids, ", ")))
		}
	}
	add(e.Unanswered, fmt.Sprintf("%d pending interrupt(s) not answered by resume", len(e.Unanswered)))
	add(e.Expired, "expired interrupt(s) answered \"resolved\" (an expired interrupt can only be cancelled)")
	add(e.NotPending, "resume answers interrupt(s) that are not pending")
	add(e.Repeated, "interrupt(s) answered more than once")
	add(e.BadStatus, "resume entries with a status other than \"resolved\" or \"cancelled\"")
	return "client: run refused before sending: " + strings.Join(parts, "; ")
}

// CheckResume checks that in answers the pending interrupts of the thread
// v holds as the protocol requires, at time now: every pending interrupt
// answered exactly once, an expired one (expiresAt at or before now) only
// cancelled, no entry for an interrupt that is not pending, every status
// "resolved" or "cancelled". It returns an *InterruptError, or nil.
//
// The pending interrupts are known only when v has seen a run of in's
// thread: for a view that has seen none (a client continuing a thread it did
// not watch), only the statuses are checked. Client.Run calls CheckResume
// before it sends anything; front ends may call it to check an answer first.
func CheckResume(v *view.View, in *event.RunAgentInput, now time.Time) error {
	if in == nil {
		in = &event.RunAgentInput{} // as Run reads a nil input: no resume
	}
	var e InterruptError
	count := map[string]int{}
	for _, r := range in.Resume {
		count[r.InterruptID]++
		if count[r.InterruptID] == 2 {
			e.Repeated = append(e.Repeated, r.InterruptID)
		}
		if r.Status != event.ResumeResolved && r.Status != event.ResumeCancelled {
			e.BadStatus = append(e.BadStatus, r.InterruptID)
		}
	}
	if _, ran := v.LastRun(); ran && in.ThreadID == v.Thread() {
		pending := map[string]bool{}
		for _, it := range v.PendingInterrupts() {
			pending[it.ID] = true
			if count[it.ID] == 0 {
				e.Unanswered = append(e.Unanswered, it.ID)
				continue
			}
			if expired(it.ExpiresAt, now) && resolves(in.Resume, it.ID) {
				e.Expired = append(e.Expired, it.ID)
			}
		}
		for _, r := range in.Resume {
			if !pending[r.InterruptID] && !slices.Contains(e.NotPending, r.InterruptID) {
				e.NotPending = append(e.NotPending, r.InterruptID)
			}
		}
	}
	if e.Unanswered == nil && e.Expired == nil && e.NotPending == nil && e.Repeated == nil && e.BadStatus == nil {
		return nil
	}
	return &e
}

// resolves reports whether an entry of resume resolves interrupt id.
func resolves(resume []event.ResumeEntry, id string) bool {
	for _, r := range resume {
		if r.InterruptID == id && r.Status == event.ResumeResolved {
			return true
		}
	}
	return false
}

// expiresLayouts are the forms of expiresAt understood, as JavaScript's Date
// reads them (an ISO 8601 time by convention); one that does not parse never
// expires, as the reference's NaN comparison never does.
var expiresLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"}

// expired reports whether an interrupt expiring at expiresAt has expired at
// now (the reference: expiresAt <= now).
func expired(expiresAt *string, now time.Time) bool {
	if expiresAt == nil {
		return false
	}
	for _, l := range expiresLayouts {
		loc := time.Local
		if l == "2006-01-02" {
			loc = time.UTC // a date alone is UTC in JavaScript
		}
		if t, err := time.ParseInLocation(l, *expiresAt, loc); err == nil {
			return !t.After(now)
		}
	}
	return false
}
