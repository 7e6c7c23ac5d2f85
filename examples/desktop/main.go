package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"gioui.org/app"
	"gioui.org/io/system"
	"gioui.org/op"
	"gioui.org/unit"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/store"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// demoDelay paces the demo agent as `agview demo` does, so that streaming
// is visible.
const demoDelay = 4 * time.Millisecond

// config is what the flags say.
type config struct {
	agent   string        // the agent's URL; "" for the demo swarm
	message string        // the first user message sent to -agent; "" waits for the box
	journal string        // a journal DSN: record into it, or attach with thread
	thread  string        // with journal: the thread to attach to (read-only)
	seed    int64         // the demo swarm's seed
	delay   time.Duration // the demo agent's pause before each event
}

const usage = `usage: desktop [-agent URL [-message TEXT]] [-journal DSN [-thread ID]] [-seed N] [-delay D]

A native window (Gio) on an AG-UI agent's thread: the invocation tree on the
left, one pane per invocation, the run state as a collapsible tree, pending
interrupts with Approve / Reject and a box that sends the next message.

Without -agent it runs agview's demo swarm in-process (no network). With
-journal DSN alone it records the runs into that journal; with -journal DSN
-thread ID it attaches to a thread another process runs and watches it.
`

// parseFlags parses args; a nil config means exit with the code returned.
func parseFlags(args []string, stderr io.Writer) (*config, int) {
	fs := flag.NewFlagSet("desktop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var cfg config
	fs.StringVar(&cfg.agent, "agent", "", "the AG-UI agent's URL (default: the in-process demo swarm)")
	fs.StringVar(&cfg.message, "message", "", "with -agent: the first user message (default: type it in the window)")
	fs.StringVar(&cfg.journal, "journal", "", "a journal DSN (memory, file:DIR, nats://HOST:PORT): record into it, or attach with -thread")
	fs.StringVar(&cfg.thread, "thread", "", "with -journal: attach to this thread read-only instead of running an agent")
	fs.Int64Var(&cfg.seed, "seed", 1, "the demo swarm's seed")
	fs.DurationVar(&cfg.delay, "delay", demoDelay, "the demo agent's pause before each event (0: as fast as it can)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, exitOK
		}
		return nil, exitUsage
	}
	switch {
	case fs.NArg() != 0:
		fmt.Fprintf(stderr, "desktop: takes no arguments, got %q\n", fs.Args())
		return nil, exitUsage
	case cfg.thread != "" && cfg.journal == "":
		fmt.Fprintln(stderr, "desktop: -thread needs -journal (the journal to attach to)")
		return nil, exitUsage
	case cfg.thread != "" && cfg.agent != "":
		fmt.Fprintln(stderr, "desktop: -thread attaches read-only; it takes no -agent")
		return nil, exitUsage
	case cfg.message != "" && cfg.agent == "":
		fmt.Fprintln(stderr, "desktop: -message is for -agent (the demo asks its own question)")
		return nil, exitUsage
	case cfg.delay < 0:
		fmt.Fprintf(stderr, "desktop: -delay %v: want 0 or more\n", cfg.delay)
		return nil, exitUsage
	}
	return &cfg, exitOK
}

// session is the agview side of a window: the store it shows and, unless it
// is attached read-only, the sender of the next turn.
type session struct {
	store  *store.Store
	sender *sender // nil: read-only
	title  string
	// start begins the first run (on the sender's goroutine); nil when
	// there is none to begin.
	start func()
	// close stops everything open returned, in order.
	close func()
}

// open connects to what cfg names. invalidate is the window's: it is called
// (from other goroutines) when a turn ends.
func open(ctx context.Context, cfg *config, invalidate func()) (*session, error) {
	var j journal.Journal
	closers := []func(){}
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	if cfg.journal != "" {
		var err error
		if j, err = journal.Open(ctx, cfg.journal, nil); err != nil {
			return nil, fmt.Errorf("open journal %q: %w", cfg.journal, err)
		}
		closers = append(closers, func() { j.Close() })
	}
	if cfg.thread != "" {
		a, err := client.Attach(ctx, j, cfg.thread, nil)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("attach to thread %q: %w", cfg.thread, err)
		}
		closers = append(closers, a.Store().Close, a.Stop)
		return &session{store: a.Store(), title: "agview: thread " + cfg.thread + " (attached)", close: closeAll}, nil
	}

	url, title := cfg.agent, "agview: "+cfg.agent
	var first *event.RunAgentInput
	if url == "" {
		srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: cfg.seed}), &agenttest.Options{Delay: cfg.delay})
		closers = append(closers, srv.Close)
		url, title = srv.URL(), "agview: demo swarm"
		thread := "desktop-thread"
		if j != nil { // a thread of its own in the journal, to attach to from elsewhere
			thread = "desktop-" + client.NewID()[:8]
		}
		first = agenttest.SwarmInput(&agenttest.SwarmConfig{Seed: cfg.seed, ThreadID: thread, RunID: client.NewID()})
	} else if cfg.message != "" {
		first = &event.RunAgentInput{ThreadID: client.NewID(), Messages: []event.Message{client.UserMessage(cfg.message)}}
	}
	var opts []client.Option
	if j != nil {
		opts = append(opts, client.WithJournal(j, func(err error) { fmt.Fprintln(os.Stderr, "desktop: journal:", err) }))
		if first != nil {
			fmt.Fprintf(os.Stderr, "desktop: recording thread %s; watch it with: go run ./desktop -journal %s -thread %s\n", first.ThreadID, cfg.journal, first.ThreadID)
		}
	}
	c := client.New(url, opts...)
	closers = append(closers, c.Close)
	s := newSender(ctx, c, invalidate)
	closers = append(closers, s.wait)
	sess := &session{store: c.Store(), sender: s, title: title, close: closeAll}
	if first != nil {
		sess.start = func() { s.run(first) }
	}
	return sess, nil
}

func main() {
	cfg, code := parseFlags(os.Args[1:], os.Stderr)
	if cfg == nil {
		os.Exit(code)
	}
	go func() {
		os.Exit(runWindow(cfg))
	}()
	app.Main()
}

// runWindow opens the window and runs its event loop, on the goroutine that
// owns the UI, until the window is closed.
func runWindow(cfg *config) int {
	sigCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithCancel(sigCtx)
	w := new(app.Window)
	sess, err := open(ctx, cfg, w.Invalidate)
	if err != nil {
		cancel()
		fmt.Fprintln(os.Stderr, "desktop:", err)
		return exitError
	}
	defer sess.close()
	defer cancel() // first: ends the turn under way, which sess.close waits for
	w.Option(app.Title(sess.title), app.Size(unit.Dp(1280), unit.Dp(800)))
	ui := newUI(newTheme(), sess.sender)
	unsubscribe := ui.watch(sess.store, w.Invalidate)
	defer unsubscribe()
	if sess.start != nil {
		sess.start()
	}
	go func() { // ^C closes the window like its close button
		<-ctx.Done()
		w.Perform(system.ActionClose)
	}()
	var ops op.Ops
	for {
		switch e := w.Event().(type) {
		case app.DestroyEvent:
			if e.Err != nil {
				fmt.Fprintln(os.Stderr, "desktop:", e.Err)
				return exitError
			}
			return exitOK
		case app.FrameEvent:
			gtx := app.NewContext(&ops, e)
			ui.Layout(gtx)
			e.Frame(gtx.Ops)
		}
	}
}
