package agenttest

import (
	"encoding/json"
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agview/agview/event"
)

// SwarmConfig configures the demo swarm of Swarm and SwarmEvents. nil and the
// zero value give the default demo.
type SwarmConfig struct {
	// Seed picks the interleaving of the invocations' events, how texts are
	// cut into deltas, the invocation ids, which researcher fails and which
	// suspends, and the number of researchers when Researchers is 0. The same
	// configuration always gives the same events.
	Seed int64
	// Researchers is the number of researcher subagents the supervisor runs
	// in parallel. 0 picks 3 to 8 from Seed; values below 3 are raised to 3,
	// so that one can fail, one can suspend and at least one can finish.
	// Beyond 8 the research topics repeat.
	Researchers int
	// Rounds is the number of search rounds each researcher makes (a message,
	// a tool call with streamed arguments, its result and a state update):
	// the size knob for benchmarks. 0 means 2. A round adds about 20 events
	// per researcher.
	Rounds int
	// ThreadID and RunID name the run; "" means "thread-demo" and "run-demo".
	// Swarm uses the ids of the input it is started with when these are "".
	ThreadID, RunID string
}

// Swarm returns a Script that plays the demo swarm for every run it serves:
// the run of SwarmEvents, or, when the run's input answers the swarm's
// approval interrupt in its resume entries, the run of SwarmResumeEvents
// that continues it (approved when the entry is resolved with a payload
// whose "approved" is true), or, when the input's history holds the swarm's
// report and ends with a user message, a follow-up run in which the
// supervisor answers that message (see SwarmFollowUpEvents). When cfg leaves
// ThreadID or RunID empty, they are taken from the RunAgentInput the run was
// started with, if it names them. cfg is copied; nil means the defaults.
func Swarm(cfg *SwarmConfig) Script {
	var c SwarmConfig
	if cfg != nil {
		c = *cfg
	}
	return ScriptFunc(func(input *event.RunAgentInput) iter.Seq[json.RawMessage] {
		rc := c.withInputIDs(input)
		g := newSwarm(&rc)
		first := g.build()
		if input != nil {
			for _, r := range input.Resume {
				if r.InterruptID == g.suspended.interrupt.ID {
					return Events(g.resume(approved(r), input.Resume)...).Frames(input)
				}
			}
			if g.isFollowUp(input) {
				return Events(g.followUp(input)...).Frames(input)
			}
		}
		return Events(first...).Frames(input)
	})
}

// withInputIDs returns a copy of c whose empty ThreadID and RunID are
// input's (when input is not nil).
func (c SwarmConfig) withInputIDs(input *event.RunAgentInput) SwarmConfig {
	if input != nil {
		if c.ThreadID == "" {
			c.ThreadID = input.ThreadID
		}
		if c.RunID == "" {
			c.RunID = input.RunID
		}
	}
	return c
}

// approved reports whether a resume entry approves the purchase: resolved,
// with a payload object whose "approved" is true.
func approved(r event.ResumeEntry) bool {
	var p struct {
		Approved bool `json:"approved"`
	}
	return r.Status == event.ResumeResolved && json.Unmarshal(r.Payload, &p) == nil && p.Approved
}

// SwarmEvents returns the demo swarm: one run, deterministic for a given
// configuration, valid under every rule of the protocol (docs/protocol.md), in
// which a supervisor (the parent agent) answers a research question by
// delegating to researcher subagents working in parallel:
//
//   - The supervisor reasons, streams its plan, publishes it as a PLAN
//     activity and a run state (STATE_SNAPSHOT), and spawns each researcher
//     through a delegate_research tool call (SUBAGENT_STARTED names the call
//     and its message as parentToolCallId and parentMessageId).
//   - The researchers' events interleave: steps, reasoning, streamed
//     messages, web_search tool calls with streamed arguments and results,
//     and attributed STATE_DELTA progress on the one run-scoped state.
//   - Some researchers hand their notes to a summarizer subagent of their own
//     (parentSubagentRunId names the researcher).
//   - One researcher fails (SUBAGENT_ERROR) when its source is down; the
//     supervisor carries on without it.
//   - One researcher needs approval to buy a report: it finishes suspended
//     (outcome suspended, with the id of its interrupt), and the run finishes
//     with an interrupt outcome carrying that interrupt, attributed to it.
//   - Every other invocation finishes; the supervisor streams its report.
//
// The events are fresh on every call and carry timestamps from a fixed clock.
// SwarmResumeEvents gives the run that continues the suspended researcher.
func SwarmEvents(cfg *SwarmConfig) []event.Event {
	return newSwarm(cfg).build()
}

