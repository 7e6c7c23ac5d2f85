package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
)

// runner names a transport for table tests.
type runner struct {
	name string
	new  func(srv *agenttest.Server, opts *transport.Options) transport.Runner
}

var runners = []runner{
	{"sse", func(srv *agenttest.Server, opts *transport.Options) transport.Runner {
		return transport.NewSSE(srv.URL(), opts)
	}},
	{"websocket", func(srv *agenttest.Server, opts *transport.Options) transport.Runner {
		return transport.NewWebSocket(srv.WSURL(), opts)
	}},
}

func rawFrames(frames []string) []json.RawMessage {
	out := make([]json.RawMessage, len(frames))
	for i, f := range frames {
		out[i] = json.RawMessage(f)
	}
	return out
}

func decodeAll(t testing.TB, frames []string) []event.Event {
	out := make([]event.Event, len(frames))
	for i, f := range frames {
		e, err := event.Decode([]byte(f))
		require.NoError(t, err, "frame %d", i)
		out[i] = e
	}
	return out
}

func TestRunAgainstAgenttest(t *testing.T) {
	t.Parallel()
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			srv := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), nil)
			defer srv.Close()
			input := &event.RunAgentInput{ThreadID: "t1", RunID: "r1",
				Messages: []event.Message{{ID: "u1", Role: event.RoleUser, Content: json.RawMessage(`"hi"`)}}}
			c := collect(r.new(srv, nil).Run(t.Context(), input))
			require.NoError(t, c.fatal)
			for i, err := range c.errs {
				require.NoError(t, err, "event %d", i)
			}
			assert.Equal(t, decodeAll(t, sample), c.events)

			inputs := srv.Inputs()
			require.Len(t, inputs, 1, "the server recorded the input")
			assert.Equal(t, "t1", inputs[0].ThreadID)
			assert.Equal(t, "r1", inputs[0].RunID)
			require.Len(t, inputs[0].Messages, 1)
			assert.Equal(t, "u1", inputs[0].Messages[0].ID)

			// A second run on the same source is a new request.
			c = collect(r.new(srv, nil).Run(t.Context(), nil))
			require.NoError(t, c.fatal)
			assert.Len(t, c.events, len(sample))
			assert.Len(t, srv.Inputs(), 2)
		})
	}
}

func TestFramesAgainstAgenttest(t *testing.T) {
	t.Parallel()
	frames := append([]string{"{\n  \"type\": \"RUN_STARTED\",\n  \"threadId\": \"t\",\n  \"runId\": \"r\"\n}"}, sample[1:]...)
	srv := agenttest.NewServer(agenttest.Frames(rawFrames(frames)...), nil)
	defer srv.Close()
	sse := transport.NewSSE(srv.URL(), nil)
	ws := transport.NewWebSocket(srv.WSURL(), nil)
	for name, seq := range map[string]func(func(transport.Frame, error) bool){
		"sse": sse.Frames(t.Context(), nil), "websocket": ws.Frames(t.Context(), nil),
	} {
		var got []string
		for f, err := range seq {
			require.NoError(t, err, name)
			assert.Equal(t, len(got), f.Index, name)
			if name == "websocket" {
				assert.Equal(t, int64(-1), f.Offset, "WebSocket frames have no offset")
			}
			got = append(got, string(f.Data))
		}
		assert.Equal(t, frames, got, "%s: frames arrive verbatim, multi-line ones included", name)
	}
}

