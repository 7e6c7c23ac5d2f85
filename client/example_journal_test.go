package client_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
)

// Record a run in the embedded file journal, then attach to its thread as
// another process (or, on NATS, another machine) would: the attached view is
// the recorder's.
func ExampleAttach() {
	dir, err := os.MkdirTemp("", "threads")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	j, err := journal.Open(context.Background(), "file:"+dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer j.Close()

	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer srv.Close()
	c := client.New(srv.URL(), client.WithJournal(j, func(err error) { log.Print(err) }))
	defer c.Close()
	mine, _ := c.Run(context.Background(), &event.RunAgentInput{ThreadID: "thread-1"})

	a, err := client.Attach(context.Background(), j, "thread-1", &client.AttachOptions{UntilIdle: true})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Store().Close()
	<-a.Done() // UntilIdle: no run is active on the thread any more
	theirs := a.Store().View()
	run, _ := theirs.LastRun()
	fmt.Println("run:", run.Status)
	fmt.Println("same events:", theirs.EventCount() == mine.EventCount())
	// Output:
	// run: interrupted
	// same events: true
}
