// Package journalnats runs agview's journal on NATS JetStream in tests: it
// starts a NATS server in process (github.com/nats-io/nats-server/v2, with
// JetStream on and a temporary store directory), so that the NATS journal
// (natsjournal.Dial) is tested against a real server without anything
// installed. The server module stays out of the library's go.mod: it is a
// dependency of this examples module only.
//
// Proc runs a real nats-server process instead (the tool of this module),
// for the faults an operator or an attacker causes: a server stopped for
// longer than a lease, a stream deleted, a small max_payload, JetStream off.
//
// Its tests run the journal contract (package journaltest) against NATS,
// restart the server under a writer and a follower, let a writer's lease
// expire, and cause each fault the package documentation of natsjournal
// lists.
//
// # Concurrency
//
// A Server may be stopped and restarted from any goroutine, one call at a
// time.
package journalnats

import (
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Server is a NATS server with JetStream, in process, on a loopback port
// that stays the same across restarts.
type Server struct {
	dir  string
	port int
	srv  *server.Server
}

// Start starts a server storing JetStream data in dir, on a free loopback
// port. tb.Cleanup stops it.
func Start(tb testing.TB, dir string) *Server {
	tb.Helper()
	s := &Server{dir: dir, port: -1}
	if err := s.Restart(); err != nil {
		tb.Fatalf("nats server: %v", err)
	}
	tb.Cleanup(s.Stop)
	return s
}

// URL returns the server's client URL, nats://127.0.0.1:PORT.
func (s *Server) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

// Stop shuts the server down and waits for it. It is idempotent.
func (s *Server) Stop() {
	if s.srv != nil {
		s.srv.Shutdown()
		s.srv.WaitForShutdown()
		s.srv = nil
	}
}

// Restart starts the server again (or for the first time) on the same port
// and store directory; it stops it first if it runs.
func (s *Server) Restart() error {
	s.Stop()
	srv, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      s.port,
		JetStream: true,
		StoreDir:  s.dir,
		NoLog:     true,
		NoSigs:    true,
	})
	if err != nil {
		return err
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return fmt.Errorf("not ready for connections within 10s")
	}
	s.srv = srv
	s.port = srv.Addr().(*net.TCPAddr).Port
	return nil
}

// Proc is a real nats-server process, built from
// github.com/nats-io/nats-server/v2 (a tool of this module, `go tool
// nats-server`), listening on a loopback port that stays the same across
// restarts, its JetStream store in a directory of its own.
type Proc struct {
	args []string
	port int
	cmd  *exec.Cmd
	done chan struct{}
	log  *lockedBuffer
}

var natsServerBin struct {
	once sync.Once
	path string
	err  error
}

// binary returns the path of the nats-server tool, built (once, then from
// the build cache) by `go tool -n`.
func binary() (string, error) {
	b := &natsServerBin
	b.once.Do(func() {
		out, err := exec.Command("go", "tool", "-n", "nats-server").Output()
		if err != nil {
			b.err = fmt.Errorf("go tool -n nats-server: %w", err)
			return
		}
		b.path = strings.TrimSpace(string(out))
	})
	return b.path, b.err
}

// StartProc starts nats-server with JetStream on (-js) storing in dir, on a
// free loopback port, with args added to its command line (e.g. a
// configuration file); jetstream false leaves JetStream off. tb.Cleanup
// stops it, and prints its log when the test failed.
func StartProc(tb testing.TB, dir string, jetstream bool, args ...string) *Proc {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("nats-server port: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	a := []string{"-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", dir}
	if jetstream {
		a = append(a, "-js")
	}
	p := &Proc{args: append(a, args...), port: port, log: &lockedBuffer{}}
	if err := p.Restart(); err != nil {
		tb.Fatalf("nats-server: %v", err)
	}
	tb.Cleanup(func() {
		p.Stop()
		if tb.Failed() {
			tb.Logf("nats-server log:\n%s", p.log.String())
		}
	})
	return p
}

// URL returns the server's client URL, nats://127.0.0.1:PORT.
func (p *Proc) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", p.port) }

// Stop stops the server (SIGTERM, then SIGKILL after 10 s) and waits for
// it. It is idempotent.
func (p *Proc) Stop() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	p.cmd = nil
}

// Restart starts the server again (or for the first time) on the same port
// and store; it stops it first if it runs. It returns once the server
// accepts connections.
func (p *Proc) Restart() error {
	p.Stop()
	bin, err := binary()
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, p.args...)
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	p.cmd, p.done = cmd, done
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.port))
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-done:
			p.cmd = nil
			return fmt.Errorf("nats-server exited: %s", p.log.String())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nats-server never listened: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lockedBuffer is a bytes.Buffer safe for a process's output and a test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
