package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
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

// A run's input record holds only what the journal's view of the thread
// does not: here the new message, with the history it continues named by
// its length and last id, and the state left out as unchanged.
func ExampleEncodeInputRecord() {
	first := &event.RunAgentInput{ThreadID: "t1", RunID: "r1", Messages: []event.Message{
		{ID: "u1", Role: event.RoleUser, Content: json.RawMessage(`"hello"`)},
	}}
	b := reducer.NewBuilder(view.New())
	_ = b.Input(first)
	journaled := b.End(nil) // the view the journal folds into so far

	next := client.NextInput(journaled, &client.InputOptions{RunID: "r2", Messages: []event.Message{
		{ID: "u2", Role: event.RoleUser, Content: json.RawMessage(`"and then?"`)},
	}})
	rec, _ := client.EncodeInputRecord(journaled, next)
	fmt.Println(string(rec))

	in, _ := client.DecodeInputRecord(journaled, rec)
	fmt.Println(len(in.Messages), "messages,", "state", string(in.State))
	// Output:
	// {"threadId":"t1","runId":"r2","protocolVersion":"1.0","tools":[],"context":[],"forwardedProps":{},"messages":[{"id":"u2","role":"user","content":"and then?"}],"agviewBase":1,"agviewBaseId":"u1","agviewStateSame":true}
	// 2 messages, state {}
}
