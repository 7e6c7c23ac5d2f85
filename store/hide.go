package store

import (
	"iter"

	"github.com/agview/agview/event"
)

// HideSubagents returns seq as a consumer older than subagent support must
// see it (PROTOCOL.md R28; the SubagentVisibility transformer of seed 002):
// every event goes through StripSubagents, the lifecycle events are left out,
// and errors pass through unchanged, in order. The events of seq are not
// modified. Stopping the returned sequence early stops seq.
//
// Attribution is what keeps concurrent invocations apart: a stream in which
// two owners have a step of the same name open at once, or whose id-less
// chunks rely on their tags to find their lane (PROTOCOL.md §4), may no
// longer be valid once hidden. A stream whose step names do not overlap
// between owners and whose chunks carry their ids stays valid.
func HideSubagents(seq iter.Seq2[event.Event, error]) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		for e, err := range seq {
			if err != nil {
				if !yield(e, err) {
					return
				}
				continue
			}
			out, keep := StripSubagents(e)
			if !keep {
				continue
			}
			if !yield(out, nil) {
				return
			}
		}
	}
}

// StripSubagents returns e without any subagent information, and whether
// to keep it: SUBAGENT_STARTED, SUBAGENT_FINISHED and SUBAGENT_ERROR give
// (nil, false); an event carrying a subagentRunId (on itself, on a message of
// MESSAGES_SNAPSHOT or RUN_STARTED.input, or on an interrupt of a
// RUN_FINISHED outcome) gives a copy without it; any other event, nil
// included, is returned as it is. e itself is never modified; a copy shares
// with e everything it does not change.
func StripSubagents(e event.Event) (event.Event, bool) {
	if e == nil {
		return nil, true
	}
	if e.EventType().Lifecycle() {
		return nil, false
	}
	switch e := e.(type) {
	case *event.RunStarted:
		if e.Input == nil || !tagged(e.Input.Messages) {
			return e, true
		}
		c, in := *e, *e.Input
		in.Messages = untagMessages(in.Messages)
		c.Input = &in
		return &c, true
	case *event.MessagesSnapshot:
		if !tagged(e.Messages) {
			return e, true
		}
		c := *e
		c.Messages = untagMessages(c.Messages)
		return &c, true
	case *event.RunFinished:
		if e.Outcome == nil || !taggedInterrupts(e.Outcome.Interrupts) {
			return e, true
		}
		c, o := *e, *e.Outcome
		o.Interrupts = make([]event.Interrupt, len(o.Interrupts))
		for i, in := range e.Outcome.Interrupts {
			in.Subagent = nil
			o.Interrupts[i] = in
		}
		c.Outcome = &o
		return &c, true
	}
	if _, ok := e.SubagentRunID(); !ok {
		return e, true
	}
	return untag(e), true
}

// untag returns a copy of the attributable event e without its tag.
func untag(e event.Event) event.Event {
	if f, ok := untaggers[e.EventType()]; ok {
		return f(e)
	}
	// Every attributable type of package event has an entry (a test checks
	// it); reaching here means a new one was added without one.
	panic("store: StripSubagents: no untagger for attributable type " + string(e.EventType()))
}

// untaggers copies an event of each attributable type without its tag.
var untaggers = map[event.Type]func(event.Event) event.Event{
	event.TypeStepStarted:             untagAs(func(e *event.StepStarted) *event.Attribution { return &e.Attribution }),
	event.TypeStepFinished:            untagAs(func(e *event.StepFinished) *event.Attribution { return &e.Attribution }),
	event.TypeTextMessageStart:        untagAs(func(e *event.TextMessageStart) *event.Attribution { return &e.Attribution }),
	event.TypeTextMessageContent:      untagAs(func(e *event.TextMessageContent) *event.Attribution { return &e.Attribution }),
	event.TypeTextMessageEnd:          untagAs(func(e *event.TextMessageEnd) *event.Attribution { return &e.Attribution }),
	event.TypeTextMessageChunk:        untagAs(func(e *event.TextMessageChunk) *event.Attribution { return &e.Attribution }),
	event.TypeToolCallStart:           untagAs(func(e *event.ToolCallStart) *event.Attribution { return &e.Attribution }),
	event.TypeToolCallArgs:            untagAs(func(e *event.ToolCallArgs) *event.Attribution { return &e.Attribution }),
	event.TypeToolCallEnd:             untagAs(func(e *event.ToolCallEnd) *event.Attribution { return &e.Attribution }),
	event.TypeToolCallChunk:           untagAs(func(e *event.ToolCallChunk) *event.Attribution { return &e.Attribution }),
	event.TypeToolCallResult:          untagAs(func(e *event.ToolCallResult) *event.Attribution { return &e.Attribution }),
	event.TypeStateSnapshot:           untagAs(func(e *event.StateSnapshot) *event.Attribution { return &e.Attribution }),
	event.TypeStateDelta:              untagAs(func(e *event.StateDelta) *event.Attribution { return &e.Attribution }),
	event.TypeActivitySnapshot:        untagAs(func(e *event.ActivitySnapshot) *event.Attribution { return &e.Attribution }),
	event.TypeActivityDelta:           untagAs(func(e *event.ActivityDelta) *event.Attribution { return &e.Attribution }),
	event.TypeRaw:                     untagAs(func(e *event.Raw) *event.Attribution { return &e.Attribution }),
	event.TypeCustom:                  untagAs(func(e *event.Custom) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningStart:          untagAs(func(e *event.ReasoningStart) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningMessageStart:   untagAs(func(e *event.ReasoningMessageStart) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningMessageContent: untagAs(func(e *event.ReasoningMessageContent) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningMessageEnd:     untagAs(func(e *event.ReasoningMessageEnd) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningMessageChunk:   untagAs(func(e *event.ReasoningMessageChunk) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningEnd:            untagAs(func(e *event.ReasoningEnd) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningEncryptedValue: untagAs(func(e *event.ReasoningEncryptedValue) *event.Attribution { return &e.Attribution }),
}

// untagAs returns a function that copies an event of type P and clears the
// copy's attribution, which attr locates.
func untagAs[T any, P interface {
	*T
	event.Event
}](attr func(P) *event.Attribution) func(event.Event) event.Event {
	return func(e event.Event) event.Event {
		c := *e.(P)
		p := P(&c)
		*attr(p) = event.Attribution{}
		return p
	}
}

func tagged(ms []event.Message) bool {
	for i := range ms {
		if ms[i].Subagent != nil {
			return true
		}
	}
	return false
}

func taggedInterrupts(is []event.Interrupt) bool {
	for i := range is {
		if is[i].Subagent != nil {
			return true
		}
	}
	return false
}

// untagMessages returns a copy of ms without attribution. Messages share
// everything else (content bytes, tool calls) with ms, which is not modified.
func untagMessages(ms []event.Message) []event.Message {
	out := make([]event.Message, len(ms))
	for i, m := range ms {
		m.Subagent = nil
		out[i] = m
	}
	return out
}
