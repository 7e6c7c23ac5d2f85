// Package journalnats runs agview's journal on NATS JetStream in tests: it
// starts a NATS server in process (github.com/nats-io/nats-server/v2, with
// JetStream on and a temporary store directory), so that the NATS journal
// (natsjournal.Dial) is tested against a real server without anything
// installed. The server module stays out of the library's go.mod: it is a
// dependency of this examples module only.
//
// Its tests run the journal contract (package journaltest) against NATS,
// restart the server under a writer and a follower, and let a writer's lease
// expire.
//
// # Concurrency
//
// A Server may be stopped and restarted from any goroutine, one call at a
// time.
package journalnats

import (
	"fmt"
	"net"
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
