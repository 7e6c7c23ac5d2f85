package client

import (
	"bytes"

	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// InputOptions says how NextInput builds the next run's input. The zero
// value is usable.
type InputOptions struct {
	// ThreadID of the next run; "" means the thread of the view's last run.
	ThreadID string
	// RunID of the next run; "" means a random UUID.
	RunID string
	// Messages are appended after the view's history, e.g. the user's next
	// message.
	Messages []event.Message
	// Answer answers one pending interrupt. nil, or a nil return, answers it
	// with status "cancelled" (the reference client requires every pending
	// interrupt to be answered in resume).
	Answer func(event.Interrupt) *event.ResumeEntry
	// Tools, Context and ForwardedProps are sent as given.
	Tools          []event.Tool
	Context        []event.Context
	ForwardedProps []byte
}

// NextInput builds the input of the run that continues the conversation in
// v: the message history exactly as the view holds it (each message with its
// subagentRunId; activity messages left out, as the reference client does),
// the run state, opts.Messages, and one resume entry for every pending
// interrupt. The returned input shares nothing with v.
func NextInput(v *view.View, opts *InputOptions) *event.RunAgentInput {
	var o InputOptions
	if opts != nil {
		o = *opts
	}
	in := &event.RunAgentInput{
		ThreadID: o.ThreadID,
		RunID:    o.RunID,
		State:    v.State(),
		Messages: []event.Message{},
		Tools:    append([]event.Tool{}, o.Tools...),
		Context:  append([]event.Context{}, o.Context...),
	}
	if in.ThreadID == "" {
		if r, ok := v.LastRun(); ok {
			in.ThreadID = r.ThreadID
		}
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
	in.Messages = append(in.Messages, o.Messages...)
	for _, it := range v.PendingInterrupts() {
		var r *event.ResumeEntry
		if o.Answer != nil {
			r = o.Answer(it)
		}
		if r == nil {
			r = &event.ResumeEntry{InterruptID: it.ID, Status: event.ResumeCancelled}
		}
		if r.InterruptID == "" {
			r.InterruptID = it.ID
		}
		in.Resume = append(in.Resume, *r)
	}
	return in
}