// SwarmResumeEvents returns the run that continues the demo swarm of
// SwarmEvents(cfg) once its approval interrupt is answered: the suspended
// researcher is started again under the same id (a continuation), buys the
// report or not as approved says, and finishes; the supervisor completes its
// report and the run finishes with success. Its ids do not collide with the
// first run's, so both runs fold into one view without a violation. Its run
// id is cfg.RunID followed by "-resumed" (default "run-demo-resumed").
func SwarmResumeEvents(cfg *SwarmConfig, approved bool) []event.Event {
	g := newSwarm(cfg)
	g.build()
	g.cfg.RunID += "-resumed"
	entry := event.ResumeEntry{InterruptID: g.suspended.interrupt.ID, Status: event.ResumeResolved,
		Payload: mustJSON(map[string]any{"approved": approved})}
	return g.resume(approved, []event.ResumeEntry{entry})
}

// newSwarm returns a generator for cfg, with the defaults filled in.
func newSwarm(cfg *SwarmConfig) *swarmGen {
	var c SwarmConfig
	if cfg != nil {
		c = *cfg
	}
	g := &swarmGen{rng: rand.New(rand.NewPCG(uint64(c.Seed), 0x5eed5eed5eed5eed))}
	if c.Researchers == 0 {
		c.Researchers = 3 + g.rng.IntN(6)
	}
	c.Researchers = max(c.Researchers, 3)
	if c.Rounds <= 0 {
		c.Rounds = 2
	}
	if c.ThreadID == "" {
		c.ThreadID = "thread-demo"
	}
	if c.RunID == "" {
		c.RunID = "run-demo"
	}
	g.cfg = c
	g.clock = swarmEpoch
	return g
}

// swarmEpoch is the first event's timestamp: 2026-01-01T10:00:00Z in ms.
const swarmEpoch = 1767261600000

// Roles of a researcher.
const (
	roleFinish = iota
	roleFail
	roleSuspend
)

type swarmGen struct {
	rng   *rand.Rand
	cfg   SwarmConfig
	clock int64
	ids   map[string]bool
	n     map[string]int // per id prefix
	// idSuffix ends every id g.id makes: "" in the first run and its
	// resumption, the run id in a follow-up, so that runs never collide.
	idSuffix string
	out      []event.Event

	// What the resumed run needs from the first.
	suspended *researcher
	reportMsg string
}

// swarmItem is one entry of an actor's queue: an event to emit (or none) once
// ready says so, and what to do after emitting it.
type swarmItem struct {
	ev    event.Event
	ready func() bool
	then  func()
	slow  bool // takes a while (a tool's result)
}

// swarmActor is one producer: the supervisor or an invocation. Its items
// come out in order, interleaved with the other actors' by the scheduler.
type swarmActor struct {
	queue  []swarmItem
	active bool
}

func (a *swarmActor) done() bool { return a.active && len(a.queue) == 0 }

// swarmLane appends the events of one owner (tag nil: the parent agent) to
// an actor's queue. The supervisor's reaction to a researcher's end goes on
// that researcher's queue, so that it comes after it.
type swarmLane struct {
	g   *swarmGen
	a   *swarmActor
	tag *string
}

func (l swarmLane) attr() event.Attribution {
	if l.tag == nil {
		return event.Attribution{}
	}
	return event.By(*l.tag)
}

type researcher struct {
	actor     *swarmActor
	id        string
	index     int
	topic     swarmTopic
	title     string
	role      int
	summary   string      // what the supervisor gets back
	summ      *swarmActor // its summarizer, if it has one
	summID    string
	sources   int
	callID    string          // the supervisor's delegate_research call
	parentMsg string          // the supervisor's message holding callID
	interrupt event.Interrupt // roleSuspend: the interrupt it raised
}

