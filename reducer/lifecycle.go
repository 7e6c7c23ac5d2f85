package reducer

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/internal/persist"
)

// Runs, steps and subagent invocations (docs/protocol.md V1–V5, V10, V11, V14,
// R5, R7–R10, R14, R17, R19, G10–G13).

func (f *folder) runStarted(e *event.RunStarted) *Violation {
	if err := f.closeAllLanes(); err != nil {
		return err
	}
	f.writeRest().Phase = model.PhaseActive
	f.resetScope(model.RunScope{})
	f.writeRest().Runs = f.st.Cold.Rest.Runs.Append(model.Run{
		ThreadID: e.ThreadID, RunID: e.RunID, ParentRunID: cloneStr(e.ParentRunID),
		Status: model.RunRunning, Start: f.index, End: -1,
	})
	f.setRootStatus(model.InvRunning)
	if e.Input != nil {
		f.echoInput(e.Input.Messages)
	}
	return nil
}

func (f *folder) runFinished(e *event.RunFinished) *Violation {
	if err := f.closeAllLanes(); err != nil {
		return err
	}
	sc, op := f.st.Cold.RunScope, &f.st.Cold.Open
	if sc.OpenSteps.Len() > 0 {
		var names []string
		for _, s := range sc.OpenSteps.All() {
			n := s.Name
			if s.Owner.Sub {
				n += " (subagent '" + s.Owner.ID + "')"
			}
			names = append(names, n)
		}
		slices.Sort(names)
		return f.violation("V14", "RUN_FINISHED while steps are still open: %s", strings.Join(names, ", "))
	}
	if op.Text.Len() > 0 {
		return f.violation("V14", "RUN_FINISHED while text messages are still open: %s", strings.Join(sortedKeys(op.Text), ", "))
	}
	if op.Rsn.Len() > 0 {
		return f.violation("V14", "RUN_FINISHED while reasoning messages are still open: %s", strings.Join(sortedKeys(op.Rsn), ", "))
	}
	if sc.OpenSpan.Len() > 0 {
		return f.violation("V14", "RUN_FINISHED while reasoning spans are still open: %s", strings.Join(sortedKeys(sc.OpenSpan), ", "))
	}
	if op.Tool.Len() > 0 {
		return f.violation("V14", "RUN_FINISHED while tool calls are still open: %s", strings.Join(sortedKeys(op.Tool), ", "))
	}
	if sc.Active.Len() > 0 {
		return f.violation("R10", "RUN_FINISHED while subagents are still active: %s; close each with SUBAGENT_FINISHED or SUBAGENT_ERROR first",
			strings.Join(sortedKeys(sc.Active), ", "))
	}
	status, root := model.RunFinished, model.InvFinished
	pending := []event.Interrupt{}
	if e.Outcome != nil {
		switch e.Outcome.Type {
		case event.OutcomeInterrupt:
			status, root = model.RunInterrupted, model.InvSuspended
			pending = e.Outcome.Interrupts
		case event.OutcomeCancelled:
			status, root = model.RunCancelled, model.InvAbandoned
		}
	}
	outcome := cloneRunOutcome(e.Outcome)
	f.setRun(func(r *model.Run) {
		r.Status = status
		r.End = f.index
		r.Outcome = outcome
		r.Result = bytes.Clone(e.Result)
		r.Usage = model.CloneUsage(e.Usage)
		if outcome != nil && outcome.Type == event.OutcomeInterrupt {
			r.Interrupts = outcome.Interrupts
		}
	})
	f.writeRest().Pending = model.CloneInterrupts(pending)
	f.setRootStatus(root)
	f.settleContinued(func(id string) model.InvStatus {
		for _, in := range pending {
			if in.Subagent != nil && *in.Subagent == id {
				return model.InvSuspended
			}
		}
		if status == model.RunCancelled {
			return model.InvAbandoned
		}
		return model.InvFinished
	})
	f.writeRest().Phase = model.PhaseFinished
	return nil
}

