package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
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

// The README's embedding example, whole: a local agent (agenttest's demo
// swarm on loopback; point client.New at your agent's URL instead), a
// subscriber watching the run live, then the invocation tree of the final
// view, one pane per subagent.
func Example_embedding() {
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1, Researchers: 3}), nil)
	defer srv.Close()
	ctx := context.Background()

	c := client.New(srv.URL()) // SSE; client.WithWebSocket() for WebSocket
	defer c.Close()
	var seen *view.View
	unsubscribe := c.Store().Subscribe(func(v *view.View) {
		// Live: the latest view, never blocking the stream (a slow
		// subscriber skips views). v.ChangedSince(seen) says what to redraw.
		seen = v
	})
	defer unsubscribe()

	v, err := c.Run(ctx, &event.RunAgentInput{ThreadID: "thread-1"})
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Store().Settle(ctx); err != nil { // the subscriber has seen the last view
		log.Fatal(err)
	}
	fmt.Println("the subscriber saw the final view:", seen == v)
	fmt.Println("parent agent:", v.Root().Status()) // Invocations leaves the parent out: Root is it
	for inv := range v.Invocations() {
		fmt.Printf("%s %s: %s\n", inv.Name(), inv.ID(), inv.Status()) // one pane per subagent
	}
	// Output:
	// the subscriber saw the final view: true
	// parent agent: suspended
	// researcher sa-51a7afbd: finished
	// researcher sa-0dd15648: errored
	// researcher sa-d323eef0: suspended
	// summarizer sa-b4908297: finished
}

// The README's conversation example: ask, read the answer, answer the
// interrupt the agent raised and continue the same thread with a follow-up.
// The client holds the thread: each run starts from the history it sends,
// the user's own messages included.
func Example_conversation() {
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1, Researchers: 3}), nil)
	defer srv.Close()
	ctx := context.Background()

	c := client.New(srv.URL())
	defer c.Close()
	v, err := c.Run(ctx, &event.RunAgentInput{
		ThreadID: "thread-1",
		Messages: []event.Message{client.UserMessage("Can our 320 buses run on batteries by 2030?")},
	})
	if err != nil {
		log.Fatal(err)
	}
	first := v.MessageList()[0]
	fmt.Printf("%s: %s\n", first.Role, first.Content)
	fmt.Println("answer:", excerpt(lastAnswer(v), 30))
	for _, it := range v.PendingInterrupts() {
		fmt.Printf("interrupt: %s\n", *it.Message)
	}

	// Continuing without answering the interrupt is refused; nothing is sent.
	if _, err := c.Continue(ctx, nil); err != nil {
		var ie *client.InterruptError
		fmt.Println("refused:", errors.As(err, &ie))
	}

	v, err = c.Continue(ctx, &client.InputOptions{
		Messages: []event.Message{client.UserMessage("Approved, go ahead.")},
		Answer:   client.ResolveAll(json.RawMessage(`{"approved":true}`)),
	})
	if err != nil {
		log.Fatal(err)
	}
	run, _ := v.LastRun()
	fmt.Println("runs:", len(v.Runs()), "last:", run.Status, "thread:", v.Thread())
	fmt.Println("answer:", excerpt(lastAnswer(v), 30))
	// Output:
	// user: "Can our 320 buses run on batteries by 2030?"
	// answer: Short answer: yes, it is reali…
	// interrupt: Approve buying the "European Battery Bus Market Outlook 2025" report for EUR 480 to complete the research track?
	// refused: true
	// runs: 2 last: finished thread: thread-1
	// answer: Update: the last track is in. …
}

// lastAnswer returns the text of the parent agent's last assistant message.
func lastAnswer(v *view.View) string {
	var text string
	for m := range v.Messages() {
		var s string
		if m.Role == event.RoleAssistant && m.Subagent == nil && json.Unmarshal(m.Content, &s) == nil && s != "" {
			text = s
		}
	}
	return text
}

func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// Check an answer before sending it: a next run must answer every pending
// interrupt, and may only cancel an expired one.
func ExampleCheckResume() {
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()
	v, _ := c.Run(context.Background(), nil)

	next := client.NextInput(v, nil) // no answer
	var ie *client.InterruptError
	if errors.As(client.CheckResume(v, next, time.Now()), &ie) {
		fmt.Println("unanswered:", len(ie.Unanswered))
	}
	next = client.NextInput(v, &client.InputOptions{Answer: client.CancelAll})
	fmt.Println("cancelled:", client.CheckResume(v, next, time.Now()) == nil)
	// Output:
	// unanswered: 1
	// cancelled: true
}
