package view

import (
	"bytes"
	"encoding/json"

	"github.com/agview/agview/event"
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
			ThreadID: r.ThreadID, RunID: r.RunID, Status: RunStatus(r.Status),
			Outcome: r.Outcome, Result: r.Result, Error: jsonErrorOf(r.Err), Usage: r.Usage,
		})
	}
	for n := range st.EachInv {
		inv := (*Invocation)(n)
		d := n.D().I
		j := jsonInvocation{
			SubagentRunID:       d.ID,
			Run:                 d.Run,
			Name:                inv.Name(),
			Description:         d.Description,
			Status:              Status(n.D().Status.String()),
			ParentSubagentRunID: d.ParentSub,
			ParentToolCallID:    d.ParentTool,
			ParentMessageID:     d.ParentMsg,
			Children:            nonNil(d.Children.Slice()),
			MessageIDs:          []string{},
			ToolCallIDs:         []string{},
			Steps:               []jsonStep{},
			Outcome:             d.Outcome,
			Result:              d.Result,
			Error:               jsonErrorOf(d.Err),
		}
		for m := range inv.msgs() {
			j.MessageIDs = append(j.MessageIDs, m.ID)
			for _, c := range m.Calls {
				j.ToolCallIDs = append(j.ToolCallIDs, c.ID)
			}
		}
		for s := range d.Steps.Values() {
			j.Steps = append(j.Steps, jsonStep{Name: s.Name, Status: entityStatus(s.Status)})
		}
		out.Invocations = append(out.Invocations, j)
	}
	for d := range st.C.Diags.Values() {
		out.Diagnostics = append(out.Diagnostics, jsonDiagnostic{Index: d.Index, Kind: DiagKind(d.Kind), Rule: d.Rule, Type: d.Type, Message: d.Message})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