// TestFaults checks that each fault agenttest can inject gives its typed error.
func TestFaults(t *testing.T) {
	t.Parallel()
	type want struct {
		kind      transport.Kind
		index     int
		status    int
		body      string
		closeCode int
	}
	tests := []struct {
		name  string
		fault agenttest.Fault
		opts  *transport.Options
		sse   want
		ws    want
	}{
		{"cut", agenttest.CutAfter(2), nil,
			want{kind: transport.KindIO, index: 2}, want{kind: transport.KindIO, index: 2}},
		{"cut before any frame", agenttest.CutAfter(0), nil,
			want{kind: transport.KindIO, index: 0}, want{kind: transport.KindIO, index: 0}},
		{"garbage", agenttest.GarbageAfter(3, nil), nil,
			// G18: a last line holding no data is ignored; the run never finished.
			want{kind: transport.KindIncomplete, index: 3}, want{kind: transport.KindProtocol, index: 3, closeCode: 1002}},
		{"oversize", agenttest.OversizeAfter(1, 4096), &transport.Options{MaxEventBytes: 1024},
			want{kind: transport.KindLimit, index: 1}, want{kind: transport.KindLimit, index: 1, closeCode: 1009}},
		{"default oversize", agenttest.OversizeAfter(1, 0), nil,
			want{kind: transport.KindLimit, index: 1}, want{kind: transport.KindLimit, index: 1, closeCode: 1009}},
		{"status", agenttest.Status(http.StatusBadGateway, "upstream agent down"), nil,
			want{kind: transport.KindStatus, index: -1, status: 502, body: "upstream agent down"},
			want{kind: transport.KindStatus, index: -1, status: 502, body: "upstream agent down"}},
		{"content type", agenttest.ContentType("application/json"), nil,
			want{kind: transport.KindContentType, index: -1}, want{kind: transport.KindProtocol, index: 0, closeCode: 1003}},
	}
	for _, tt := range tests {
		for _, r := range runners {
			t.Run(tt.name+"/"+r.name, func(t *testing.T) {
				t.Parallel()
				srv := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), &agenttest.Options{Fault: tt.fault})
				defer srv.Close()
				w := tt.sse
				if r.name == "websocket" {
					w = tt.ws
				}
				c := collect(r.new(srv, tt.opts).Run(t.Context(), nil))
				var te *transport.Error
				require.ErrorAs(t, c.fatal, &te, "want a fatal *transport.Error")
				assert.Equal(t, w.kind, te.Kind, "kind of %v", te)
				assert.ErrorIs(t, c.fatal, w.kind)
				assert.Equal(t, w.index, te.Index, "index of %v", te)
				assert.Equal(t, max(w.index, 0), len(c.events), "frames before the fault are yielded")
				assert.Equal(t, w.status, te.Status)
				assert.Equal(t, w.body, te.Body)
				assert.Equal(t, w.closeCode, te.CloseCode)
				assert.Equal(t, r.name, te.Op)
				if w.kind == transport.KindLimit {
					limit := transport.DefaultMaxEventBytes
					if tt.opts != nil {
						limit = tt.opts.MaxEventBytes
					}
					assert.Equal(t, int64(limit), te.Limit)
				}
				t.Log(c.fatal)
			})
		}
	}
}

func TestSlowServer(t *testing.T) {
	t.Parallel()
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			srv := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), &agenttest.Options{Delay: time.Millisecond})
			defer srv.Close()
			c := collect(r.new(srv, nil).Run(t.Context(), nil))
			require.NoError(t, c.fatal)
			assert.Len(t, c.events, len(sample), "a slow server's events all arrive")

			stalled := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), &agenttest.Options{Delay: time.Hour})
			defer stalled.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			c = collect(r.new(stalled, nil).Run(ctx, nil))
			require.ErrorIs(t, c.fatal, transport.KindCanceled)
			assert.ErrorIs(t, c.fatal, context.DeadlineExceeded)
			assert.Empty(t, c.events)
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			// The server sends one frame, then stalls.
			srv := agenttest.NewServer(agenttest.ScriptFunc(func(*event.RunAgentInput) iter.Seq[json.RawMessage] {
				return func(yield func(json.RawMessage) bool) {
					yield(json.RawMessage(sample[0]))
					yield(json.RawMessage(sample[1]))
				}
			}), &agenttest.Options{Delay: 0})
			defer srv.Close()
			stalled := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), &agenttest.Options{Delay: time.Hour})
			defer stalled.Close()

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var got []event.Event
			var fatal error
			for ev, err := range r.new(srv, nil).Run(ctx, nil) {
				if err != nil {
					fatal = err
					break
				}
				got = append(got, ev)
				cancel()
			}
			assert.Len(t, got, 1)
			require.ErrorIs(t, fatal, transport.KindCanceled)
			assert.ErrorIs(t, fatal, context.Canceled)

			// Canceling while a read is blocked ends it.
			ctx, cancel = context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				c := collect(r.new(stalled, nil).Run(ctx, nil))
				done <- c.fatal
			}()
			cancel()
			select {
			case err := <-done:
				assert.ErrorIs(t, err, context.Canceled)
			case <-t.Context().Done():
				t.Fatal("the run did not end when its context was canceled")
			}
		})
	}
}

