package tui_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/store"
	"github.com/agview/agview/tui"
	"github.com/agview/agview/view"
)

// Run shows an agent's run live on the terminal until the user presses q.
// Here the agent is the demo swarm of package agenttest.
func ExampleRun() {
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), &agenttest.Options{Delay: 5 * time.Millisecond})
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()

	ctx := context.Background()
	go c.Run(ctx, &event.RunAgentInput{ThreadID: "t1", RunID: "r1"})
	if err := tui.Run(ctx, c.Store(), &tui.Options{Title: srv.URL()}); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}

// A Conversation lets the user continue the thread from the terminal: the
// next message, the answers to the interrupts a run left pending. Here each
// turn is client.Continue (the next input NextInput builds from the
// client's view: history, state, message, answers) on the same client, so
// the model shows it from the same store.
func ExampleConversationFunc() {
	srv := agenttest.NewServer(agenttest.Swarm(nil), nil)
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()

	conv := tui.ConversationFunc(func(ctx context.Context, t tui.Turn) error {
		opts := &client.InputOptions{Answer: t.Answer}
		if t.Message != "" {
			opts.Messages = []event.Message{client.UserMessage(t.Message)}
		}
		_, err := c.Continue(ctx, opts)
		return err
	})

	ctx := context.Background()
	go c.Run(ctx, agenttest.SwarmInput(nil))
	if err := tui.Run(ctx, c.Store(), &tui.Options{Title: "demo", Conversation: conv}); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}

// Summary is the line Run leaves in the terminal when it ends.
func ExampleSummary() {
	v := view.New()
	for _, e := range []event.Event{
		&event.RunStarted{ThreadID: "t1", RunID: "r1"},
		&event.SubagentStarted{ID: "sa-1", Name: "researcher"},
		&event.SubagentFinished{ID: "sa-1"},
		&event.RunFinished{ThreadID: "t1", RunID: "r1"},
	} {
		v, _ = reducer.Fold(v, e)
	}
	fmt.Println(tui.Summary(v))
	// Output:
	// run r1 finished · 1 subagent: 1 finished · 4 events, none rejected
}

// New returns the bubbletea model, to embed in a program of one's own or to
// drive by hand: here with Frame messages carrying views, as tests do.
func ExampleNew() {
	v := view.New()
	for _, e := range []event.Event{
		&event.RunStarted{ThreadID: "t1", RunID: "r1"},
		&event.SubagentStarted{ID: "sa-1", Name: "researcher", Description: event.Ptr("Looks things up")},
		&event.TextMessageStart{Attribution: event.By("sa-1"), MessageID: "m1"},
		&event.TextMessageContent{Attribution: event.By("sa-1"), MessageID: "m1", Delta: "Searching the archives"},
		&event.TextMessageEnd{Attribution: event.By("sa-1"), MessageID: "m1"},
		&event.SubagentFinished{ID: "sa-1"},
	} {
		v, _ = reducer.Fold(v, e)
	}
	m := tui.New(nil, &tui.Options{Title: "example"})
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 12})
	m.Update(tui.Frame{View: v, Time: time.Unix(0, 0)})
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	for _, l := range strings.Split(ansi.Strip(m.View().Content), "\n") {
		fmt.Println(strings.TrimRight(l, " "))
	}
	// Output:
	//  agview  example   6 events   run r1 ⠋ running
	//  1 subagent: 1 finished
	// ╭─ ▸ ⠋ parent agent ───────────────────────────── running ─╮
	// │ 1 subagent                                               │
	// │ waiting for the first message…                           │
	// ╰──────────────────────────────────────────────────────────╯
	//   ┏━ ▸ ✓ researcher sa-1 ━━━━━━━━━━━━━━━━━━━━━━━ finished ━┓
	//   ┃ Looks things up                                        ┃
	//   ┃ › Searching the archives                               ┃
	//   ┗━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┛
	//
	//  ↑↓ move  s state  d diagnostics  ? keys  q quit
}

// Lines prints plain progress lines, for when standard output is not a
// terminal.
func ExampleLines() {
	s := store.New(nil)
	defer s.Close()
	stop := tui.Lines(os.Stdout, s)
	for _, e := range []event.Event{
		&event.RunStarted{ThreadID: "t1", RunID: "r1"},
		&event.SubagentStarted{ID: "sa-1", Name: "researcher", ParentToolCallID: event.Ptr("call-1")},
		&event.SubagentError{ID: "sa-1", Message: "source down"},
		&event.RunFinished{ThreadID: "t1", RunID: "r1"},
	} {
		_ = s.Dispatch(e)
		_ = s.Settle(context.Background())
	}
	stop()
	// Output:
	// run r1 started (thread t1)
	// researcher sa-1 started (spawned by agent via call-1)
	// researcher sa-1 errored: source down
	// run r1 finished
}
