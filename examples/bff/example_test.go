package main

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/agview/agview/agenttest"
)

// A service in front of the demo swarm: start a run, wait for its end, and
// read the panes a browser would draw.
func ExampleNewServer() {
	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer agent.Close()
	svc, err := NewServer(agent.URL(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer svc.Close()
	ts := httptest.NewServer(svc) // browsers open ts.URL + info.Page
	defer ts.Close()

	info, err := svc.Start(context.Background(), "Can our city electrify its buses?")
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := svc.Wait(context.Background(), info.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	for inv := range v.Invocations() {
		p := PaneOf(inv, v)
		fmt.Printf("%s %s in %s: %d items\n", p.Name, p.Status, *p.Parent, len(p.Items))
	}
	run, _ := v.LastRun()
	fmt.Println("run:", run.Status, "awaiting", len(v.PendingInterrupts()), "answer")
	// Output:
	// researcher suspended in root: 7 items
	// researcher finished in root: 8 items
	// researcher finished in root: 6 items
	// researcher errored in root: 5 items
	// summarizer finished in sub:sa-d323eef0: 1 items
	// run: interrupted awaiting 1 answer
}
