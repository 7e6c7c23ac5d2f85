package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// Turn is what the user sends to continue the thread: the next message, the
// answers to the pending interrupts, or both.
type Turn struct {
	// Message is the text of the user's next message; "" when the turn only
	// answers interrupts.
	Message string
	// Answers has one entry per interrupt the last run left pending, in the
	// order of view.View.PendingInterrupts, each naming its interrupt: a
	// resolved answer with its payload, or a cancellation. Empty when no
	// interrupt is pending.
	Answers []event.ResumeEntry
}

// Answer returns the turn's answer to interrupt it, nil when the turn does
// not answer it. It fits client.InputOptions.Answer:
//
//	c.Continue(ctx, &client.InputOptions{Answer: t.Answer, Messages: …})
func (t Turn) Answer(it event.Interrupt) *event.ResumeEntry {
	for _, a := range t.Answers {
		if a.InterruptID == it.ID {
			return &a
		}
	}
	return nil
}

// Conversation continues the thread a Model shows. The program that embeds
// the model provides it, typically with a client: cmd/agview calls
// client.Continue (the next run's input is the thread's history, its state
// and the turn's message and answers) on the client whose store the model
// shows.
type Conversation interface {
	// Continue runs the next run of the thread with t and returns when that
	// run has ended. The run's events must reach the store the model shows:
	// the model shows them from there, not from Continue. The model calls
	// Continue on a goroutine of its own, one turn at a time, only when no
	// run is under way; ctx is cancelled when the user quits. The error, if
	// any, is shown to the user (a refused input, a broken connection).
	Continue(ctx context.Context, t Turn) error
}

// ConversationFunc adapts a function to the Conversation interface.
type ConversationFunc func(ctx context.Context, t Turn) error

// Continue calls f(ctx, t).
func (f ConversationFunc) Continue(ctx context.Context, t Turn) error { return f(ctx, t) }

// turnDoneMsg says that a turn's Continue returned.
type turnDoneMsg struct{ err error }

// Answers the y and n keys send to an interrupt that asks for approval (the
// AG-UI convention: a denial is a resolved answer, not a cancellation).
var (
	approvePayload = json.RawMessage(`{"approved":true}`)
	rejectPayload  = json.RawMessage(`{"approved":false}`)
)

// busy reports whether a run is under way, or about to be: the model sent a
// turn that has not ended, the last run is running, or no run has started
// and the stream has not ended (the first run is connecting).
func (m *Model) busy() bool {
	if m.sending {
		return true
	}
	r, ok := m.v.LastRun()
	if !ok {
		return !m.v.Ended()
	}
	return r.Status == view.RunRunning
}

// asking returns the pending interrupts the user is asked to answer, when
// the model can answer them: it has a conversation and no run is under way.
func (m *Model) asking() []event.Interrupt {
	if m.busy() {
		return nil
	}
	return m.v.PendingInterrupts()
}

// syncAnswers forgets answers given to interrupts that are no longer
// pending (a new run ended with other interrupts).
func (m *Model) syncAnswers() {
	if len(m.answers) == 0 {
		return
	}
	pending := m.v.PendingInterrupts()
	for id := range m.answers {
		if !slices.ContainsFunc(pending, func(it event.Interrupt) bool { return it.ID == id }) {
			delete(m.answers, id)
		}
	}
}

// current returns the first pending interrupt not answered yet, its
// position and the number pending.
func (m *Model) current() (it event.Interrupt, i, n int, ok bool) {
	pending := m.asking()
	for i, it := range pending {
		if _, done := m.answers[it.ID]; !done {
			return it, i, len(pending), true
		}
	}
	return event.Interrupt{}, 0, len(pending), false
}

// openMessage opens the input line for the next user message.
func (m *Model) openMessage() {
	switch {
	case m.conv == nil:
		m.note(true, "read-only: the program showing this view cannot send messages")
	case m.busy():
		m.note(false, "a run is under way: write your message when it ends")
	case len(m.asking()) > 0:
		m.note(false, "answer the pending interrupt first: y approve · n reject · p answer · c cancel")
	default:
		m.edit = &editor{}
		m.editFor = ""
	}
}

// answerKey answers the current interrupt with y (approve), n (reject), p
// (a JSON payload, typed on the input line) or c (cancel).
func (m *Model) answerKey(k string) tea.Cmd {
	it, _, _, ok := m.current()
	if m.conv == nil || !ok {
		return nil
	}
	if at, expired := expiry(it, m.clock()); expired && k != "c" {
		m.note(true, "interrupt "+oneLine(it.ID)+" expired at "+oneLine(at)+": it can only be cancelled (c)")
		return nil
	}
	switch k {
	case "y", "n":
		if !approvable(it) {
			m.note(true, "this interrupt does not ask for approval: p answers it with JSON, c cancels it")
			return nil
		}
		p := approvePayload
		if k == "n" {
			p = rejectPayload
		}
		return m.answer(event.ResumeEntry{InterruptID: it.ID, Status: event.ResumeResolved, Payload: bytes.Clone(p)})
	case "p":
		// The line starts empty (typing does not append to a template);
		// the template shows faint, and enter on the empty line sends it.
		m.edit = &editor{placeholder: payloadTemplate(it.ResponseSchema)}
		m.editFor = it.ID
		return nil
	case "c":
		return m.answer(event.ResumeEntry{InterruptID: it.ID, Status: event.ResumeCancelled})
	}
	return nil
}

