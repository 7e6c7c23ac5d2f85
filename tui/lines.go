package tui

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agview/agview/event"
	"github.com/agview/agview/store"
	"github.com/agview/agview/view"
)

// Lines writes plain progress lines to w as the views of s change, for when
// standard output is not a terminal: a run started, finished, was
// interrupted, errored, failed or was cancelled; a subagent invocation
// started (or was first seen without being announced) and each change of
// its status; a tool call answered or abandoned; each violation and warning.
// Lines are plain text, one event each, with no colour and no escape
// sequence (text from the wire is cleaned of them).
//
// Lines compares each view it is given with the last one it printed, so it
// reports everything even when the store publishes faster than w takes
// lines (it then prints several changes from one view). It returns stop,
// which ends the subscription, prints what the store's latest view holds
// that was not printed yet, and returns once nothing more will be written;
// stop is idempotent. A write error ends the printing (stop still returns
// normally).
func Lines(w io.Writer, s *store.Store) (stop func()) {
	p := &printer{w: w, calls: map[string]callSeen{}}
	unsubscribe := s.Subscribe(p.update)
	var once sync.Once
	return func() {
		once.Do(func() {
			unsubscribe()
			p.mu.Lock()
			defer p.mu.Unlock()
			p.diff(s.View())
			p.stopped = true
		})
	}
}

// printer is Lines' state: what it has printed so far.
type printer struct {
	mu      sync.Mutex
	w       io.Writer
	err     error
	stopped bool

	last   *view.View
	root   *view.Invocation   // the root as last seen
	runs   []view.RunStatus   // status printed for each run
	invs   []*view.Invocation // last seen invocation, by first-seen position
	status []view.Status      // status printed, by first-seen position
	calls  map[string]callSeen
	diags  int // diagnostics printed
}

type callSeen uint8

const (
	callAnswered callSeen = iota + 1
	callAbandoned
)

func (p *printer) update(v *view.View) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.diff(v)
}

func (p *printer) printf(format string, args ...any) {
	if p.err != nil {
		return
	}
	_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
}

// diff prints what changed from the last view printed to v.
func (p *printer) diff(v *view.View) {
	if v == p.last || p.err != nil {
		return
	}
	p.last = v
	runs := v.Runs()
	// Runs start before their invocations and end after them; diagnostics
	// come in event order, last.
	var ended []int
	for i, r := range runs {
		if i >= len(p.runs) {
			p.runs = append(p.runs, "")
			p.printf("%s started%s", runLabel(r, i), threadOf(r))
		}
		if r.Status == p.runs[i] || r.Status == view.RunRunning {
			p.runs[i] = r.Status
			continue
		}
		p.runs[i] = r.Status
		ended = append(ended, i)
	}
	i := 0
	for inv := range v.Invocations() {
		if i >= len(p.invs) {
			p.invs = append(p.invs, nil)
			p.status = append(p.status, "")
		}
		if p.invs[i] != inv {
			p.invs[i] = inv
			p.invocation(v, inv, i)
		}
		i++
	}
	if root := v.Root(); root != p.root {
		p.root = root
		p.toolCalls(root, "agent")
	}
	for _, i := range ended {
		p.runEnd(v, runs[i], i)
	}
	ds := v.Diagnostics()
	for _, d := range ds[min(p.diags, len(ds)):] {
		what := "warning"
		if d.Kind == view.DiagViolation {
			what = "violation"
		}
		at := fmt.Sprintf("event %d", d.Index)
		if d.Type != "" {
			at += " (" + oneLine(string(d.Type)) + ")"
		}
		p.printf("%s %s at %s: %s", what, oneLine(d.Rule), at, oneLine(d.Message))
	}
	p.diags = len(ds)
}

