// Command bff is a backend-for-frontend for AG-UI agents: an HTTP service
// that starts agent runs with agview's client, keeps each run's store, and
// serves a web page showing one live pane per subagent invocation, nested as
// the invocation tree nests, with status badges, streaming text, tool calls
// and the run state.
//
//	go run ./examples/bff                        # the demo swarm, on http://127.0.0.1:8080/
//	go run ./examples/bff -agent http://localhost:8000/agent
//
// Flags:
//
//	-addr ADDR       address to listen on (default 127.0.0.1:8080)
//	-agent URL       the AG-UI agent: http(s) for SSE, ws(s) for WebSocket;
//	                 empty starts agenttest's demo swarm on loopback
//	-delay D         the demo agent's pause before each event (default 6ms)
//	-seed N          the demo swarm's seed (default 1)
//	-interval D      shortest time between two writes to one browser (default 50ms)
//
// The browser never talks to the agent. It receives the view over SSE from
// the service: a snapshot when it connects, then the JSON of each invocation
// that changed, serialised once per change and shared by every tab watching
// the run (see Server and serveEvents for the routes and the stream). GET
// /runs/{id}/legacy re-emits the agent's stream through
// transform.HideSubagents, for a consumer older than subagent support.
//
// # Concurrency
//
// Each run has one client and one store. The store's only subscriber is the
// run's hub, which turns each view it is handed into a frame (the latest JSON
// of every pane, of the header and of the state, re-serialising only the
// invocations whose *view.Invocation changed) and rings every viewer's
// one-slot doorbell without waiting. Each viewer is an HTTP handler
// goroutine that writes the latest frame's changes when it is ready: a slow
// tab skips intermediate versions and never slows the store, the agent or
// the other tabs. A run's agent run goes on a goroutine that Server.Close
// cancels and waits for; handler goroutines belong to the http.Server and end
// when the viewer leaves or Server.Close ends their stream.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agview/agview/agenttest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes of run.
const (
	exitOK    = 0
	exitError = 1 // the service could not listen or serve
	exitUsage = 2 // bad flags
)

// run is the program: it parses args, serves until ctx ends and returns the
// exit code. The first line it writes to stdout names the page's URL.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bff [-addr ADDR] [-agent URL] [-delay D] [-seed N] [-interval D]")
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	agent := fs.String("agent", "", "the AG-UI agent's URL (http(s) for SSE, ws(s) for WebSocket); empty starts the demo swarm")
	delay := fs.Duration("delay", 6*time.Millisecond, "with no -agent: the demo agent's pause before each event")
	seed := fs.Int64("seed", 1, "with no -agent: the demo swarm's seed")
	interval := fs.Duration("interval", 50*time.Millisecond, "shortest time between two writes to one browser")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "bff: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	if *agent == "" {
		demo := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: *seed}), &agenttest.Options{Delay: *delay})
		defer demo.Close() // after svc.Close below: runs end first
		*agent = demo.URL()
	}
	svc, err := NewServer(*agent, &Options{FlushInterval: *interval, Logger: logger})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	defer svc.Close()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "bff: %v\n", err)
		return exitError
	}
	hs := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "agview BFF on http://%s/ (agent %s)\n", ln.Addr(), *agent)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	select {
	case <-ctx.Done():
	case err := <-served:
		fmt.Fprintf(stderr, "bff: %v\n", err)
		return exitError
	}
	// End the runs and the event streams first: Shutdown waits for handlers,
	// and an event stream never ends by itself.
	svc.Close()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		fmt.Fprintf(stderr, "bff: shutdown: %v\n", err)
		return exitError
	}
	<-served // http.ErrServerClosed
	return exitOK
}
