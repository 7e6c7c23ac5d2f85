package view

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/jsonstr"
	"github.com/agview/agview/internal/model"
)

// The JSON form, written by WriteJSON; see the package documentation. Every
// key is always written, in the order of the documentation: events,
// messages, state, pendingInterrupts, runs, invocations, diagnostics, and
// diagnosticsOmitted when it is not 0.

type jsonRun struct {
	ThreadID exact                     `json:"threadId"`
	RunID    exact                     `json:"runId"`
	Status   RunStatus                 `json:"status"`
	Outcome  *event.RunFinishedOutcome `json:"outcome"`
	Result   json.RawMessage           `json:"result"`
	Error    *jsonError                `json:"error"`
	// Usage is written only when the run reported usage (see the package
	// documentation).
	Usage []event.TokenUsage `json:"usage,omitzero"`
}

type jsonError struct {
	Message exact  `json:"message"`
	Code    *exact `json:"code"`
}

type jsonDiagnostic struct {
	Index   int        `json:"index"`
	Kind    DiagKind   `json:"kind"`
	Rule    string     `json:"rule"`
	Type    event.Type `json:"type"`
	Message exact      `json:"message"`
}

// exact is a string of the JSON form, written exactly (docs/protocol.md G19): a
// lone surrogate as its escape, where encoding/json writes U+FFFD and so
// makes distinct ids equal.
type exact string

// MarshalJSON implements json.Marshaler.
func (s exact) MarshalJSON() ([]byte, error) { return jsonstr.Append(nil, string(s), jsonstr.JS), nil }

func jsonErrorOf(e *model.ErrorInfo) *jsonError {
	if e == nil {
		return nil
	}
	return &jsonError{Message: exact(e.Message), Code: (*exact)(e.Code)}
}

// MarshalJSON returns the view's stable JSON form, documented in the package
// documentation. Strings are written as JavaScript's JSON.stringify writes
// them (no HTML escaping).
func (v *View) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := v.WriteJSON(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteJSON writes the view's JSON form to w: the bytes MarshalJSON returns,
// written one member at a time (a message, a run, an invocation, a
// diagnostic), so that writing a large view holds no more than one member's
// JSON besides the view itself. It returns the first error of w.
func (v *View) WriteJSON(w io.Writer) error {
	st := v.st()
	jw := &jsonWriter{w: w}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)

	jw.raw(`{"events":`)
	jw.value(st.Events)
	jw.raw(`,"messages":[`)
	first := true
	for m := range v.Messages() {
		jw.sep(&first)
		jw.value(&m) // addressable, as an element of a slice is
	}
	jw.raw(`],"state":`)
	jw.value(json.RawMessage(st.Doc().JSON()))
	jw.raw(`,"pendingInterrupts":`)
	jw.value(v.PendingInterrupts())
	jw.raw(`,"runs":[`)
	first = true
	for r := range st.Runs() {
		jw.sep(&first)
		jw.value(&jsonRun{
			ThreadID: exact(r.ThreadID), RunID: exact(r.RunID), Status: RunStatus(r.Status),
			Outcome: r.Outcome, Result: r.Result, Error: jsonErrorOf(r.Err), Usage: r.Usage,
		})
	}
	jw.raw(`],"invocations":[`)
	first = true
	// Each invocation is written member by member, its strings through one
	// reused buffer: encoding 100,000 invocations allocates next to nothing.
	for n := range st.EachInv {
		jw.sep(&first)
		jw.invocation((*Invocation)(n))
	}
	jw.raw(`],"diagnostics":[`)
	first = true
	for d := range st.Diags() {
		jw.sep(&first)
		jw.value(&jsonDiagnostic{Index: d.Index, Kind: DiagKind(d.Kind), Rule: d.Rule, Type: d.Type, Message: exact(d.Message)})
	}
	jw.raw(`]`)
	if n := st.DiagsOmitted(); n > 0 {
		jw.raw(`,"diagnosticsOmitted":`)
		jw.value(n)
	}
	jw.raw(`}`)
	return jw.err
}

// jsonWriter writes the JSON form piece by piece, keeping the first error.
type jsonWriter struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
	// scratch holds one encoded string at a time.
	scratch []byte
}

func (j *jsonWriter) raw(s string) {
	if j.err == nil {
		_, j.err = io.WriteString(j.w, s)
	}
}

// value writes x as encoding/json writes it inside the whole (no HTML
// escaping), without the encoder's newline.
func (j *jsonWriter) value(x any) {
	if j.err != nil {
		return
	}
	j.buf.Reset()
	if j.err = j.enc.Encode(x); j.err != nil {
		return
	}
	_, j.err = j.w.Write(bytes.TrimSuffix(j.buf.Bytes(), []byte{'\n'}))
}

// str writes s as a JSON string, exactly (docs/protocol.md G19).
func (j *jsonWriter) str(s string) {
	if j.err == nil {
		j.scratch = jsonstr.Append(j.scratch[:0], s, jsonstr.JS)
		_, j.err = j.w.Write(j.scratch)
	}
}

// optStr writes s as a JSON string, or null when s is nil.
func (j *jsonWriter) optStr(s *string) {
	if s == nil {
		j.raw("null")
		return
	}
	j.str(*s)
}

// invocation writes one invocation of the "invocations" array.
func (j *jsonWriter) invocation(inv *Invocation) {
	n := (*model.Inv)(inv).Data()
	d := n.Info
	j.raw(`{"subagentRunId":`)
	j.str(d.ID)
	j.raw(`,"run":`)
	j.raw(strconv.Itoa(d.Run))
	j.raw(`,"name":`)
	j.str(inv.Name())
	j.raw(`,"description":`)
	j.optStr(d.Description)
	j.raw(`,"status":`)
	j.str(n.Status.String())
	j.raw(`,"parentSubagentRunId":`)
	j.optStr(d.ParentSub)
	j.raw(`,"parentToolCallId":`)
	j.optStr(d.ParentTool)
	j.raw(`,"parentMessageId":`)
	j.optStr(d.ParentMsg)
	j.raw(`,"children":[`)
	first := true
	for c := range d.Children.Values() {
		j.sep(&first)
		j.str(c)
	}
	j.raw(`],"messageIds":[`)
	first = true
	for m := range inv.msgs() {
		j.sep(&first)
		j.str(m.ID)
	}
	j.raw(`],"toolCallIds":[`)
	first = true
	for m := range inv.msgs() {
		for _, c := range m.Calls().All() {
			j.sep(&first)
			j.str(c.ID)
		}
	}
	j.raw(`],"steps":[`)
	first = true
	for s := range d.Steps.Values() {
		j.sep(&first)
		j.raw(`{"name":`)
		j.str(s.Name)
		j.raw(`,"status":`)
		j.str(string(entityStatus(s.Status)))
		j.raw(`}`)
	}
	j.raw(`],"outcome":`)
	if d.Outcome == nil {
		j.raw("null")
	} else {
		j.value(d.Outcome)
	}
	j.raw(`,"result":`)
	if d.Result == nil {
		j.raw("null")
	} else {
		j.value(d.Result)
	}
	j.raw(`,"error":`)
	if d.Err == nil {
		j.raw("null")
	} else {
		j.value(jsonErrorOf(d.Err))
	}
	j.raw(`}`)
}

// sep writes the comma before every member but the first.
func (j *jsonWriter) sep(first *bool) {
	if !*first {
		j.raw(",")
	}
	*first = false
}