func (g *swarmGen) build() []event.Event {
	c := g.cfg
	g.ids = map[string]bool{}
	g.n = map[string]int{}

	rs := make([]*researcher, c.Researchers)
	for i := range rs {
		t := swarmTopics[i%len(swarmTopics)]
		title := t.title
		if k := i / len(swarmTopics); k > 0 {
			title = fmt.Sprintf("%s (part %d)", t.title, k+1)
		}
		id := g.subagentID()
		rs[i] = &researcher{
			actor: &swarmActor{},
			id:    id, index: i, topic: t, title: title,
		}
	}
	fail := g.rng.IntN(len(rs))
	suspend := (fail + 1 + g.rng.IntN(len(rs)-1)) % len(rs)
	rs[fail].role = roleFail
	rs[suspend].role = roleSuspend
	g.suspended = rs[suspend]
	first := true
	for _, r := range rs {
		if r.role == roleFinish && (first || g.rng.IntN(2) == 0) {
			r.summ, r.summID = &swarmActor{}, g.subagentID()
			first = false
		}
	}

	sup := swarmLane{g: g, a: &swarmActor{active: true}}
	actors := []*swarmActor{sup.a}
	for _, r := range rs {
		actors = append(actors, r.actor)
		if r.summ != nil {
			actors = append(actors, r.summ)
		}
	}
	g.delegate(sup, rs)
	for _, r := range rs {
		g.researcher(r)
	}
	g.synthesize(sup, rs)
	return g.schedule(actors)
}

// schedule emits the actors' queues, picking a random ready actor for every
// item, so the invocations' events interleave arbitrarily.
func (g *swarmGen) schedule(actors []*swarmActor) []event.Event {
	var ready []*swarmActor
	for {
		ready = ready[:0]
		for _, a := range actors {
			if a.active && len(a.queue) > 0 && (a.queue[0].ready == nil || a.queue[0].ready()) {
				ready = append(ready, a)
			}
		}
		if len(ready) == 0 {
			break
		}
		a := ready[g.rng.IntN(len(ready))]
		it := a.queue[0]
		a.queue = a.queue[1:]
		if it.ev != nil {
			if it.slow {
				g.clock += 400 + g.rng.Int64N(2100)
			} else {
				g.clock += 15 + g.rng.Int64N(105)
			}
			ts := g.clock
			it.ev.Common().Timestamp = &ts
			g.out = append(g.out, it.ev)
		}
		if it.then != nil {
			it.then()
		}
	}
	for _, a := range actors {
		if len(a.queue) > 0 {
			panic("agenttest: the swarm's schedule is stuck: an actor waits for something that never happens")
		}
	}
	return g.out
}

// delegate fills the supervisor's queue up to the start of the last
// researcher.
func (g *swarmGen) delegate(sup swarmLane, rs []*researcher) {
	c := g.cfg
	question := mustJSON(swarmQuestion)
	sup.emit(&event.RunStarted{
		ThreadID: c.ThreadID, RunID: c.RunID, ProtocolVersion: event.Ptr("1.0"),
		Input: &event.RunAgentInput{
			ThreadID: c.ThreadID, RunID: c.RunID,
			Messages: []event.Message{{ID: "user-1", Role: event.RoleUser, Content: question}},
		},
	})
	sup.emit(&event.StateSnapshot{Snapshot: mustJSON(map[string]any{
		"question":    swarmQuestion,
		"phase":       "planning",
		"researchers": map[string]any{},
		"report":      nil,
	})})
	sup.emit(&event.StepStarted{StepName: "plan"})
	sup.reasoning(swarmPlanReasoning)
	var plan strings.Builder
	plan.WriteString(swarmPlanIntro)
	tasks := make([]map[string]any, len(rs))
	for i, r := range rs {
		fmt.Fprintf(&plan, "\n%d. %s", i+1, r.title)
		tasks[i] = map[string]any{"topic": r.title, "status": "pending", "assignee": r.id}
	}
	planMsg := sup.text(plan.String())
	sup.emit(&event.ActivitySnapshot{MessageID: "plan", ActivityType: "PLAN", Content: mustJSON(map[string]any{
		"title": "Research plan", "tasks": tasks,
	})})
	sup.emit(&event.StepFinished{StepName: "plan"})
	sup.emit(&event.StepStarted{StepName: "delegate"})
	sup.patch(op("replace", "/phase", "researching"))

	for _, r := range rs {
		r.parentMsg = planMsg
		r.callID = sup.toolCall("delegate_research", planMsg, map[string]any{"topic": r.title, "brief": r.topic.brief})
		sup.patch(op("add", "/researchers/"+r.id, map[string]any{
			"name": "researcher", "topic": r.title, "status": "starting", "progress": 0, "sources": 0,
		}))
		sup.planStatus(r.index, "running")
		act := r.actor
		sup.push(swarmItem{ev: &event.SubagentStarted{
			ID: r.id, Name: "researcher", Description: event.Ptr("Researches: " + r.title),
			ParentToolCallID: event.Ptr(r.callID), ParentMessageID: event.Ptr(planMsg),
		}, then: func() { act.active = true }})
	}
}