func TestEarlyBreak(t *testing.T) {
	t.Parallel()
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			srv := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), nil)
			defer srv.Close()
			n := 0
			for _, err := range r.new(srv, nil).Run(t.Context(), nil) {
				require.NoError(t, err)
				n++
				if n == 2 {
					break
				}
			}
			assert.Equal(t, 2, n)
		})
	}
}

func TestIncompleteOverTheWire(t *testing.T) {
	t.Parallel()
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			srv := agenttest.NewServer(agenttest.Frames(rawFrames(sample[:3])...), nil)
			defer srv.Close()
			c := collect(r.new(srv, nil).Run(t.Context(), nil))
			require.ErrorIs(t, c.fatal, transport.ErrIncomplete, "a stream that ends mid-run is never a success")
			assert.Len(t, c.events, 3)
		})
	}
}

func TestSSERequest(t *testing.T) {
	t.Parallel()
	type seen struct {
		method, accept, contentType, auth string
		body                              map[string]any
	}
	got := make(chan seen, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var s seen
		s.method, s.accept, s.contentType, s.auth = r.Method, r.Header.Get("Accept"), r.Header.Get("Content-Type"), r.Header.Get("Authorization")
		json.NewDecoder(r.Body).Decode(&s.body)
		got <- s
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		io.WriteString(w, "retry: 2500\nid: a\ndata: "+sample[0]+"\n\nid: b\ndata: "+sample[4]+"\n\nid: c\n\n")
	}))
	defer ts.Close()
	h := http.Header{}
	h.Set("Authorization", "Bearer x")
	opts := &transport.Options{Header: h, HTTPClient: ts.Client()}
	src := transport.NewSSE(ts.URL, opts)
	h.Set("Authorization", "changed after NewSSE") // options are copied
	c := collect(src.Run(t.Context(), &event.RunAgentInput{ThreadID: "t", RunID: "r"}))
	require.NoError(t, c.fatal)
	assert.Len(t, c.events, 2)
	s := <-got
	assert.Equal(t, http.MethodPost, s.method)
	assert.Equal(t, "text/event-stream", s.accept)
	assert.Equal(t, "application/json", s.contentType)
	assert.Equal(t, "Bearer x", s.auth)
	assert.Equal(t, "t", s.body["threadId"])
	assert.Equal(t, "r", s.body["runId"])
	assert.Equal(t, "c", src.LastEventID(), "the cursor is the last id, even one without data")
	rt, ok := src.Retry()
	assert.True(t, ok)
	assert.Equal(t, 2500*time.Millisecond, rt)
}

func TestSSEBadAnswers(t *testing.T) {
	t.Parallel()
	longBody := strings.Repeat("é", 3000)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		kind    transport.Kind
		check   func(t *testing.T, e *transport.Error)
	}{
		{"status with a long body", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, longBody, http.StatusTooManyRequests)
		}, transport.KindStatus, func(t *testing.T, e *transport.Error) {
			assert.Equal(t, 429, e.Status)
			assert.LessOrEqual(t, len(e.Body), 1024+len("…"), "the body excerpt is bounded")
			assert.True(t, strings.HasSuffix(e.Body, "é…"), "cut on a rune boundary and marked: %q", e.Body[len(e.Body)-8:])
			assert.Contains(t, e.Error(), "HTTP 429 Too Many Requests")
		}},
		{"json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"error":"no"}`))
		}, transport.KindContentType, func(t *testing.T, e *transport.Error) {
			assert.Contains(t, e.Error(), `the response is "application/json", want text/event-stream or application/vnd.ag-ui.event+proto`)
		}},
		{"no content type", func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil
			w.Write([]byte("data: {}\n\n"))
		}, transport.KindContentType, func(t *testing.T, e *transport.Error) {
			assert.Contains(t, e.Error(), `the response is "", want text/event-stream or application/vnd.ag-ui.event+proto`)
		}},
		{"gigabyte without a line end", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			chunk := []byte(strings.Repeat("a", 64<<10))
			w.Write([]byte("data: "))
			for range (1 << 30) / len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, transport.KindLimit, func(t *testing.T, e *transport.Error) {
			assert.Equal(t, int64(256<<10), e.Limit)
			assert.Equal(t, 0, e.Index)
		}},
		{"body cut", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("data: " + sample[0] + "\n\ndata: {"))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}, transport.KindIO, func(t *testing.T, e *transport.Error) {
			assert.Equal(t, 1, e.Index)
			assert.ErrorIs(t, e, io.ErrUnexpectedEOF)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(tt.handler)
			defer ts.Close()
			c := collect(transport.NewSSE(ts.URL, &transport.Options{MaxEventBytes: 256 << 10, HTTPClient: ts.Client()}).Run(t.Context(), nil))
			var te *transport.Error
			require.ErrorAs(t, c.fatal, &te)
			assert.Equal(t, tt.kind, te.Kind, "%v", te)
			tt.check(t, te)
		})
	}
}