// settleContinued ends the invocations of this run that a suspended
// invocation's attributed events continued without a SUBAGENT_STARTED (they
// read running, yet are not active: nothing closes them) with the status
// end gives: finished when the run finishes, suspended again when one of
// the run's interrupts is theirs, abandoned when the run errors.
func (f *folder) settleContinued(end func(id string) model.InvStatus) {
	sc := f.st.Cold.RunScope
	for _, id := range sortedKeys(sc.Attributed) {
		if _, active := sc.Active.Get(id); active {
			continue
		}
		if k, ok := f.st.Cold.Rest.InvIDs.Get(id); ok && f.peek(k).Info.Announced && f.peek(k).Status == model.InvRunning {
			f.node(k).Status = end(id)
		}
	}
}

func (f *folder) runError(e *event.RunError) *Violation {
	if f.st.Cold.Rest.Phase == model.PhaseFinished {
		// V2 lets RUN_ERROR follow RUN_FINISHED. The run is over: it keeps
		// its status, outcome, end and pending interrupts; the verifier
		// moves on (V3: only RUN_STARTED may come next).
		code := ""
		if e.Code != nil {
			code = fmt.Sprintf(" (code %q)", *e.Code)
		}
		f.warn("V2", "RUN_ERROR %q%s came after run %s finished with RUN_FINISHED; the finished run is kept as it was",
			e.Message, code, f.runName())
		f.writeRest().Phase = model.PhaseErrored
		return nil
	}
	// V15: RUN_ERROR is accepted at any time, so pending chunk streams are
	// discarded rather than closed; their entities are abandoned below.
	f.discardLanes()
	if f.st.Cold.Rest.Phase == model.PhaseNone {
		// RUN_ERROR may come first (V1): it opens and ends an implicit run.
		f.writeRest().Runs = f.st.Cold.Rest.Runs.Append(model.Run{Implicit: true, Start: f.index, End: -1})
	}
	f.abandonAll()
	f.setRun(func(r *model.Run) {
		r.Status = model.RunErrored
		r.End = f.index
		r.Err = &model.ErrorInfo{Message: e.Message, Code: cloneStr(e.Code)}
		r.Usage = model.CloneUsage(e.Usage)
	})
	f.setRootStatus(model.InvErrored)
	f.writeRest().Phase = model.PhaseErrored
	return nil
}

// abandonAll closes everything still open as abandoned: messages, tool
// calls, reasoning, steps and running invocations (G11, R23). An invocation
// seen only through attribution is abandoned too when it had something open
// (its owner of an open message, tool call, reasoning span or step); one with
// nothing open stays unannounced.
func (f *folder) abandonAll() {
	sc, op := f.st.Cold.RunScope, f.st.Cold.Open
	var holders []int // nodes owning something open
	hold := func(o model.Owner) {
		if o.Sub {
			if k, ok := f.st.Cold.Rest.InvIDs.Get(o.ID); ok {
				holders = append(holders, k)
			}
		}
	}
	for _, id := range sortedKeys(op.Text) {
		o, _ := op.Text.Get(id)
		hold(o.Owner)
		f.abandonMsg(id)
	}
	for _, id := range sortedKeys(op.Rsn) {
		o, _ := op.Rsn.Get(id)
		hold(o.Owner)
		f.abandonMsg(id)
	}
	for _, id := range sortedKeys(op.Tool) {
		o, _ := op.Tool.Get(id)
		hold(o.Owner)
		if holder, loc, idx, ok := f.call(id); ok {
			f.changeCall(holder, loc, idx, func(c *model.Call) { c.Status = model.EntAbandoned })
		}
	}
	for _, id := range sortedKeys(sc.OpenSpan) {
		sl, _ := sc.OpenSpan.Get(id)
		holders = append(holders, sl.Inv)
		f.endSpan(sl, model.EntAbandoned)
	}
	for _, k := range sortedKeys(sc.OpenSteps) {
		sl, _ := sc.OpenSteps.Get(k)
		holders = append(holders, sl.Inv)
		f.endStep(sl, model.EntAbandoned)
	}
	for _, id := range sortedKeys(sc.Active) {
		k, _ := sc.Active.Get(id)
		f.node(k).Status = model.InvAbandoned
	}
	f.settleContinued(func(string) model.InvStatus { return model.InvAbandoned })
	for _, k := range holders {
		if k >= 0 && f.peek(k).Status == model.InvUnannounced {
			f.node(k).Status = model.InvAbandoned
		}
	}
	f.resetScope(model.RunScope{Started: sc.Started, Closed: sc.Closed, Attributed: sc.Attributed})
}

