// Command bff is a backend-for-frontend for AG-UI agents, wired from
// package threads: flags, a journal, an identity per browser, the page.
// The examples are a module of their own: run it from examples/.
//
//	cd examples
//	go run ./bff                 # the demo swarm, on http://127.0.0.1:8080/
//	go run ./bff -agent http://localhost:8000/agent
//	go run ./bff -journal nats://127.0.0.1:4222 -name bff-1 -cookie-key /shared/bff.key
//
// A NATS journal needs a nats-server with JetStream on: `nats-server -js`,
// or, without one installed, `cd examples && go tool nats-server -js`.
//
// Identity: each browser gets an owner id in a signed, HttpOnly, SameSite
// cookie (see cookieIdentity); the key is generated on first start and kept
// beside the journal, mode 0600 (-cookie-key names another file; replicas
// share one). A thread belongs to the browser that started it. To plug real
// authentication in, give threads.Options.Identify a function that returns
// the signed-in user's id from the request (a session, a verified JWT, a
// header your proxy sets) and drop the cookie.
//
// # Concurrency
//
// main serves until SIGINT or SIGTERM, then closes the service (ending its
// runs and event streams) before shutting the HTTP server down.
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
	"github.com/agview/agview/threads"
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
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	agent := fs.String("agent", "", "the AG-UI agent's URL (http(s) for SSE, ws(s) for WebSocket); empty starts the demo swarm")
	delay := fs.Duration("delay", 6*time.Millisecond, "with no -agent: the demo agent's pause before each event")
	seed := fs.Int64("seed", 1, "with no -agent: the demo swarm's seed")
	interval := fs.Duration("interval", threads.DefaultFlushInterval, "shortest time between two writes to one browser")
	dsn := fs.String("journal", defaultJournal(), "where threads are kept: memory, file:DIR or nats://HOST:PORT (a nats-server -js shared by replicas)")
	name := fs.String("name", journal.DefaultOwner(), "this replica's name in the journal's leases")
	leaseTTL := fs.Duration("lease-ttl", natsjournal.DefaultLeaseTTL, "with nats://: how long a dead replica's run takes to read as cut")
	keyFile := fs.String("cookie-key", "", "the file of the key signing the identity cookie (made, mode 0600, when missing); default: beside a file journal, else in the user's data directory")
	expiry := fs.Duration("expire", threads.DefaultIdleExpiry, "delete a thread idle for this long (negative: never)")
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
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	j, err := openJournal(ctx, *dsn, *name, *leaseTTL)
	if err != nil {
		fmt.Fprintf(stderr, "bff: -journal %s: %v\n", *dsn, err)
		if strings.HasPrefix(*dsn, "nats:") {
			fmt.Fprintln(stderr, "bff: start a NATS server with JetStream on: nats-server -js (or: cd examples && go tool nats-server -js)")
		}
		var je *journal.Error
		if errors.As(err, &je) && je.Code == journal.ErrInvalid {
			return exitUsage
		}
		return exitError
	}
	defer j.Close() // after svc.Close below
	if *keyFile == "" {
		*keyFile = defaultKeyFile(*dsn)
	}
	id, err := newCookieIdentity(*keyFile)
	if err != nil {
		fmt.Fprintf(stderr, "bff: -cookie-key: %v\n", err)
		return exitError
	}
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
	svc, err := threads.New(j, *agent, &threads.Options{
		Identify: id.owner, FlushInterval: *interval, IdleExpiry: *expiry, Logger: logger,
		AllowedHosts: append(listenHosts(ln.Addr()), allow...),
	})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	defer svc.Close()

	hs := &http.Server{Handler: id.middleware(svc), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "agview BFF on http://%s/ (agent %s, journal %s)\n", ln.Addr(), *agent, *dsn)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-served:
		fmt.Fprintf(stderr, "bff: %v\n", err)
		return exitError
	}
	// End the runs and the event streams first: Shutdown waits for
	// handlers, and an event stream never ends by itself.
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

// listenHosts returns the Host values that name the listen address.
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

// defaultJournal returns the file journal in the user's data directory,
// or memory when there is none.
func defaultJournal() string {
	dir, err := userDataDir()
	if err != nil {
		return "memory"
	}
	return "file:" + filepath.Join(dir, "agview", "bff", "threads")
}

// defaultKeyFile returns where the cookie key is kept: beside a file
// journal's directory, else in the user's data directory ("" for memory
// only: a key that lasts as long as the process).
func defaultKeyFile(dsn string) string {
	if dir, ok := strings.CutPrefix(dsn, "file:"); ok {
		return filepath.Join(filepath.Dir(filepath.Clean(dir)), "bff-cookie.key")
	}
	if strings.HasPrefix(dsn, "nats:") {
		if d, err := userDataDir(); err == nil {
			return filepath.Join(d, "agview", "bff", "bff-cookie.key")
		}
	}
	return ""
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

// openJournal opens the journal dsn names, whose leases name owner.
func openJournal(ctx context.Context, dsn, owner string, leaseTTL time.Duration) (journal.Journal, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second) // a NATS server that does not answer
	defer cancel()
	return journal.Open(ctx, dsn, &journal.Options{Owner: owner, Backend: &natsjournal.Options{LeaseTTL: leaseTTL}})
}
