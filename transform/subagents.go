package transform

import (
	"encoding/json"
	"iter"
	"strconv"
	"strings"

	"github.com/agview/agview/event"
)

// SubagentVisibility returns the transformer for the peer that started a
// run with input peer: HideSubagents when the protocol version it declares
// (RunAgentInput.protocolVersion; none, or a nil peer, counts as a peer
// before 1.0) predates subagent support (see SupportsSubagents), else the
// identity. It is the subagent module seed's (docs/protocol.md §5) SubagentVisibility transformer.
func SubagentVisibility(peer *event.RunAgentInput) func(iter.Seq2[event.Event, error]) iter.Seq2[event.Event, error] {
	if peer != nil && peer.ProtocolVersion != nil && SupportsSubagents(*peer.ProtocolVersion) {
		return func(seq iter.Seq2[event.Event, error]) iter.Seq2[event.Event, error] { return seq }
	}
	return HideSubagents
}

// lastWithoutSubagents is the last protocol version without subagent
// support: the reference client strips subagent data for a peer pinned at or
// below it (docs/protocol.md R28).
var lastWithoutSubagents = []int{0, 0, 57}

// SupportsSubagents reports whether a peer that declared protocol version
// version reads subagent attribution and lifecycle events: the version is
// dot-separated decimal numbers ("1.0", "0.0.58"; a "-pre" or "+build"
// suffix aside) after 0.0.57. "" (a peer that declares no version, as
// clients before 1.0 do and the reference client does when pinned to an
// older peer) and anything that does not parse are treated as older: hiding
// subagents from a peer that could read them loses detail, showing them to
// one that cannot breaks it.
func SupportsSubagents(version string) bool {
	if i := strings.IndexAny(version, "-+"); i >= 0 {
		version = version[:i]
	}
	if version == "" {
		return false
	}
	parts := strings.Split(version, ".")
	nums := make([]int, len(parts))
	for i, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		nums[i] = n
	}
	at := func(v []int, i int) int {
		if i < len(v) {
			return v[i]
		}
		return 0
	}
	for i := range max(len(nums), len(lastWithoutSubagents)) {
		if a, b := at(nums, i), at(lastWithoutSubagents, i); a != b {
			return a > b
		}
	}
	return false
}

// HideSubagents returns seq as a consumer older than subagent support must
// see it (docs/protocol.md R28; see the package documentation for what it does
// and why): chunks expanded, each owner's steps kept apart, every
// subagentRunId removed, SUBAGENT_STARTED dropped, SUBAGENT_FINISHED (with a
// result or an outcome) and SUBAGENT_ERROR replaced by a CUSTOM event of the
// same name. Errors pass through in their place. The events of seq are not
// modified. Stopping the returned sequence early stops seq.
func HideSubagents(seq iter.Seq2[event.Event, error]) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		h := hider{names: map[string]string{}}
		for e, err := range ExpandChunks(seq) {
			if err != nil || e == nil {
				if !yield(e, err) {
					return
				}
				continue
			}
			out, keep := h.hide(e)
			if keep && !yield(out, nil) {
				return
			}
		}
	}
}

// hider is the state of one HideSubagents iteration.
type hider struct {
	// names: each announced invocation's name, for the traces.
	names map[string]string
	// steps: the open steps, by the name the peer sees, with their owner
	// and the name they were sent under; renamed: (owner, name) of a renamed
	// open step → the name the peer sees.
	steps   map[string]stepAs
	renamed map[stepKey]string
}

type stepKey struct {
	owner owner
	name  string
}

type stepAs struct {
	owner owner
	name  string
}

// hide returns e as the peer sees it, and false when the peer sees nothing.
func (h *hider) hide(e event.Event) (event.Event, bool) {
	switch e := e.(type) {
	case *event.SubagentStarted:
		h.names[e.ID] = e.Name
		return nil, false
	case *event.SubagentFinished:
		if e.Result == nil && e.Outcome == nil {
			return nil, false
		}
		return h.trace(e, e.ID), true
	case *event.SubagentError:
		return h.trace(e, e.ID), true
	case *event.StepStarted:
		return h.stepStarted(e), true
	case *event.StepFinished:
		return h.stepFinished(e), true
	case *event.RunStarted:
		h.steps, h.renamed = nil, nil // steps are per run
	}
	return Strip(e)
}

// trace returns the CUSTOM event that stands for lifecycle event e of
// invocation id: named after e's type, its value e's members and the
// invocation's name when it was announced.
func (h *hider) trace(e event.Event, id string) event.Event {
	b, err := event.Encode(e)
	var m map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		// An event that does not encode (built by hand with a bad raw
		// value) still leaves its id.
		m = map[string]json.RawMessage{}
		m["subagentRunId"], _ = json.Marshal(id)
	}
	delete(m, "type")
	delete(m, "timestamp")
	delete(m, "rawEvent")
	delete(m, "metadata")
	if name, ok := h.names[id]; ok {
		m["name"], _ = json.Marshal(name)
	}
	value, _ := json.Marshal(m)
	c := e.Common()
	return &event.Custom{Base: event.Base{Timestamp: c.Timestamp, Metadata: c.Metadata}, Name: string(e.EventType()), Value: value}
}

