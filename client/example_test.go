package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
)

// Run an agent and read the final view: here the agent is agenttest's demo
// swarm, served on loopback.
func Example() {
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer srv.Close()

	c := client.New(srv.URL())
	defer c.Close()
	v, err := c.Run(context.Background(), &event.RunAgentInput{ThreadID: "thread-1"})
	if err != nil {
		fmt.Println("run failed:", err)
		return
	}
	run, _ := v.LastRun()
	fmt.Println("run:", run.Status)
	fmt.Println("violations:", v.ViolationCount())
	// Output:
	// run: interrupted
	// violations: 0
}

// Continue a conversation: the next run's input carries the history (with
// each message's subagentRunId), the state, and answers to the pending
// interrupts.
func ExampleNextInput() {
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()
	v, _ := c.Run(context.Background(), nil)

	next := client.NextInput(v, &client.InputOptions{
		Answer: func(it event.Interrupt) *event.ResumeEntry {
			return &event.ResumeEntry{Status: event.ResumeResolved}
		},
	})
	fmt.Println("resume entries:", len(next.Resume) == len(v.PendingInterrupts()))
	// Output:
	// resume entries: true
}

// The README's embedding example: run an agent, then walk the invocation
// tree, one pane per subagent.
func Example_embedding() {
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1, Researchers: 3}), nil)
	defer srv.Close()
	agentURL := srv.URL()

	c := client.New(agentURL)
	defer c.Close()
	v, err := c.Run(context.Background(), &event.RunAgentInput{ThreadID: "thread-1"})
	if err != nil {
		log.Fatal(err)
	}
	for inv := range v.Invocations() {
		fmt.Printf("%s %s: %s\n", inv.Name(), inv.ID(), inv.Status()) // one pane per subagent
	}
	fmt.Println("state:", string(v.State()) != "{}", "messages:", v.MessageCount() > 0)
	// Output:
	// researcher sa-51a7afbd: finished
	// researcher sa-0dd15648: errored
	// researcher sa-d323eef0: suspended
	// summarizer sa-b4908297: finished
	// state: true messages: true
}