// synthesize fills the rest of the supervisor's queue: once every researcher
// is done, the report and the end of the run.
func (g *swarmGen) synthesize(sup swarmLane, rs []*researcher) {
	allDone := func() bool {
		for _, r := range rs {
			if !r.actor.done() {
				return false
			}
		}
		return true
	}
	sup.push(swarmItem{ev: &event.StepFinished{StepName: "delegate"}, ready: allDone})
	sup.emit(&event.StepStarted{StepName: "synthesize"})
	sup.patch(op("replace", "/phase", "writing"))

	var report strings.Builder
	report.WriteString(swarmReportIntro)
	var interrupts []event.Interrupt
	for _, r := range rs {
		switch r.role {
		case roleFinish:
			fmt.Fprintf(&report, "- %s: %s\n", r.title, r.summary)
		case roleFail:
			fmt.Fprintf(&report, "- %s: no answer. The researcher could not reach its main source (HTTP 503); worth retrying later.\n", r.title)
		case roleSuspend:
			fmt.Fprintf(&report, "- %s: waiting for your approval to buy a paid report (EUR %d).\n", r.title, swarmSuspendPrice)
			interrupts = append(interrupts, r.interrupt)
		}
	}
	report.WriteString(strings.TrimPrefix(swarmReportOutro, "\n"))
	g.reportMsg = sup.text(report.String())
	sup.patch(
		op("replace", "/phase", "awaiting-approval"),
		op("replace", "/report", map[string]any{"messageId": g.reportMsg, "pendingApprovals": len(interrupts)}),
	)
	sup.emit(&event.StepFinished{StepName: "synthesize"})
	sup.emit(&event.RunFinished{ThreadID: g.cfg.ThreadID, RunID: g.cfg.RunID,
		Outcome: &event.RunFinishedOutcome{Type: event.OutcomeInterrupt, Interrupts: interrupts}})
}