// stepStarted sends a step another owner has open under that name renamed:
// "plan (subagent sa-1)", or "plan (the parent agent)", numbered when that
// is taken too.
func (h *hider) stepStarted(e *event.StepStarted) event.Event {
	o := ownerOf(e)
	name := e.StepName
	if _, busy := h.steps[name]; busy && h.steps[name].owner != o {
		base := e.StepName + " (" + o.String() + ")"
		name = base
		for n := 2; ; n++ {
			if _, taken := h.steps[name]; !taken {
				break
			}
			name = base + " #" + strconv.Itoa(n)
		}
		if h.renamed == nil {
			h.renamed = map[stepKey]string{}
		}
		h.renamed[stepKey{o, e.StepName}] = name
	}
	if h.steps == nil {
		h.steps = map[string]stepAs{}
	}
	if _, busy := h.steps[name]; !busy {
		h.steps[name] = stepAs{owner: o, name: e.StepName}
	}
	c := *e
	c.Attribution = event.Attribution{}
	c.StepName = name
	return &c
}

func (h *hider) stepFinished(e *event.StepFinished) event.Event {
	o := ownerOf(e)
	name := e.StepName
	if r, ok := h.renamed[stepKey{o, e.StepName}]; ok {
		name = r
		delete(h.renamed, stepKey{o, e.StepName})
	}
	if s, ok := h.steps[name]; ok && s.owner == o {
		delete(h.steps, name)
	}
	c := *e
	c.Attribution = event.Attribution{}
	c.StepName = name
	return &c
}

// Strip returns e without any subagent information, and whether to keep
// it: SUBAGENT_STARTED, SUBAGENT_FINISHED and SUBAGENT_ERROR give (nil,
// false); an event carrying a subagentRunId (on itself, on a message of
// MESSAGES_SNAPSHOT or RUN_STARTED.input, or on an interrupt of a
// RUN_FINISHED outcome) gives a copy without it; any other event, nil
// included, is returned as it is. e itself is never modified; a copy shares
// with e everything it does not change. Strip is one event at a time: it
// neither expands chunks nor keeps steps apart, as HideSubagents does.
func Strip(e event.Event) (event.Event, bool) {
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

// untag returns a copy of the tagged event e without its tag.
func untag(e event.Event) event.Event {
	if f, ok := untaggers[e.EventType()]; ok {
		return f(e)
	}
	// Every type that can carry a tag has an entry (a test checks it);
	// reaching here means a new one was added without one.
	panic("transform: Strip: no untagger for type " + string(e.EventType()))
}

// untaggers copies an event of each type that can carry a tag without it.
var untaggers = map[event.Type]func(event.Event) event.Event{
	event.TypeStepStarted:                untagAs(func(e *event.StepStarted) *event.Attribution { return &e.Attribution }),
	event.TypeStepFinished:               untagAs(func(e *event.StepFinished) *event.Attribution { return &e.Attribution }),
	event.TypeTextMessageStart:           untagAs(func(e *event.TextMessageStart) *event.Attribution { return &e.Attribution }),
	event.TypeTextMessageContent:         untagAs(func(e *event.TextMessageContent) *event.Attribution { return &e.Attribution }),
	event.TypeTextMessageEnd:             untagAs(func(e *event.TextMessageEnd) *event.Attribution { return &e.Attribution }),
	event.TypeTextMessageChunk:           untagAs(func(e *event.TextMessageChunk) *event.Attribution { return &e.Attribution }),
	event.TypeToolCallStart:              untagAs(func(e *event.ToolCallStart) *event.Attribution { return &e.Attribution }),
	event.TypeToolCallArgs:               untagAs(func(e *event.ToolCallArgs) *event.Attribution { return &e.Attribution }),
	event.TypeToolCallEnd:                untagAs(func(e *event.ToolCallEnd) *event.Attribution { return &e.Attribution }),
	event.TypeToolCallChunk:              untagAs(func(e *event.ToolCallChunk) *event.Attribution { return &e.Attribution }),
	event.TypeToolCallResult:             untagAs(func(e *event.ToolCallResult) *event.Attribution { return &e.Attribution }),
	event.TypeStateSnapshot:              untagAs(func(e *event.StateSnapshot) *event.Attribution { return &e.Attribution }),
	event.TypeStateDelta:                 untagAs(func(e *event.StateDelta) *event.Attribution { return &e.Attribution }),
	event.TypeActivitySnapshot:           untagAs(func(e *event.ActivitySnapshot) *event.Attribution { return &e.Attribution }),
	event.TypeActivityDelta:              untagAs(func(e *event.ActivityDelta) *event.Attribution { return &e.Attribution }),
	event.TypeRaw:                        untagAs(func(e *event.Raw) *event.Attribution { return &e.Attribution }),
	event.TypeCustom:                     untagAs(func(e *event.Custom) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningStart:             untagAs(func(e *event.ReasoningStart) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningMessageStart:      untagAs(func(e *event.ReasoningMessageStart) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningMessageContent:    untagAs(func(e *event.ReasoningMessageContent) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningMessageEnd:        untagAs(func(e *event.ReasoningMessageEnd) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningMessageChunk:      untagAs(func(e *event.ReasoningMessageChunk) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningEnd:               untagAs(func(e *event.ReasoningEnd) *event.Attribution { return &e.Attribution }),
	event.TypeReasoningEncryptedValue:    untagAs(func(e *event.ReasoningEncryptedValue) *event.Attribution { return &e.Attribution }),
	event.TypeThinkingStart:              untagAs(func(e *event.ThinkingStart) *event.Attribution { return &e.Attribution }),
	event.TypeThinkingEnd:                untagAs(func(e *event.ThinkingEnd) *event.Attribution { return &e.Attribution }),
	event.TypeThinkingTextMessageStart:   untagAs(func(e *event.ThinkingTextMessageStart) *event.Attribution { return &e.Attribution }),
	event.TypeThinkingTextMessageContent: untagAs(func(e *event.ThinkingTextMessageContent) *event.Attribution { return &e.Attribution }),
	event.TypeThinkingTextMessageEnd:     untagAs(func(e *event.ThinkingTextMessageEnd) *event.Attribution { return &e.Attribution }),
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
