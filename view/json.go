package view

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
)

// The JSON form, written by WriteJSON; see the package documentation. Every
// key is always written, in the order of the documentation: events,
// messages, state, pendingInterrupts, runs, invocations, diagnostics.

type jsonRun struct {
	ThreadID string                    `json:"threadId"`
	RunID    string                    `json:"runId"`
	Status   RunStatus                 `json:"status"`
	Outcome  *event.RunFinishedOutcome `json:"outcome"`
	Result   json.RawMessage           `json:"result"`
	Error    *jsonError                `json:"error"`
	// Usage is written only when the run reported usage (see the package
	// documentation).
	Usage []event.TokenUsage `json:"usage,omitzero"`
}

type jsonError struct {
	Message string  `json:"message"`
	Code    *string `json:"code"`
}

type jsonInvocation struct {
	SubagentRunID       string                 `json:"subagentRunId"`
	Run                 int                    `json:"run"`
	Name                string                 `json:"name"`
	Description         *string                `json:"description"`
	Status              Status                 `json:"status"`
	ParentSubagentRunID *string                `json:"parentSubagentRunId"`
	ParentToolCallID    *string                `json:"parentToolCallId"`
	ParentMessageID     *string                `json:"parentMessageId"`
	Children            []string               `json:"children"`
	MessageIDs          []string               `json:"messageIds"`
	ToolCallIDs         []string               `json:"toolCallIds"`
	Steps               []jsonStep             `json:"steps"`
	Outcome             *event.SubagentOutcome `json:"outcome"`
	Result              json.RawMessage        `json:"result"`
	Error               *jsonError             `json:"error"`
}

type jsonStep struct {
	Name   string       `json:"name"`
	Status EntityStatus `json:"status"`
}

type jsonDiagnostic struct {
	Index   int        `json:"index"`
	Kind    DiagKind   `json:"kind"`
	Rule    string     `json:"rule"`
	Type    event.Type `json:"type"`
	Message string     `json:"message"`
}

func jsonErrorOf(e *model.ErrorInfo) *jsonError {
	if e == nil {
		return nil
	}
	return &jsonError{Message: e.Message, Code: e.Code}
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
	jw.value(json.RawMessage(st.C.Doc.JSON()))
	jw.raw(`,"pendingInterrupts":`)
	jw.value(v.PendingInterrupts())
	jw.raw(`,"runs":[`)
	first = true
	for r := range st.C.Runs.Values() {
		jw.sep(&first)
		jw.value(&jsonRun{
			ThreadID: r.ThreadID, RunID: r.RunID, Status: RunStatus(r.Status),
			Outcome: r.Outcome, Result: r.Result, Error: jsonErrorOf(r.Err), Usage: r.Usage,
		})
	}
	jw.raw(`],"invocations":[`)
	first = true
	// One jsonInvocation, its id lists reused: encoding 100,000 invocations
	// allocates little more than their children lists.
	j := jsonInvocation{MessageIDs: []string{}, ToolCallIDs: []string{}, Steps: []jsonStep{}}
	for n := range st.EachInv {
		inv := (*Invocation)(n)
		d := n.D().I
		j.SubagentRunID = d.ID
		j.Run = d.Run
		j.Name = inv.Name()
		j.Description = d.Description
		j.Status = Status(n.D().Status.String())
		j.ParentSubagentRunID = d.ParentSub
		j.ParentToolCallID = d.ParentTool
		j.ParentMessageID = d.ParentMsg
		j.Children = nonNil(d.Children.Slice())
		j.MessageIDs = j.MessageIDs[:0]
		j.ToolCallIDs = j.ToolCallIDs[:0]
		j.Steps = j.Steps[:0]
		j.Outcome = d.Outcome
		j.Result = d.Result
		j.Error = jsonErrorOf(d.Err)
		for m := range inv.msgs() {
			j.MessageIDs = append(j.MessageIDs, m.ID)
			for _, c := range m.Calls {
				j.ToolCallIDs = append(j.ToolCallIDs, c.ID)
			}
		}
		for s := range d.Steps.Values() {
			j.Steps = append(j.Steps, jsonStep{Name: s.Name, Status: entityStatus(s.Status)})
		}
		jw.sep(&first)
		jw.value(&j)
	}
	jw.raw(`],"diagnostics":[`)
	first = true
	for d := range st.C.Diags.Values() {
		jw.sep(&first)
		jw.value(&jsonDiagnostic{Index: d.Index, Kind: DiagKind(d.Kind), Rule: d.Rule, Type: d.Type, Message: d.Message})
	}
	jw.raw(`]}`)
	return jw.err
}

// jsonWriter writes the JSON form piece by piece, keeping the first error.
type jsonWriter struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
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

// sep writes the comma before every member but the first.
func (j *jsonWriter) sep(first *bool) {
	if !*first {
		j.raw(",")
	}
	*first = false
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
