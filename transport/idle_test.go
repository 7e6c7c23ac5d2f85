package transport_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/transport"
)

// idleTimeout is long enough for a loaded machine to keep to the
// keep-alive cadences below (a tenth of it), short enough for a test.
const idleTimeout = time.Second

// sseAgent serves an SSE stream written by write, flushing after each call
// of send; it returns when the client goes away.
func sseAgent(t *testing.T, write func(send func(string) bool)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		send := func(s string) bool {
			if _, err := w.Write([]byte(s)); err != nil {
				return false
			}
			w.(http.Flusher).Flush()
			return r.Context().Err() == nil
		}
		write(send)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// waitOrGone waits d, or less when the client has gone.
func waitOrGone(send func(string) bool, d time.Duration) bool {
	time.Sleep(d)
	return send("")
}

func TestSSEIdleTimeout(t *testing.T) {
	t.Parallel()
	opts := &transport.Options{IdleTimeout: idleTimeout}
	tests := []struct {
		name   string
		write  func(send func(string) bool)
		events int
		ok     bool
	}{
		{"RUN_STARTED then nothing", func(send func(string) bool) {
			send(asSSE(sample[:1]))
			for waitOrGone(send, 20*time.Millisecond) {
			}
		}, 1, false},
		{"a line trickled one byte at a time", func(send func(string) bool) {
			send(asSSE(sample[:1]))
			for _, c := range []byte(asSSE(sample[1:2]) + strings.Repeat(" ", 1000)) {
				if !send(string(c)) || !waitOrGone(send, idleTimeout/10) {
					return
				}
			}
		}, 1, false},
		{"no headers at all", func(send func(string) bool) {
			// Never returns before the client gives up: the headers are
			// never flushed.
		}, 0, false},
		{"comments keep a quiet stream alive", func(send func(string) bool) {
			send(asSSE(sample[:1]))
			for range 25 { // two and a half timeouts
				if !send(": keep-alive\n\n") || !waitOrGone(send, idleTimeout/10) {
					return
				}
			}
			send(asSSE(sample[1:]))
		}, len(sample), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			write := tt.write
			if tt.name == "no headers at all" {
				url := headerlessAgent(t)
				c := collect(transport.NewSSE(url, opts).Run(t.Context(), nil))
				checkIdle(t, c.fatal, -1)
				return
			}
			c := collect(transport.NewSSE(sseAgent(t, write), opts).Run(t.Context(), nil))
			assert.Len(t, c.events, tt.events)
			if tt.ok {
				require.NoError(t, c.fatal)
				return
			}
			checkIdle(t, c.fatal, tt.events)
		})
	}
}

// headerlessAgent accepts the request and answers nothing until the client
// gives up.
func headerlessAgent(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // then net/http notices the client going
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func checkIdle(t *testing.T, err error, index int) {
	t.Helper()
	var te *transport.Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, transport.KindIdle, te.Kind, "%v", te)
	assert.ErrorIs(t, err, transport.KindIdle)
	assert.Equal(t, idleTimeout, te.Idle)
	assert.Equal(t, index, te.Index)
	assert.Contains(t, te.Error(), "idle timeout: nothing received for 1s (Options.IdleTimeout)")
}

func TestWebSocketIdleTimeout(t *testing.T) {
	t.Parallel()
	// Pings every 50ms from agview: their pongs are no sign of an agent at
	// work.
	opts := &transport.Options{IdleTimeout: idleTimeout, PingInterval: 50 * time.Millisecond}
	t.Run("RUN_STARTED then nothing", func(t *testing.T) {
		t.Parallel()
		url := wsServer(t, func(c *websocket.Conn, done <-chan struct{}) {
			c.WriteMessage(websocket.TextMessage, []byte(sample[0]))
			for { // answer pings until the client goes
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
			}
		})
		c := collect(transport.NewWebSocket(url, opts).Run(t.Context(), nil))
		assert.Len(t, c.events, 1)
		checkIdle(t, c.fatal, 1)
	})
	t.Run("the server's pings keep a quiet stream alive", func(t *testing.T) {
		t.Parallel()
		url := wsServer(t, func(c *websocket.Conn, done <-chan struct{}) {
			go func() {
				for {
					if _, _, err := c.ReadMessage(); err != nil {
						return
					}
				}
			}()
			c.WriteMessage(websocket.TextMessage, []byte(sample[0]))
			for range 25 {
				time.Sleep(idleTimeout / 10)
				if c.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second)) != nil {
					return
				}
			}
			for _, f := range sample[1:] {
				c.WriteMessage(websocket.TextMessage, []byte(f))
			}
			c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, ""), time.Now().Add(time.Second))
			<-done
		})
		c := collect(transport.NewWebSocket(url, opts).Run(t.Context(), nil))
		require.NoError(t, c.fatal)
		assert.Len(t, c.events, len(sample))
	})
}

// TestWebSocketPingFlood checks that a peer that floods pings and never
// reads the pongs is reported for what it does, not as a quiet peer.
func TestWebSocketPingFlood(t *testing.T) {
	t.Parallel()
	url := wsServer(t, func(c *websocket.Conn, done <-chan struct{}) {
		payload := []byte(strings.Repeat("p", 125))
		for {
			select {
			case <-done:
				return
			default:
			}
			// No deadline: the flood waits while the client reads slowly.
			if c.WriteControl(websocket.PingMessage, payload, time.Time{}) != nil {
				return
			}
		}
	})
	opts := &transport.Options{PongTimeout: 200 * time.Millisecond}
	c := collect(transport.NewWebSocket(url, opts).Run(t.Context(), nil))
	var te *transport.Error
	require.ErrorAs(t, c.fatal, &te)
	assert.Equal(t, transport.KindIO, te.Kind)
	assert.Contains(t, te.Error(), "the pong could not be written within 200ms")
	assert.NotContains(t, te.Error(), "no message or pong for")
	var ne net.Error
	assert.True(t, errors.As(c.fatal, &ne) && ne.Timeout(), "the cause is a write timeout: %v", c.fatal)
}
