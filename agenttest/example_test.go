package agenttest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
)

// A scripted agent, run over SSE; the server records what the client sent.
func ExampleNewServer() {
	srv := agenttest.NewServer(agenttest.Events(
		&event.RunStarted{ThreadID: "t1", RunID: "r1"},
		&event.TextMessageStart{MessageID: "m1", Role: event.Ptr(event.RoleAssistant)},
		&event.TextMessageContent{MessageID: "m1", Delta: "Hi!"},
		&event.TextMessageEnd{MessageID: "m1"},
		&event.RunFinished{ThreadID: "t1", RunID: "r1"},
	), nil)
	defer srv.Close()

	input := &event.RunAgentInput{ThreadID: "t1", RunID: "r1"}
	for ev, err := range transport.NewSSE(srv.URL(), nil).Run(context.Background(), input) {
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		if c, ok := ev.(*event.TextMessageContent); ok {
			fmt.Println("text:", c.Delta)
		}
	}
	fmt.Println("inputs received:", len(srv.Inputs()), srv.Inputs()[0].RunID)
	// Output:
	// text: Hi!
	// inputs received: 1 r1
}

// Faults let a test check how a client copes with a broken agent.
func ExampleCutAfter() {
	srv := agenttest.NewServer(agenttest.Events(
		&event.RunStarted{ThreadID: "t1", RunID: "r1"},
		&event.StepStarted{StepName: "plan"},
		&event.StepFinished{StepName: "plan"},
		&event.RunFinished{ThreadID: "t1", RunID: "r1"},
	), &agenttest.Options{Fault: agenttest.CutAfter(2)})
	defer srv.Close()

	for ev, err := range transport.NewWebSocket(srv.WSURL(), nil).Run(context.Background(), nil) {
		var te *transport.Error
		if errors.As(err, &te) {
			fmt.Printf("cut at frame %d: %v\n", te.Index, te.Kind)
			break
		}
		fmt.Println(ev.EventType())
	}
	// Output:
	// RUN_STARTED
	// STEP_STARTED
	// cut at frame 2: read failed
}