// answer records the answer to one interrupt; once every pending interrupt
// is answered, it sends them.
func (m *Model) answer(r event.ResumeEntry) tea.Cmd {
	if m.answers == nil {
		m.answers = map[string]event.ResumeEntry{}
	}
	m.answers[r.InterruptID] = r
	pending := m.asking()
	answers := make([]event.ResumeEntry, 0, len(pending))
	for _, it := range pending {
		a, ok := m.answers[it.ID]
		if !ok {
			return nil // the next one is asked
		}
		answers = append(answers, a)
	}
	// Watch the first asker continue.
	m.selectInvocation(pending[0].Subagent)
	return m.send(Turn{Answers: answers})
}

// selectInvocation selects the pane of the invocation id names (nil: the
// parent agent's), if it has one.
func (m *Model) selectInvocation(id *string) {
	for _, p := range m.panes {
		if id == nil && p.inv.IsRoot() || id != nil && !p.inv.IsRoot() && p.inv.ID() == *id {
			m.selected = p.key
			return
		}
	}
}

// send starts a turn: Continue runs on a goroutine of the model's, tracked
// so that stop can cancel it and wait for it.
func (m *Model) send(t Turn) tea.Cmd {
	m.sending = true
	m.sentRuns = len(m.v.Runs())
	m.answers = nil
	m.notice = ""
	ctx, cancel := context.WithCancel(context.Background())
	m.cancels = append(m.cancels, cancel)
	conv := m.conv
	m.turns.Add(1)
	return func() tea.Msg {
		defer m.turns.Done()
		defer cancel()
		return turnDoneMsg{err: conv.Continue(ctx, t)}
	}
}

// turnDone ends a turn: its error, if any, is shown.
func (m *Model) turnDone(msg turnDoneMsg) {
	m.sending = false
	if len(m.cancels) > 0 {
		m.cancels = m.cancels[1:]
	}
	if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
		m.note(true, "the run could not continue: "+msg.err.Error())
	}
}

// submit sends what the input line holds: the next message, or the payload
// answering the current interrupt.
func (m *Model) submit() tea.Cmd {
	text := m.edit.String()
	if m.editFor == "" {
		if strings.TrimSpace(text) == "" {
			m.edit = nil
			return nil
		}
		m.edit = nil
		m.selectInvocation(nil) // where the question and its answer show
		return m.send(Turn{Message: text})
	}
	if strings.TrimSpace(text) == "" {
		text = m.edit.placeholder
	}
	var payload json.RawMessage
	if err := json.Unmarshal([]byte(text), &payload); err != nil {
		m.note(true, "not JSON: "+err.Error())
		return nil
	}
	if string(payload) == "null" {
		m.note(true, "an answer's payload is any JSON value but null")
		return nil
	}
	it, _, _, ok := m.current()
	if !ok || it.ID != m.editFor {
		m.edit = nil // the interrupt is gone
		return nil
	}
	m.edit = nil
	return m.answer(event.ResumeEntry{InterruptID: it.ID, Status: event.ResumeResolved, Payload: compact(payload)})
}

// editKey handles a key while the input line is open.
func (m *Model) editKey(k tea.KeyPressMsg) tea.Cmd {
	m.notice = ""
	switch k.String() {
	case "enter":
		return m.submit()
	case "esc":
		m.edit = nil
		return nil
	}
	m.edit.key(k)
	return nil
}

// note shows a one-line notice above the footer until the next key.
func (m *Model) note(isErr bool, s string) {
	m.notice, m.noticeErr = oneLine(s), isErr
}

// clock is the time the model shows: the frame's, else now.
func (m *Model) clock() time.Time {
	if m.now.IsZero() {
		return time.Now()
	}
	return m.now
}

// expiry returns an interrupt's expiresAt and whether it is past at t. A
// time that does not parse as RFC 3339 is not taken as expired.
func expiry(it event.Interrupt, t time.Time) (string, bool) {
	if it.ExpiresAt == nil {
		return "", false
	}
	at, err := time.Parse(time.RFC3339Nano, *it.ExpiresAt)
	return *it.ExpiresAt, err == nil && !at.After(t)
}

