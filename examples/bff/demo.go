package main

import (
	"encoding/json"
	"iter"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/threads"
)

// demoAgent is the agent the service starts when it is given none:
// agenttest's demo swarm, made to answer the question it is asked. The swarm
// echoes a built-in question in RUN_STARTED.input, which the thread's view
// would add to its history as a second user message (docs/protocol.md G15: an
// echoed message the client does not hold is added), and puts it in its
// state; demoAgent echoes the input it was sent instead (as CopilotKit's
// runtime does), and puts the input's last user message in the state's
// "question", so that the page shows only what was typed.
func demoAgent(cfg *agenttest.SwarmConfig) agenttest.Script {
	swarm := agenttest.Swarm(cfg)
	return agenttest.ScriptFunc(func(input *event.RunAgentInput) iter.Seq[json.RawMessage] {
		return func(yield func(json.RawMessage) bool) {
			for f := range swarm.Frames(input) {
				if !yield(echoInput(f, input)) {
					return
				}
			}
		}
	})
}

// echoInput returns frame with the input in place of RUN_STARTED's, and the
// input's last user message as a STATE_SNAPSHOT's "question"; any other
// frame as it is.
func echoInput(frame json.RawMessage, input *event.RunAgentInput) json.RawMessage {
	if input == nil {
		return frame
	}
	var ev map[string]json.RawMessage
	if json.Unmarshal(frame, &ev) != nil {
		return frame
	}
	var typ event.Type
	_ = json.Unmarshal(ev["type"], &typ)
	switch typ {
	case event.TypeRunStarted:
		in, err := json.Marshal(input)
		if err != nil {
			return frame
		}
		ev["input"] = in
	case event.TypeStateSnapshot:
		q, ok := lastUserText(input)
		if !ok {
			return frame
		}
		var snap map[string]json.RawMessage
		if json.Unmarshal(ev["snapshot"], &snap) != nil || snap["question"] == nil {
			return frame
		}
		snap["question"], _ = json.Marshal(q) // a string always encodes
		ev["snapshot"], _ = json.Marshal(snap)
	default:
		return frame
	}
	out, err := json.Marshal(ev)
	if err != nil {
		return frame
	}
	return out
}

// lastUserText returns the text of the input's last user message.
func lastUserText(input *event.RunAgentInput) (string, bool) {
	for i := len(input.Messages) - 1; i >= 0; i-- {
		if m := input.Messages[i]; m.Role == event.RoleUser {
			return threads.ContentText(m.Content), true
		}
	}
	return "", false
}