func TestConnectFailure(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close() // nobody listens there now
	for _, src := range []transport.Runner{
		transport.NewSSE("http://"+addr, nil),
		transport.NewWebSocket("ws://"+addr, nil),
		transport.NewSSE("::not a url", nil),
	} {
		c := collect(src.Run(t.Context(), nil))
		var te *transport.Error
		require.ErrorAs(t, c.fatal, &te)
		assert.Equal(t, transport.KindConnect, te.Kind, "%v", te)
		assert.Equal(t, -1, te.Index)
	}
}

// wsServer serves WebSocket connections with handle, for misbehaviours
// agenttest does not offer. handle returns when the test is over (done).
func wsServer(t *testing.T, handle func(c *websocket.Conn, done <-chan struct{})) string {
	done := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if _, _, err := c.ReadMessage(); err != nil {
			return
		}
		handle(c, done)
	}))
	t.Cleanup(func() {
		close(done)
		ts.Close()
	})
	return "ws" + strings.TrimPrefix(ts.URL, "http")
}

func TestWebSocketCloseCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code int
		kind transport.Kind // after the two events; KindIncomplete: a clean close mid-run
	}{
		{websocket.CloseNormalClosure, transport.KindIncomplete},
		{websocket.CloseGoingAway, transport.KindIncomplete},
		{websocket.CloseInternalServerErr, transport.KindClosed},
		{websocket.CloseTryAgainLater, transport.KindClosed},
		{websocket.ClosePolicyViolation, transport.KindClosed},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.code), func(t *testing.T) {
			t.Parallel()
			url := wsServer(t, func(c *websocket.Conn, _ <-chan struct{}) {
				c.WriteMessage(websocket.TextMessage, []byte(sample[0]))
				c.WriteMessage(websocket.TextMessage, []byte(sample[1]))
				c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(tt.code, "bye"), time.Now().Add(time.Second))
				c.ReadMessage() // until the client answers the close
			})
			c := collect(transport.NewWebSocket(url, nil).Run(t.Context(), nil))
			assert.Len(t, c.events, 2)
			var te *transport.Error
			require.ErrorAs(t, c.fatal, &te)
			assert.Equal(t, tt.kind, te.Kind, "%v", te)
			if tt.kind == transport.KindClosed {
				assert.Equal(t, tt.code, te.CloseCode)
				assert.Contains(t, te.Error(), fmt.Sprintf("closed by peer with code %d", tt.code))
			}
		})
	}
}

