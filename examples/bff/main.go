// Command bff is a backend-for-frontend for AG-UI agents: an HTTP service
// that starts agent runs with agview's client, keeps each thread (a
// conversation: its runs' inputs and events) in a journal, and serves a web
// page showing one live pane per subagent invocation, nested as the
// invocation tree nests, with status badges, streaming text, tool calls and
// the thread's state. Several replicas sharing a NATS journal serve every
// thread.
//
//	go run ./examples/bff                        # the demo swarm, on http://127.0.0.1:8080/
//	go run ./examples/bff -agent http://localhost:8000/agent
//	go run ./examples/bff -journal nats://127.0.0.1:4222 -name bff-1
//
// Flags:
//
//	-addr ADDR       address to listen on (default 127.0.0.1:8080)
//	-allow-host H    a Host the service answers besides loopback names and
//	                 the listen address (repeat, or comma-separate)
//	-journal DSN     where threads are kept: memory, file:DIR, nats://HOST:PORT
//	                 (default file: in the per-user data directory)
//	-name NAME       this replica's name in the journal's leases (HOST:PID)
//	-lease-ttl D     with nats://: how long before a dead replica's run reads
//	                 as cut (default 10s)
//	-agent URL       the AG-UI agent: http(s) for SSE, ws(s) for WebSocket;
//	                 empty starts agenttest's demo swarm on loopback
//	-delay D         the demo agent's pause before each event (default 6ms)
//	-seed N          the demo swarm's seed (default 1)
//	-interval D      shortest time between two writes to one browser (default 50ms)
//	-max-viewers N   event streams open at once (default 1000)
//	-max-viewers-per-client N   ... from one client address (default 32)
//
// The browser never talks to the agent. It receives the view over SSE from
// the service: a snapshot when it connects, then the JSON of each invocation
// that changed, serialised once per change and shared by every tab watching
// the thread (see Server and serveEvents for the routes and the stream). GET
// /threads/{id}/legacy re-emits the agent's stream through
// transform.HideSubagents, for a consumer older than subagent support.
//
// # Concurrency
//
// A run goes on a goroutine that Server.Close cancels and waits for: it
// journals the run's input and every event before the client folds it.
// Each thread a replica serves has a follower goroutine that folds the
// journal into the thread's store, and a watcher that marks a run cut when
// its writer's lease is gone. The store's only subscriber is the thread's
// hub, which turns each view it is handed into a frame (the latest SSE
// event of every pane, of the header and of the state, re-serialising only
// the invocations whose *view.Invocation changed) and rings every viewer's
// one-slot doorbell without waiting. Each viewer is an HTTP handler
// goroutine that writes the latest frame's changes when it is ready: a slow
// tab skips intermediate versions and never slows the store, the agent or
// the other tabs; one that falls behind is dropped. Handler goroutines
// belong to the http.Server and end when the viewer leaves or Server.Close
// ends their stream.
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
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/journal/natsjournal"
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
		fmt.Fprintln(stderr, "usage: bff [-addr ADDR] [-allow-host HOST]... [-journal DSN] [-name NAME] [-lease-ttl D] [-agent URL] [-delay D] [-seed N] [-interval D]")
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	agent := fs.String("agent", "", "the AG-UI agent's URL (http(s) for SSE, ws(s) for WebSocket); empty starts the demo swarm")
	delay := fs.Duration("delay", 6*time.Millisecond, "with no -agent: the demo agent's pause before each event")
	seed := fs.Int64("seed", 1, "with no -agent: the demo swarm's seed")
	interval := fs.Duration("interval", 50*time.Millisecond, "shortest time between two writes to one browser")
	maxViewers := fs.Int("max-viewers", DefaultMaxViewers, "event streams open at once, in all")
	maxPerClient := fs.Int("max-viewers-per-client", DefaultMaxViewersPerClient, "event streams open at once from one client address")
	dsn := fs.String("journal", defaultJournal(), "where threads are kept: memory, file:DIR (the embedded default) or nats://HOST:PORT (replicas sharing a NATS JetStream server)")
	name := fs.String("name", journal.DefaultOwner(), "this replica's name in the journal's leases")
	leaseTTL := fs.Duration("lease-ttl", natsjournal.DefaultLeaseTTL, "with nats://: how long a dead replica's run takes to read as cut")
	var allow hostList
	fs.Var(&allow, "allow-host", "a Host the service answers besides loopback names and the listen address (repeat, or comma-separate)")
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

	j, err := openJournal(ctx, *dsn, *name, *leaseTTL)
	if err != nil {
		fmt.Fprintf(stderr, "bff: -journal %s: %v\n", *dsn, err)
		var je *journal.Error
		if errors.As(err, &je) && je.Code == journal.ErrInvalid {
			return exitUsage
		}
		return exitError
	}
	defer j.Close() // after svc.Close below

	if *agent == "" {
		demo := agenttest.NewServer(demoAgent(&agenttest.SwarmConfig{Seed: *seed}), &agenttest.Options{Delay: *delay})
		defer demo.Close() // after svc.Close below: runs end first
		*agent = demo.URL()
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "bff: %v\n", err)
		return exitError
	}
	defer ln.Close()
	svc, err := NewServer(*agent, &Options{
		FlushInterval: *interval, Logger: logger, AllowedHosts: append(listenHosts(ln.Addr()), allow...),
		MaxViewers: *maxViewers, MaxViewersPerClient: *maxPerClient, Journal: j,
	})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	defer svc.Close()

	hs := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "agview BFF on http://%s/ (agent %s, journal %s)\n", ln.Addr(), *agent, *dsn)
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