// researcher fills r's queue (and its summarizer's), followed by the
// supervisor's handling of its end, which must come after it.
func (g *swarmGen) researcher(r *researcher) {
	a := swarmLane{g: g, a: r.actor, tag: &r.id}
	sup := swarmLane{g: g, a: r.actor} // the supervisor, after r's end
	step := "research: " + r.topic.slug
	a.emit(&event.StepStarted{Attribution: a.attr(), StepName: step})
	a.reasoning(r.topic.reasoning)
	a.patch(op("replace", "/researchers/"+r.id+"/status", "searching"))

	rounds := g.cfg.Rounds
	if r.role == roleFail {
		rounds = max(1, rounds/2)
	}
	for i := range rounds {
		s := r.topic.searches[i%len(r.topic.searches)]
		query, intro := s.query, s.intro
		if k := i / len(r.topic.searches); k > 0 {
			refine := swarmRefinements[(k-1)%len(swarmRefinements)]
			query += " " + refine
			intro = fmt.Sprintf("Another pass on this angle, narrowed to %q.", refine)
		}
		msg := a.text(intro)
		call := a.toolCall("web_search", msg, map[string]any{"query": query, "max_results": 5})
		a.result(call, string(mustJSON(s.results)))
		r.sources += len(s.results)
		a.patch(
			op("replace", "/researchers/"+r.id+"/progress", (i+1)*100/(rounds+1)),
			op("replace", "/researchers/"+r.id+"/sources", r.sources),
		)
	}

	switch r.role {
	case roleFail:
		msg := a.text(swarmFailIntro)
		call := a.toolCall("fetch_url", msg, map[string]any{"url": swarmFailURL, "timeout_s": 15})
		a.result(call, swarmFailResult)
		a.emit(&event.StepFinished{Attribution: a.attr(), StepName: step})
		a.emit(&event.SubagentError{ID: r.id, Message: swarmFailMessage, Code: event.Ptr(swarmFailCode)})
		// The supervisor takes note and carries on.
		sup.result(r.callID, "The researcher failed: "+swarmFailMessage+". Continuing without this track.")
		sup.patch(op("replace", "/researchers/"+r.id+"/status", "failed"))
		sup.planStatus(r.index, "failed")

	case roleSuspend:
		msg := a.text(swarmSuspendIntro)
		call := a.toolCall("purchase_report", msg, map[string]any{"title": swarmSuspendReport, "price_eur": swarmSuspendPrice})
		a.patch(op("replace", "/researchers/"+r.id+"/status", "awaiting-approval"))
		a.emit(&event.StepFinished{Attribution: a.attr(), StepName: step})
		interruptID := "approval-" + strings.TrimPrefix(r.id, "sa-")
		r.interrupt = event.Interrupt{
			ID: interruptID, Reason: "confirmation", Message: event.Ptr(swarmSuspendMessage), ToolCallID: event.Ptr(call),
			ResponseSchema: mustJSON(map[string]any{
				"type":       "object",
				"properties": map[string]any{"approved": map[string]any{"type": "boolean"}, "note": map[string]any{"type": "string"}},
				"required":   []string{"approved"},
			}),
			Subagent: event.Ptr(r.id),
		}
		a.emit(&event.SubagentFinished{ID: r.id, Outcome: &event.SubagentOutcome{
			Type: event.SubagentSuspended, InterruptIDs: []string{interruptID}}})
		sup.planStatus(r.index, "waiting-for-approval")

	default:
		r.summary = r.topic.summary
		if r.summ != nil {
			msg := a.text("Handing my notes to a summarizer so the supervisor gets a short answer.")
			call := a.toolCall("summarize", msg, map[string]any{"notes": r.topic.findings, "max_words": 40})
			s := r.summ
			a.push(swarmItem{ev: &event.SubagentStarted{
				ID: r.summID, Name: "summarizer", Description: event.Ptr("Condenses the notes on " + strings.ToLower(r.title[:1]) + r.title[1:]),
				ParentSubagentRunID: event.Ptr(r.id), ParentToolCallID: event.Ptr(call), ParentMessageID: event.Ptr(msg),
			}, then: func() { s.active = true }})
			g.summarizer(swarmLane{g: g, a: s, tag: &r.summID}, r)
			a.push(swarmItem{ev: &event.ToolCallResult{Attribution: a.attr(), MessageID: g.id("result"), ToolCallID: call,
				Content: mustJSON(r.summary)}, ready: s.done, slow: true})
		}
		a.text(r.topic.findings)
		a.patch(
			op("replace", "/researchers/"+r.id+"/status", "done"),
			op("replace", "/researchers/"+r.id+"/progress", 100),
		)
		a.emit(&event.StepFinished{Attribution: a.attr(), StepName: step})
		a.emit(&event.SubagentFinished{ID: r.id, Result: mustJSON(map[string]any{
			"topic": r.title, "summary": r.summary, "sources": r.sources,
		})})
		sup.result(r.callID, r.summary)
		sup.planStatus(r.index, "done")
	}
}

func (g *swarmGen) summarizer(s swarmLane, r *researcher) {
	step := "summarize: " + r.topic.slug
	s.emit(&event.StepStarted{Attribution: s.attr(), StepName: step})
	s.text(r.topic.summary)
	s.patch(op("add", "/researchers/"+r.id+"/summary", r.topic.summary))
	s.emit(&event.StepFinished{Attribution: s.attr(), StepName: step})
	s.emit(&event.SubagentFinished{ID: r.summID, Result: mustJSON(map[string]any{"summary": r.topic.summary})})
}