func (p *printer) runEnd(v *view.View, r view.Run, i int) {
	if answer := lastAnswer(v.Root()); answer != "" && i == len(p.runs)-1 {
		// What the parent agent said last is the run's answer: a reader of
		// the lines (agview demo | cat) ends with it and the outcome.
		p.printf("agent says:")
		for l := range strings.SplitSeq(answer, "\n") {
			if l = oneLine(l); l == "" {
				p.printf("")
			} else {
				p.printf("  %s", l)
			}
		}
	}
	s := runLabel(r, i) + " " + string(r.Status)
	if r.Error != nil {
		s += ": " + errorText(r.Error)
	}
	if r.Status == view.RunInterrupted && len(r.Interrupts) > 0 {
		var ids []string
		for _, in := range r.Interrupts {
			id := oneLine(in.ID)
			if in.Subagent != nil {
				from := oneLine(*in.Subagent)
				if inv := v.Invocation(*in.Subagent); inv != nil && !inv.IsRoot() {
					from = invLabel(inv)
				}
				id += " from " + from
			}
			ids = append(ids, id)
		}
		s += fmt.Sprintf(": %s awaiting an answer (%s)", plural(len(r.Interrupts), "interrupt"), strings.Join(ids, ", "))
	}
	p.printf("%s", s)
}

// lastAnswer returns the text of the invocation's last assistant message,
// cut to 40 lines.
func lastAnswer(inv *view.Invocation) string {
	var last string
	for m := range inv.Messages() {
		if m.Role == event.RoleAssistant {
			if t := strings.TrimSpace(m.Text()); t != "" {
				last = t
			}
		}
	}
	if lines := strings.Split(last, "\n"); len(lines) > 40 {
		last = strings.Join(lines[:40], "\n") + fmt.Sprintf("\n… %d more lines", len(lines)-40)
	}
	return last
}

func runLabel(r view.Run, i int) string {
	s := fmt.Sprintf("run %d", i+1)
	if r.RunID != "" {
		s = "run " + oneLine(r.RunID)
	}
	return s
}

func threadOf(r view.Run) string {
	if r.ThreadID == "" {
		return ""
	}
	return " (thread " + oneLine(r.ThreadID) + ")"
}

// invLabel names an invocation in a progress line: "researcher sa-1", or
// the id alone for one never announced.
func invLabel(inv *view.Invocation) string {
	if inv.IsRoot() {
		return "agent"
	}
	if inv.Name() == inv.ID() {
		return oneLine(inv.ID())
	}
	return oneLine(inv.Name()) + " " + oneLine(inv.ID())
}

// invocation prints a new invocation, a change of status and its tool calls.
func (p *printer) invocation(v *view.View, inv *view.Invocation, i int) {
	label := invLabel(inv)
	st := inv.Status()
	if p.status[i] == "" {
		if st == view.Unannounced {
			p.printf("%s seen without SUBAGENT_STARTED (unannounced)", label)
			p.status[i] = st
		} else {
			s := label + " started"
			if d := inv.Description(); d != "" {
				s += ": " + oneLine(d)
			}
			parent := "agent"
			if id, ok := inv.ParentSubagentRunID(); ok {
				parent = id
				if pi := v.Invocation(id); pi != nil {
					parent = invLabel(pi)
				}
			}
			s += " (spawned by " + parent
			if tc := inv.ParentToolCallID(); tc != "" {
				s += " via " + oneLine(tc)
			}
			p.printf("%s)", s)
			p.status[i] = view.Running
		}
	}
	p.toolCalls(inv, label)
	if st == p.status[i] {
		return
	}
	p.status[i] = st
	s := label + " " + string(st)
	if e := inv.Error(); e != nil {
		s += ": " + errorText(e)
	}
	if o := inv.Outcome(); o != nil && st == view.Suspended && len(o.InterruptIDs) > 0 {
		s += " (awaiting " + oneLine(strings.Join(o.InterruptIDs, ", ")) + ")"
	}
	p.printf("%s", s)
}

// toolCalls prints the calls of inv answered or abandoned since last time.
func (p *printer) toolCalls(inv *view.Invocation, label string) {
	for _, c := range inv.ToolCalls() {
		seen := p.calls[c.ID]
		switch {
		case c.ResultMessageID != "" && seen != callAnswered:
			p.calls[c.ID] = callAnswered
			p.printf("%s: tool %s (%s) answered: %s", label, oneLine(c.Name), oneLine(c.ID), truncate(oneLine(contentText(c.Result)), 100))
		case c.ResultMessageID == "" && c.Status == view.EntityAbandoned && seen == 0:
			p.calls[c.ID] = callAbandoned
			p.printf("%s: tool %s (%s) abandoned", label, oneLine(c.Name), oneLine(c.ID))
		}
	}
}