func (f *folder) abandonMsg(id string) {
	m, loc, ok := f.msg(id)
	if !ok {
		return
	}
	c := *m
	c.Status = model.EntAbandoned
	f.putMsg(loc, &c)
}

// ---------------------------------------------------------------------------
// Steps: keyed by (owner, name); untagged means the parent (R17).

func stepKey(o model.Owner, name string) string { return o.Key() + "\x00" + name }

func (f *folder) stepStarted(name string, tag model.Owner) *Violation {
	k := stepKey(tag, name)
	if _, open := f.st.Cold.RunScope.OpenSteps.Get(k); open {
		if tag.Sub {
			return f.violation("V10", "step %q is already open for subagent '%s'; finish it with STEP_FINISHED first", name, tag.ID)
		}
		return f.violation("V10", "step %q is already open for the parent agent; finish it with STEP_FINISHED first", name)
	}
	key := f.invFor(tag)
	n := f.info(key)
	pos := n.Steps.Len()
	n.Steps = n.Steps.Append(model.Step{Name: name, Status: model.EntOpen, Run: f.runIndex(), Start: f.index, End: -1})
	f.writeScope().OpenSteps = f.st.Cold.RunScope.OpenSteps.Set(k, model.StepLoc{Owner: tag, Name: name, Inv: key, Pos: pos})
	return nil
}

func (f *folder) stepFinished(name string, tag model.Owner) *Violation {
	k := stepKey(tag, name)
	sl, open := f.st.Cold.RunScope.OpenSteps.Get(k)
	if !open {
		var others []string
		for _, s := range f.st.Cold.RunScope.OpenSteps.All() {
			if s.Name == name {
				others = append(others, s.Owner.Describe())
			}
		}
		if len(others) > 0 {
			slices.Sort(others)
			return f.violation("R17", "STEP_FINISHED for step %q attributed to %s: that step is open under %s; a step must be finished by whoever started it",
				name, tag.Describe(), strings.Join(others, ", "))
		}
		return f.violation("V11", "STEP_FINISHED for step %q, which was not started", name)
	}
	f.writeScope().OpenSteps = f.st.Cold.RunScope.OpenSteps.Delete(k)
	f.endStep(sl, model.EntClosed)
	return nil
}

func (f *folder) endStep(sl model.StepLoc, status model.EntStatus) {
	n := f.info(sl.Inv)
	s := n.Steps.At(sl.Pos)
	s.Status, s.End = status, f.index
	n.Steps = n.Steps.Set(sl.Pos, s)
}

// ---------------------------------------------------------------------------
// Subagent lifecycle

func (f *folder) subagentStarted(e *event.SubagentStarted) *Violation {
	id := e.ID
	sc := f.st.Cold.RunScope
	if _, ok := sc.Active.Get(id); ok {
		return f.violation("R8", "subagent '%s' is already active; finish it with SUBAGENT_FINISHED first", id)
	}
	if _, ok := sc.Closed.Get(id); ok {
		return f.violation("R5", "subagent '%s' has already finished in this run; subagent ids are per invocation and cannot be reused", id)
	}
	if _, ok := sc.Attributed.Get(id); ok {
		return f.violation("R7", "subagent '%s' is announced after events attributed to it in this run; announce an invocation before attributing events to it", id)
	}
	if p := e.ParentSubagentRunID; p != nil {
		if _, ok := sc.Started.Get(*p); !ok {
			return f.violation("R19", "parentSubagentRunId '%s' has not been started in this run", *p)
		}
	}
	run := f.runIndex()
	key, exists := f.st.Cold.Rest.InvIDs.Get(id)
	continued := false
	if exists {
		d := f.peek(key)
		switch {
		case d.Status == model.InvSuspended && d.Info.Run < run:
			continued = true // G10: a later run continues a suspended invocation
		case !d.Info.Announced:
			// Seen through attribution (in an earlier run, or in history),
			// perhaps abandoned by a RUN_ERROR since: announce it in place.
		default:
			f.warn("G10", "subagent '%s' was %s in an earlier run; this SUBAGENT_STARTED starts a new invocation with the same id", id, d.Status)
			exists = false
		}
	}
	if !exists {
		key = f.newNode(model.InvInfo{ID: id, ParentKey: -1}, model.InvRunning)
	}
	f.node(key).Status = model.InvRunning
	d := f.info(key)
	d.Announced = true
	if continued {
		// The suspended segment's outcome and result belong to the run
		// that suspended it; the continued invocation is running again.
		d.Outcome, d.Result, d.Err = nil, nil, nil
	}
	name := e.Name
	d.Name = &name
	if e.Description != nil {
		d.Description = cloneStr(e.Description)
	}
	sc = f.writeScope()
	sc.Started = sc.Started.Set(id, struct{}{})
	sc.Active = sc.Active.Set(id, key)
	if continued {
		return nil
	}
	d.ParentSub = cloneStr(e.ParentSubagentRunID)
	d.ParentTool = cloneStr(e.ParentToolCallID)
	d.ParentMsg = cloneStr(e.ParentMessageID)
	parent := -1
	if p := e.ParentSubagentRunID; p != nil {
		parent, _ = f.st.Cold.Rest.InvIDs.Get(*p)
	}
	d.ParentKey = parent
	pn := f.info(parent)
	pn.Children = pn.Children.Append(id)
	if tc := e.ParentToolCallID; tc != nil {
		if holder, loc, idx, ok := f.call(*tc); ok {
			f.changeCallInfo(holder, loc, idx, func(c *model.CallInfo) {
				c.Spawned = append(slices.Clip(c.Spawned), id)
			})
		}
	}
	return nil
}