// resume returns the run continuing the suspended researcher, after build.
// resume is echoed in the run's RUN_STARTED.input.
func (g *swarmGen) resume(approved bool, resume []event.ResumeEntry) []event.Event {
	c, r := g.cfg, g.suspended
	g.out = nil
	g.clock += 4*60*1000 + g.rng.Int64N(60*1000) // the user takes a few minutes to answer

	sup := swarmLane{g: g, a: &swarmActor{active: true}}
	a := swarmLane{g: g, a: &swarmActor{}, tag: &r.id}
	sup.emit(&event.RunStarted{
		ThreadID: c.ThreadID, RunID: c.RunID, ProtocolVersion: event.Ptr("1.0"),
		Input: &event.RunAgentInput{ThreadID: c.ThreadID, RunID: c.RunID, Messages: []event.Message{}, Resume: resume},
	})
	sup.patch(op("replace", "/phase", "researching"))
	sup.planStatus(r.index, "running")
	act := a.a
	sup.push(swarmItem{ev: &event.SubagentStarted{
		ID: r.id, Name: "researcher", Description: event.Ptr("Researches: " + r.title),
		ParentToolCallID: event.Ptr(r.callID), ParentMessageID: event.Ptr(r.parentMsg),
	}, then: func() { act.active = true }})

	step := "research: " + r.topic.slug
	a.emit(&event.StepStarted{Attribution: a.attr(), StepName: step})
	var purchase, findings string
	if approved {
		purchase = fmt.Sprintf("Purchased %q for EUR %d; 62 pages downloaded.", swarmSuspendReport, swarmSuspendPrice)
		findings = "Thanks for the approval. The report confirms my earlier sources. " + r.topic.findings
		r.summary = r.topic.summary
	} else {
		purchase = "Purchase declined by the user; nothing was bought."
		findings = "Understood, no purchase. Working from free sources only, so treat this as less certain. " + r.topic.findings
		r.summary = "From free sources only: " + r.topic.summary
	}
	a.push(swarmItem{ev: &event.ToolCallResult{Attribution: a.attr(), MessageID: g.id("result"),
		ToolCallID: *r.interrupt.ToolCallID, Content: mustJSON(purchase)}, slow: true})
	a.text(findings)
	a.patch(
		op("replace", "/researchers/"+r.id+"/status", "done"),
		op("replace", "/researchers/"+r.id+"/progress", 100),
	)
	a.emit(&event.StepFinished{Attribution: a.attr(), StepName: step})
	a.emit(&event.SubagentFinished{ID: r.id, Result: mustJSON(map[string]any{
		"topic": r.title, "summary": r.summary, "sources": r.sources + 1,
	})})

	sup.push(swarmItem{ev: &event.ToolCallResult{MessageID: g.id("result"), ToolCallID: r.callID,
		Content: mustJSON(r.summary)}, ready: a.a.done, slow: true})
	sup.planStatus(r.index, "done")
	sup.emit(&event.StepStarted{StepName: "synthesize"})
	sup.patch(op("replace", "/phase", "writing"))
	update := sup.text(fmt.Sprintf("Update: the last track is in.\n- %s: %s\n\nThis completes the picture, and the recommendation stands.",
		r.title, r.summary))
	sup.patch(
		op("replace", "/phase", "done"),
		op("replace", "/report", map[string]any{"messageId": g.reportMsg, "updateMessageId": update, "pendingApprovals": 0}),
	)
	sup.emit(&event.StepFinished{StepName: "synthesize"})
	sup.emit(&event.RunFinished{ThreadID: c.ThreadID, RunID: c.RunID,
		Result: mustJSON(map[string]any{"report": g.reportMsg, "update": update})})
	return g.schedule([]*swarmActor{sup.a, a.a})
}

// ---------------------------------------------------------------------------
// Building blocks

func (l swarmLane) push(it swarmItem) { l.a.queue = append(l.a.queue, it) }

func (l swarmLane) emit(e event.Event) { l.push(swarmItem{ev: e}) }

