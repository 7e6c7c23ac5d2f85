package threads

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/view"
)

// Header is a thread's header in the wire format (docs/panes.md): how the
// conversation stands, without its panes. A frame carries it when it changed.
type Header struct {
	// ID is the thread's id.
	ID string `json:"id"`
	// Active is true while a run is in progress, on any replica.
	Active bool `json:"active"`
	// Status is the last run's status ("" before the first run started).
	Status view.RunStatus `json:"status"`
	// Error says, in one sentence, why the last run did not end well: it
	// failed, was cut or was stopped; "" when it did not.
	Error string `json:"error,omitempty"`
	// Runs are the runs of the thread, in order.
	Runs []HeaderRun `json:"runs"`
	// PendingInterrupts await an answer (POST /threads/{id}/runs).
	PendingInterrupts []event.Interrupt `json:"pendingInterrupts"`
	// Invocations counts the subagent invocations.
	Invocations int `json:"invocations"`
	// Violations counts the refused events.
	Violations int `json:"violations"`
	// Diagnostics are the first and the last MaxHeaderDiagnostics/2
	// violations and warnings; DiagnosticsOmitted counts those between.
	Diagnostics        []HeaderDiagnostic `json:"diagnostics"`
	DiagnosticsOmitted int                `json:"diagnosticsOmitted"`
}

// MaxHeaderDiagnostics bounds Header.Diagnostics; GET /threads/{id}/view
// has the view's own.
const MaxHeaderDiagnostics = 50

// HeaderRun is one run of a Header: one request to the agent.
type HeaderRun struct {
	RunID   string                    `json:"runId"`   // RUN_STARTED's run id
	Status  view.RunStatus            `json:"status"`  // running, finished, errored, interrupted, incomplete, cancelled or failed
	Outcome *event.RunFinishedOutcome `json:"outcome"` // RUN_FINISHED's outcome; null when absent
	Error   string                    `json:"error,omitempty"`
	Usage   *RunUsage                 `json:"usage,omitempty"` // the tokens the run reported
}

// RunUsage is a run's token usage (view.Run.Tokens).
type RunUsage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Total  int64 `json:"total"`
}

// HeaderDiagnostic is one diagnostic of a Header.
type HeaderDiagnostic struct {
	Index   int           `json:"index"`          // the event's index in the thread
	Kind    view.DiagKind `json:"kind"`           // violation or warning
	Rule    string        `json:"rule"`           // the docs/protocol.md rule id
	Type    event.Type    `json:"type,omitempty"` // the event's wire type; absent when unknown
	Message string        `json:"message"`        // what, where and why
}

// State is the thread's state in the wire format.
type State struct {
	State     json.RawMessage `json:"state"`     // the document
	ChangedBy *string         `json:"changedBy"` // the subagent that changed it last; null for the parent agent
}

// active reports whether v shows a run in progress: an input or a run was
// folded and the stream has not ended.
func active(v *view.View) bool {
	if v.Ended() {
		return false
	}
	_, started := v.LastRun()
	return started || v.MessageCount() > 0
}

// headerOf returns the header of thread id whose view is v.
func headerOf(id string, v *view.View) Header {
	h := Header{
		ID: id, Active: active(v), Runs: []HeaderRun{}, PendingInterrupts: v.PendingInterrupts(),
		Invocations: v.InvocationCount(), Violations: v.ViolationCount(), Diagnostics: []HeaderDiagnostic{},
	}
	if h.PendingInterrupts == nil {
		h.PendingInterrupts = []event.Interrupt{}
	}
	for _, r := range v.Runs() {
		hr := HeaderRun{RunID: r.RunID, Status: r.Status, Outcome: r.Outcome}
		if r.Error != nil {
			hr.Error = sentence(r.Error.Message)
		}
		if tk := r.Tokens(); tk.Reported {
			hr.Usage = &RunUsage{Input: tk.Input, Output: tk.Output, Total: tk.Total}
		}
		h.Runs = append(h.Runs, hr)
	}
	if r, ok := v.LastRun(); ok {
		h.Status = r.Status
		switch {
		case h.Active:
		case r.Status == view.RunCancelled:
			h.Error = "The run was stopped."
		case r.Error != nil && (r.Status == view.RunFailed || r.Status == view.RunErrored):
			h.Error = sentence(r.Error.Message)
		}
	}
	ds := v.Diagnostics()
	half := MaxHeaderDiagnostics / 2
	keep := ds
	if len(ds) > MaxHeaderDiagnostics {
		keep = append(ds[:half:half], ds[len(ds)-half:]...)
		h.DiagnosticsOmitted = len(ds) - MaxHeaderDiagnostics
	}
	for _, d := range keep {
		h.Diagnostics = append(h.Diagnostics, HeaderDiagnostic{Index: d.Index, Kind: d.Kind, Rule: d.Rule, Type: d.Type, Message: bound(d.Message, maxMessage)})
	}
	return h
}

// stateOf returns the state of v.
func stateOf(v *view.View) State {
	s := State{State: v.State()}
	if id, ok := v.StateChangedBy(); ok {
		s.ChangedBy = &id
	}
	return s
}

// sentence turns an error's text, often a chain "a: b: c: d" as Go wraps
// errors, into one sentence a page shows: a cut run says so plainly;
// anything else keeps its first and last links, capitalised, bounded, with
// a full stop.
func sentence(msg string) string {
	switch {
	case strings.Contains(msg, journal.ErrCut.String()):
		return "The run was cut off: the service running it went away before it ended."
	case strings.Contains(msg, context.Canceled.Error()), strings.Contains(msg, journal.ErrStopped.String()):
		return "The run was stopped."
	}
	parts := strings.Split(msg, ": ")
	// Drop repeated links (an error chain that wraps the same cause twice).
	var keep []string
	seen := map[string]bool{}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p != "" && !seen[p] {
			seen[p] = true
			keep = append(keep, p)
		}
	}
	if len(keep) > 2 {
		keep = []string{keep[0], keep[len(keep)-1]}
	}
	s := strings.Join(keep, ": ")
	if s == "" {
		return "The run failed."
	}
	s = bound(s, 160)
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "…") {
		s += "."
	}
	return s
}