func (f *folder) subagentFinished(e *event.SubagentFinished) *Violation {
	if o := e.Outcome; o != nil {
		switch {
		case o.Type == event.SubagentSuccess && o.InterruptIDs != nil:
			return f.violation("R14", "SUBAGENT_FINISHED for '%s' with a success outcome carrying interruptIds; only a suspended outcome names interrupts", e.ID)
		case o.Type != event.SubagentSuccess && o.Type != event.SubagentSuspended:
			return f.violation("R14", "SUBAGENT_FINISHED for '%s' with outcome type %q; the outcome is either {type: \"success\"} or {type: \"suspended\"}", e.ID, o.Type)
		}
	}
	key, err := f.active(e.ID, event.TypeSubagentFinished)
	if err != nil {
		return err
	}
	n := f.node(key)
	n.Status = model.InvFinished
	if e.Outcome != nil && e.Outcome.Type == event.SubagentSuspended {
		n.Status = model.InvSuspended
	}
	d := f.info(key)
	d.Outcome = cloneSubagentOutcome(e.Outcome)
	d.Result = bytes.Clone(e.Result)
	f.close(e.ID)
	return nil
}

func (f *folder) subagentError(e *event.SubagentError) *Violation {
	key, err := f.active(e.ID, event.TypeSubagentError)
	if err != nil {
		return err
	}
	f.node(key).Status = model.InvErrored
	f.info(key).Err = &model.ErrorInfo{Message: e.Message, Code: cloneStr(e.Code)}
	f.close(e.ID)
	return nil
}

// active returns the node of an active invocation (R9).
func (f *folder) active(id string, t event.Type) (int, *Violation) {
	key, ok := f.st.Cold.RunScope.Active.Get(id)
	if !ok {
		return 0, f.violation("R9", "%s: no active subagent '%s'; SUBAGENT_STARTED must come first", t, id)
	}
	return key, nil
}

func (f *folder) close(id string) {
	sc := f.writeScope()
	sc.Active = sc.Active.Delete(id)
	sc.Closed = sc.Closed.Set(id, struct{}{})
}

func sortedKeys[V any](m persist.Map[V]) []string {
	ks := make([]string, 0, m.Len())
	for k := range m.Keys() {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func cloneRunOutcome(o *event.RunFinishedOutcome) *event.RunFinishedOutcome {
	if o == nil {
		return nil
	}
	c := *o
	c.PendingToolCallIDs = slices.Clone(o.PendingToolCallIDs)
	c.Interrupts = model.CloneInterrupts(o.Interrupts)
	return &c
}

func cloneSubagentOutcome(o *event.SubagentOutcome) *event.SubagentOutcome {
	if o == nil {
		return nil
	}
	c := *o
	c.InterruptIDs = slices.Clone(o.InterruptIDs)
	return &c
}
