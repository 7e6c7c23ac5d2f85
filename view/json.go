package view

import (
	"bytes"
	"encoding/json"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/jsonstr"
	"github.com/agview/agview/internal/model"
)

// The JSON form; see the package documentation. Every key is always written.
type jsonView struct {
	Events            int               `json:"events"`
	Messages          []event.Message   `json:"messages"`
	State             json.RawMessage   `json:"state"`
	PendingInterrupts []event.Interrupt `json:"pendingInterrupts"`
	Runs              []jsonRun         `json:"runs"`
	Invocations       []jsonInvocation  `json:"invocations"`
	Diagnostics       []jsonDiagnostic  `json:"diagnostics"`
}

type jsonRun struct {
	ThreadID exact                     `json:"threadId"`
	RunID    exact                     `json:"runId"`
	Status   RunStatus                 `json:"status"`
	Outcome  *event.RunFinishedOutcome `json:"outcome"`
	Result   json.RawMessage           `json:"result"`
	Error    *jsonError                `json:"error"`
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

// exact is a string of the JSON form, written exactly (PROTOCOL.md G19): a
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
	st := v.st()
	out := jsonView{
		Events:            st.Events,
		Messages:          v.MessageList(),
		State:             st.C.Doc.JSON(),
		PendingInterrupts: v.PendingInterrupts(),
		Runs:              make([]jsonRun, 0, st.C.Runs.Len()),
		Invocations:       make([]jsonInvocation, 0, st.NInvs()),
		Diagnostics:       make([]jsonDiagnostic, 0, st.C.Diags.Len()),
	}
	for r := range st.C.Runs.Values() {
		out.Runs = append(out.Runs, jsonRun{
			ThreadID: exact(r.ThreadID), RunID: exact(r.RunID), Status: RunStatus(r.Status),
			Outcome: r.Outcome, Result: r.Result, Error: jsonErrorOf(r.Err),
		})
	}
	for n := range st.EachInv {
		inv := (*Invocation)(n)
		d := n.D().I
		j := jsonInvocation{
			SubagentRunID:       exact(d.ID),
			Run:                 d.Run,
			Name:                exact(inv.Name()),
			Description:         (*exact)(d.Description),
			Status:              Status(n.D().Status.String()),
			ParentSubagentRunID: (*exact)(d.ParentSub),
			ParentToolCallID:    (*exact)(d.ParentTool),
			ParentMessageID:     (*exact)(d.ParentMsg),
			Children:            exacts(d.Children.Slice()),
			MessageIDs:          []exact{},
			ToolCallIDs:         []exact{},
			Steps:               []jsonStep{},
			Outcome:             d.Outcome,
			Result:              d.Result,
			Error:               jsonErrorOf(d.Err),
		}
		for m := range inv.msgs() {
			j.MessageIDs = append(j.MessageIDs, exact(m.ID))
			for _, c := range m.Calls.All() {
				j.ToolCallIDs = append(j.ToolCallIDs, exact(c.ID))
			}
		}
		for s := range d.Steps.Values() {
			j.Steps = append(j.Steps, jsonStep{Name: exact(s.Name), Status: entityStatus(s.Status)})
		}
		out.Invocations = append(out.Invocations, j)
	}
	for d := range st.C.Diags.Values() {
		out.Diagnostics = append(out.Diagnostics, jsonDiagnostic{Index: d.Index, Kind: DiagKind(d.Kind), Rule: d.Rule, Type: d.Type, Message: exact(d.Message)})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
