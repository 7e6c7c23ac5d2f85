package client_test

import (
	"context"
	"fmt"

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