// hostList is a flag of hosts, repeated or comma-separated.
type hostList []string

func (l *hostList) String() string { return strings.Join(*l, ",") }

func (l *hostList) Set(v string) error {
	for h := range strings.SplitSeq(v, ",") {
		if h = strings.TrimSpace(h); h != "" {
			*l = append(*l, h)
		}
	}
	return nil
}

// listenHosts returns the Host values that name the listen address addr:
// itself, and, when it listens on every interface, each interface address
// and the machine's host name, with the port.
func listenHosts(addr net.Addr) []string {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil
	}
	port := strconv.Itoa(ta.Port)
	hosts := []string{net.JoinHostPort(ta.IP.String(), port)}
	if !ta.IP.IsUnspecified() {
		return hosts
	}
	if as, err := net.InterfaceAddrs(); err == nil {
		for _, a := range as {
			if ipn, ok := a.(*net.IPNet); ok {
				hosts = append(hosts, net.JoinHostPort(ipn.IP.String(), port))
			}
		}
	}
	if name, err := os.Hostname(); err == nil && name != "" {
		hosts = append(hosts, net.JoinHostPort(name, port))
	}
	return hosts
}

// defaultJournal returns the embedded journal in the user's data directory
// ($XDG_DATA_HOME or ~/.local/share on Unix, ~/Library/Application Support
// on macOS, %LocalAppData% on Windows): file:DIR/agview/bff/threads; memory
// when there is no such directory.
func defaultJournal() string {
	dir, err := userDataDir()
	if err != nil {
		return "memory"
	}
	return "file:" + filepath.Join(dir, "agview", "bff", "threads")
}

// userDataDir returns the directory for the user's application data.
func userDataDir() (string, error) {
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return d, nil
		}
		return "", errors.New("%LocalAppData% is not set")
	case "darwin", "ios":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "Application Support"), nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}

// openJournal opens the journal dsn names (journal.Open), whose leases name
// owner; a NATS journal's leases last leaseTTL without a refresh.
func openJournal(ctx context.Context, dsn, owner string, leaseTTL time.Duration) (journal.Journal, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second) // a NATS server that does not answer
	defer cancel()
	return journal.Open(ctx, dsn, &journal.Options{Owner: owner, Backend: &natsjournal.Options{LeaseTTL: leaseTTL}})
}