func TestWebSocketKeepalive(t *testing.T) {
	t.Parallel()
	opts := &transport.Options{PingInterval: 20 * time.Millisecond, PongTimeout: 300 * time.Millisecond}
	t.Run("pongs keep a quiet connection alive", func(t *testing.T) {
		t.Parallel()
		// A pong has a second to come back: a loaded machine (the race
		// detector, a fuzzer alongside) delayed one past 300 ms.
		opts := &transport.Options{PingInterval: 100 * time.Millisecond, PongTimeout: time.Second}
		pinged := make(chan struct{}, 100)
		url := wsServer(t, func(c *websocket.Conn, done <-chan struct{}) {
			c.SetPingHandler(func(data string) error {
				pinged <- struct{}{}
				return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
			})
			go func() {
				// Quiet for 25 pings (2.5 s), more than twice the keepalive
				// window (1.1 s), then the run.
				for range 25 {
					<-pinged
				}
				c.WriteMessage(websocket.TextMessage, []byte(sample[0]))
				c.WriteMessage(websocket.TextMessage, []byte(sample[4]))
				c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, ""), time.Now().Add(time.Second))
			}()
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
			}
		})
		c := collect(transport.NewWebSocket(url, opts).Run(t.Context(), nil))
		require.NoError(t, c.fatal)
		assert.Len(t, c.events, 2)
	})
	t.Run("a peer that answers nothing is given up", func(t *testing.T) {
		t.Parallel()
		url := wsServer(t, func(c *websocket.Conn, done <-chan struct{}) {
			<-done // read nothing: pings go unanswered
		})
		c := collect(transport.NewWebSocket(url, opts).Run(t.Context(), nil))
		var te *transport.Error
		require.ErrorAs(t, c.fatal, &te)
		assert.Equal(t, transport.KindIO, te.Kind)
		assert.Contains(t, te.Error(), "no message or pong for 320ms")
		var ne net.Error
		assert.True(t, errors.As(c.fatal, &ne) && ne.Timeout(), "the cause is the read timeout")
	})
}

func TestWebSocketURLSchemes(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), nil)
	defer srv.Close()
	c := collect(transport.NewWebSocket(srv.URL(), nil).Run(t.Context(), nil))
	require.NoError(t, c.fatal, "an http:// URL is dialed as ws://")
	assert.Len(t, c.events, len(sample))
}

// TestWebSocketReadLimitCloses checks that a message over the limit makes the
// client close with 1009 and end with KindLimit, without reading the message.
func TestWebSocketReadLimitCloses(t *testing.T) {
	t.Parallel()
	closed := make(chan int, 1)
	url := wsServer(t, func(c *websocket.Conn, _ <-chan struct{}) {
		c.WriteMessage(websocket.TextMessage, []byte(sample[0]))
		c.WriteMessage(websocket.TextMessage, []byte(`{"type":"CUSTOM","name":"big","value":"`+strings.Repeat("x", 4096)+`"}`))
		_, _, err := c.ReadMessage()
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			closed <- ce.Code
		}
		close(closed)
	})
	c := collect(transport.NewWebSocket(url, &transport.Options{MaxEventBytes: 1024}).Run(t.Context(), nil))
	var te *transport.Error
	require.ErrorAs(t, c.fatal, &te)
	assert.Equal(t, transport.KindLimit, te.Kind)
	assert.Equal(t, 1, te.Index)
	assert.Equal(t, int64(1024), te.Limit)
	assert.Equal(t, websocket.CloseMessageTooBig, <-closed, "the server is told 1009")
}

// TestWebSocketClientCloses checks the close code a client sends: 1000 when
// the consumer stops early, 1001 when the context is canceled.
func TestWebSocketClientCloses(t *testing.T) {
	t.Parallel()
	for _, cancelIt := range []bool{false, true} {
		closed := make(chan int, 1)
		url := wsServer(t, func(c *websocket.Conn, done <-chan struct{}) {
			c.WriteMessage(websocket.TextMessage, []byte(sample[0]))
			_, _, err := c.ReadMessage() // the client sends nothing else but its close
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				closed <- ce.Code
			}
			close(closed)
		})
		ctx, cancel := context.WithCancel(t.Context())
		for _, err := range transport.NewWebSocket(url, nil).Run(ctx, nil) {
			if err != nil {
				require.True(t, cancelIt, "unexpected %v", err)
				require.ErrorIs(t, err, context.Canceled)
				continue
			}
			if cancelIt {
				cancel()
				continue // the next read is interrupted
			}
			break
		}
		cancel()
		want := websocket.CloseNormalClosure
		if cancelIt {
			want = websocket.CloseGoingAway
		}
		assert.Equal(t, want, <-closed, "canceled=%v", cancelIt)
	}
}