// approvable reports whether an interrupt can be approved or rejected: it
// declares no response schema, or one with an "approved" property.
func approvable(it event.Interrupt) bool {
	if len(it.ResponseSchema) == 0 {
		return true
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(it.ResponseSchema, &s) != nil {
		return false
	}
	_, ok := s.Properties["approved"]
	return ok
}

// jsonSchema is the part of a JSON Schema the TUI reads: an object's
// properties and which are required, or a scalar type.
type jsonSchema struct {
	Type       any                        `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// schemaType returns a schema's type name ("" when it has none or several).
func schemaType(raw json.RawMessage) string {
	var s jsonSchema
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	t, _ := s.Type.(string)
	return t
}

// payloadTemplate returns a starting point for a payload: an object with
// the schema's required properties set to a value of their type, else {}.
func payloadTemplate(schema json.RawMessage) string {
	var s jsonSchema
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil {
		return "{}"
	}
	switch t, _ := s.Type.(string); t {
	case "string":
		return `""`
	case "boolean":
		return "true"
	case "number", "integer":
		return "0"
	case "array":
		return "[]"
	}
	var b strings.Builder
	b.WriteString("{")
	for i, name := range s.Required {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteString(":")
		switch schemaType(s.Properties[name]) {
		case "boolean":
			b.WriteString("true")
		case "string":
			b.WriteString(`""`)
		case "number", "integer":
			b.WriteString("0")
		case "array":
			b.WriteString("[]")
		case "object":
			b.WriteString("{}")
		default:
			b.WriteString("null")
		}
	}
	b.WriteString("}")
	return b.String()
}

// schemaSummary describes what an answer must look like, in one line:
// {approved: boolean, note?: string} for an object schema, else the schema
// compacted.
func schemaSummary(schema json.RawMessage) string {
	var s jsonSchema
	if len(schema) == 0 {
		return ""
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return compactJSON(schema)
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	// Required ones first, in the schema's order, then the rest by name.
	slices.Sort(names)
	var parts []string
	for _, k := range s.Required {
		if _, ok := s.Properties[k]; ok {
			parts = append(parts, k+": "+orAny(schemaType(s.Properties[k])))
		}
	}
	for _, k := range names {
		if !slices.Contains(s.Required, k) {
			parts = append(parts, k+"?: "+orAny(schemaType(s.Properties[k])))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func orAny(t string) string {
	if t == "" {
		return "any"
	}
	return t
}

// compact returns valid JSON without insignificant white space.
func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// asker names who raised an interrupt: the parent agent or a subagent.
func (m *Model) asker(it event.Interrupt) string {
	if it.Subagent == nil {
		return "parent agent"
	}
	id := *it.Subagent
	if inv := m.v.Invocation(id); inv != nil && inv.Name() != id {
		return inv.Name() + " " + id
	}
	return id
}

// askBox draws the current interrupt: who asks, what, the tool call it
// holds, the answer's shape, its expiry and the keys that answer it. It is
// at most limit lines tall; below 5 lines it is one line. Without a
// conversation there is no box: the asking pane says what it asks.
func (m *Model) askBox(w, limit int) []string {
	it, i, n, ok := m.current()
	if !ok || limit < 1 || m.conv == nil {
		return nil
	}
	what := "interrupt " + it.ID
	if it.Message != nil && strings.TrimSpace(*it.Message) != "" {
		what = *it.Message
	}
	keys := "y approve · n reject · p answer · c cancel"
	if !approvable(it) {
		keys = "p answer · c cancel"
	}
	at, expired := expiry(it, m.clock())
	if expired {
		keys = "c cancel"
	}
	if limit < 5 {
		return []string{line(w, with(stSuspend, " ‖ "+oneLine(m.asker(it))+" asks: "), plain(oneLine(what)+"  "), with(stKey, keys))}
	}
	inner := max(w-4, 1)
	var body [][]styled
	lines := wrap(clean(what), inner)
	if len(lines) > 2 {
		lines = []string{lines[0], cut(lines[1], inner-1) + "…"}
	}
	for _, l := range lines {
		body = append(body, []styled{with(stBold, l)})
	}
	if it.ToolCallID != nil {
		if c, ok := m.v.ToolCall(*it.ToolCallID); ok {
			body = append(body, toolSummary(c, m.now))
		}
	}
	if s := schemaSummary(it.ResponseSchema); s != "" {
		body = append(body, []styled{with(stFaint, "answer "), plain(oneLine(s))})
	}
	switch {
	case expired:
		body = append(body, []styled{with(stError, "expired at "+oneLine(at))})
	case at != "":
		body = append(body, []styled{with(stFaint, "expires at "+oneLine(at))})
	}
	body = append(body, []styled{with(stKey, keys)})
	for len(body) > limit-2 && len(body) > 1 {
		body = slices.Delete(body, len(body)-2, len(body)-1) // keep the keys
	}
	title := []styled{with(stSuspend, "‖ "), with(stBold, oneLine(m.asker(it))), plain(" asks")}
	right := []styled{with(stFaint, oneLine(it.Reason))}
	if n > 1 {
		right = append(right, with(stFaint, fmt.Sprintf(" · %d of %d", i+1, n)))
	}
	return box(w, heavyEdges, fg(colMagenta), title, right, body)
}
