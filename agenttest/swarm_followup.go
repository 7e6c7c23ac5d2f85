package agenttest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agview/agview/event"
)

// SwarmInput returns the input a client starts the demo swarm of cfg with:
// its thread and run ids and the user's research question as the first
// message of the history (the swarm's RUN_STARTED echoes that message). cfg
// may be nil.
func SwarmInput(cfg *SwarmConfig) *event.RunAgentInput {
	c := newSwarm(cfg).cfg
	return &event.RunAgentInput{
		ThreadID: c.ThreadID, RunID: c.RunID,
		Messages: []event.Message{swarmQuestionMessage()},
	}
}

// swarmQuestionMessage is the user's question the swarm researches.
func swarmQuestionMessage() event.Message {
	return event.Message{ID: "user-1", Role: event.RoleUser, Content: mustJSON(swarmQuestion)}
}

// SwarmFollowUpEvents returns the run that answers a follow-up question in
// the demo swarm's thread: input is the next run's input (its history holds
// the swarm's runs, and its last message is the user's question). The
// supervisor reasons, streams its answer, notes the question in the run
// state and reports the tokens it read and wrote (about four bytes a token); every id it mints ends with the input's run id, so that any number
// of follow-ups (each with a run id of its own) fold into one view. When the history shows the approval
// interrupt still unanswered (the purchase has no result), the run ends with
// RUN_ERROR instead, as the protocol asks of an agent whose thread has a
// pending interrupt the input does not resume. It returns nil when input is
// not a follow-up (no report in its history, or no user message last).
func SwarmFollowUpEvents(cfg *SwarmConfig, input *event.RunAgentInput) []event.Event {
	var c SwarmConfig
	if cfg != nil {
		c = *cfg
	}
	c = c.withInputIDs(input)
	g := newSwarm(&c)
	g.build()
	if !g.isFollowUp(input) {
		return nil
	}
	return g.followUp(input)
}

// isFollowUp reports whether input continues the swarm's thread with a new
// user message: its history holds the swarm's report and ends with a user
// message. g must have been built.
func (g *swarmGen) isFollowUp(input *event.RunAgentInput) bool {
	if input == nil || len(input.Messages) == 0 || input.Messages[len(input.Messages)-1].Role != event.RoleUser {
		return false
	}
	for _, m := range input.Messages {
		if m.ID == g.reportMsg {
			return true
		}
	}
	return false
}

// followUp returns the run answering the last message of input, after build.
func (g *swarmGen) followUp(input *event.RunAgentInput) []event.Event {
	c := g.cfg
	g.out = nil
	g.idSuffix = "-" + c.RunID
	if input.RunID != "" {
		g.idSuffix = "-" + input.RunID // unique even when cfg fixes the run id
	}
	g.clock += 60*1000 + g.rng.Int64N(60*1000) // the user reads the report first
	question := input.Messages[len(input.Messages)-1]
	sup := swarmLane{g: g, a: &swarmActor{active: true}}
	sup.emit(&event.RunStarted{
		ThreadID: c.ThreadID, RunID: c.RunID, ProtocolVersion: event.Ptr("1.0"),
		Input: &event.RunAgentInput{ThreadID: c.ThreadID, RunID: c.RunID, Messages: input.Messages},
	})

	answered := false
	for _, m := range input.Messages {
		if m.Role == event.RoleTool && m.ToolCallID != nil && *m.ToolCallID == *g.suspended.interrupt.ToolCallID {
			answered = true
		}
	}
	if !answered {
		sup.emit(&event.RunError{Message: fmt.Sprintf("thread has 1 pending interrupt not addressed by resume: %s", g.suspended.interrupt.ID),
			Code: event.Ptr("pending_interrupts")})
		return g.schedule([]*swarmActor{sup.a})
	}

	text := strings.Join(strings.Fields(contentString(question)), " ")
	answer := fmt.Sprintf(swarmFollowUpReply, text)
	sup.emit(&event.StepStarted{StepName: "follow-up"})
	sup.reasoning(swarmFollowUpReasoning)
	reply := sup.text(answer)
	sup.patch(op("add", "/lastQuestion", text))
	sup.emit(&event.StepFinished{StepName: "follow-up"})
	sup.emit(&event.RunFinished{ThreadID: c.ThreadID, RunID: c.RunID,
		Result: mustJSON(map[string]any{"answer": reply}),
		Usage:  []event.TokenUsage{followUpUsage(input, answer)}})
	return g.schedule([]*swarmActor{sup.a})
}

// followUpUsage is the token usage a follow-up run reports, as a model
// would: the history it read and what it wrote, at about four bytes a
// token.
func followUpUsage(input *event.RunAgentInput, answer string) event.TokenUsage {
	var read int
	for _, m := range input.Messages {
		read += len(m.Content)
	}
	in := int64(read / 4)
	reasoning := int64(len(swarmFollowUpReasoning) / 4)
	out := reasoning + int64(len(answer)/4)
	return event.TokenUsage{
		Provider: event.Ptr("agenttest"), Model: event.Ptr("demo-swarm"),
		InputTokens: &in, OutputTokens: &out, ReasoningTokens: &reasoning, TotalTokens: event.Ptr(in + out),
	}
}

// contentString returns the text of a message's content: a string, or the
// text parts of an array of parts.
func contentString(m event.Message) string {
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