// text streams an assistant message and returns its id.
func (l swarmLane) text(s string) string {
	id := l.g.id("msg")
	l.emit(&event.TextMessageStart{Attribution: l.attr(), MessageID: id, Role: event.Ptr(event.RoleAssistant)})
	for _, d := range l.g.words(s) {
		l.emit(&event.TextMessageContent{Attribution: l.attr(), MessageID: id, Delta: d})
	}
	l.emit(&event.TextMessageEnd{Attribution: l.attr(), MessageID: id})
	return id
}

// reasoning streams a reasoning span holding one reasoning message.
func (l swarmLane) reasoning(s string) {
	span, msg := l.g.id("think"), l.g.id("thought")
	l.emit(&event.ReasoningStart{Attribution: l.attr(), MessageID: span})
	l.emit(&event.ReasoningMessageStart{Attribution: l.attr(), MessageID: msg, Role: event.RoleReasoning})
	for _, d := range l.g.words(s) {
		l.emit(&event.ReasoningMessageContent{Attribution: l.attr(), MessageID: msg, Delta: d})
	}
	l.emit(&event.ReasoningMessageEnd{Attribution: l.attr(), MessageID: msg})
	l.emit(&event.ReasoningEnd{Attribution: l.attr(), MessageID: span})
}

// toolCall streams a tool call held by message parent and returns its id.
func (l swarmLane) toolCall(name, parent string, args any) string {
	id := l.g.id("call")
	l.emit(&event.ToolCallStart{Attribution: l.attr(), ToolCallID: id, ToolCallName: name, ParentMessageID: event.Ptr(parent)})
	for _, d := range l.g.fragments(string(mustJSON(args))) {
		l.emit(&event.ToolCallArgs{Attribution: l.attr(), ToolCallID: id, Delta: d})
	}
	l.emit(&event.ToolCallEnd{Attribution: l.attr(), ToolCallID: id})
	return id
}

// result answers tool call call with text content.
func (l swarmLane) result(call, content string) {
	l.push(swarmItem{ev: &event.ToolCallResult{Attribution: l.attr(), MessageID: l.g.id("result"), ToolCallID: call,
		Content: mustJSON(content)}, slow: true})
}

// planStatus sets the status of task i of the supervisor's PLAN activity.
func (l swarmLane) planStatus(i int, status string) {
	l.emit(&event.ActivityDelta{Attribution: l.attr(), MessageID: "plan", ActivityType: "PLAN",
		Patch: mustJSON([]patchOp{op("replace", fmt.Sprintf("/tasks/%d/status", i), status)})})
}

// patch updates the run state.
func (l swarmLane) patch(ops ...patchOp) {
	l.emit(&event.StateDelta{Attribution: l.attr(), Delta: mustJSON(ops)})
}

// patchOp is one RFC 6902 operation.
type patchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

func op(kind, path string, value any) patchOp {
	return patchOp{Op: kind, Path: path, Value: mustJSON(value)}
}

// id returns the next id with the given prefix: "msg-1", "msg-2", ...
// (followed by g.idSuffix).
func (g *swarmGen) id(prefix string) string {
	g.n[prefix]++
	return fmt.Sprintf("%s-%d%s", prefix, g.n[prefix], g.idSuffix)
}

// subagentID returns a fresh opaque invocation id.
func (g *swarmGen) subagentID() string {
	for {
		id := fmt.Sprintf("sa-%08x", g.rng.Uint32())
		if !g.ids[id] {
			g.ids[id] = true
			return id
		}
	}
}

// words cuts s into deltas of one to three words, as a model streams them;
// the deltas concatenate to s.
func (g *swarmGen) words(s string) []string {
	var out []string
	start, n, want := 0, 0, 1+g.rng.IntN(3)
	inWord := false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if !space && !inWord {
			if n == want {
				out = append(out, s[start:i])
				start, n, want = i, 0, 1+g.rng.IntN(3)
			}
			n++
		}
		inWord = !space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// fragments cuts s into pieces of 4 to 16 bytes, on rune boundaries, as
// tool-call arguments stream; the pieces concatenate to s.
func (g *swarmGen) fragments(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(len(s), 4+g.rng.IntN(13))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// mustJSON marshals v, which only a programming error can make fail.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("agenttest: swarm: " + err.Error())
	}
	return b
}
