package view

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/jsonstr"
	"github.com/agview/agview/internal/model"
)

// The JSON form, written by WriteJSON; see the package documentation. Every
// key is always written, in the order of the documentation: events,
// messages, state, pendingInterrupts, runs, invocations, diagnostics.

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

type jsonInvocation struct {
	SubagentRunID       exact                  `json:"subagentRunId"`
	Run                 int                    `json:"run"`
	Name                exact                  `json:"name"`
	Description         *exact                 `json:"description"`
	Status              Status                 `json:"status"`
	ParentSubagentRunID *exact                 `json:"parentSubagentRunId"`
	ParentToolCallID    *exact                 `json:"parentToolCallId"`
	ParentMessageID     *exact                 `json:"parentMessageId"`
	Children            []exact                `json:"children"`
	MessageIDs          []exact                `json:"messageIds"`
	ToolCallIDs         []exact                `json:"toolCallIds"`
	Steps               []jsonStep             `json:"steps"`
	Outcome             *event.SubagentOutcome `json:"outcome"`
	Result              json.RawMessage        `json:"result"`
	Error               *jsonError             `json:"error"`
}

type jsonStep struct {
	Name   exact        `json:"name"`
	Status EntityStatus `json:"status"`
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

func exacts(ss []string) []exact {
	out := make([]exact, len(ss))
	for i, s := range ss {
		out[i] = exact(s)
	}
	return out
}

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
	jw.value(json.RawMessage(st.C.Doc.JSON()))
	jw.raw(`,"pendingInterrupts":`)
	jw.value(v.PendingInterrupts())
	jw.raw(`,"runs":[`)
	first = true
	for r := range st.C.Runs.Values() {
		jw.sep(&first)
		jw.value(&jsonRun{
			ThreadID: exact(r.ThreadID), RunID: exact(r.RunID), Status: RunStatus(r.Status),
			Outcome: r.Outcome, Result: r.Result, Error: jsonErrorOf(r.Err), Usage: r.Usage,
		})
	}
	jw.raw(`],"invocations":[`)
	first = true
	// One jsonInvocation, its id lists reused: encoding 100,000 invocations
	// allocates little more than their children lists.
	j := jsonInvocation{MessageIDs: []exact{}, ToolCallIDs: []exact{}, Steps: []jsonStep{}}
	for n := range st.EachInv {
		inv := (*Invocation)(n)
		d := n.D().I
		j.SubagentRunID = exact(d.ID)
		j.Run = d.Run
		j.Name = exact(inv.Name())
		j.Description = (*exact)(d.Description)
		j.Status = Status(n.D().Status.String())
		j.ParentSubagentRunID = (*exact)(d.ParentSub)
		j.ParentToolCallID = (*exact)(d.ParentTool)
		j.ParentMessageID = (*exact)(d.ParentMsg)
		j.Children = exacts(d.Children.Slice())
		j.MessageIDs = j.MessageIDs[:0]
		j.ToolCallIDs = j.ToolCallIDs[:0]
		j.Steps = j.Steps[:0]
		j.Outcome = d.Outcome
		j.Result = d.Result
		j.Error = jsonErrorOf(d.Err)
		for m := range inv.msgs() {
			j.MessageIDs = append(j.MessageIDs, exact(m.ID))
			for _, c := range m.Calls.All() {
				j.ToolCallIDs = append(j.ToolCallIDs, exact(c.ID))
			}
		}
		for s := range d.Steps.Values() {
			j.Steps = append(j.Steps, jsonStep{Name: exact(s.Name), Status: entityStatus(s.Status)})
		}
		jw.sep(&first)
		jw.value(&j)
	}
	jw.raw(`],"diagnostics":[`)
	first = true
	for d := range st.C.Diags.Values() {
		jw.sep(&first)
		jw.value(&jsonDiagnostic{Index: d.Index, Kind: DiagKind(d.Kind), Rule: d.Rule, Type: d.Type, Message: exact(d.Message)})
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
