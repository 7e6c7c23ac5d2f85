package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/agview/agview/event"
)

// WebSocket close codes with a meaning in agview's framing (RFC 6455 §7.4.1).
const (
	// CloseNormal ends a stream cleanly: the server sends it after the last
	// event; a client sends it when it stops reading early.
	CloseNormal = websocket.CloseNormalClosure // 1000
	// CloseGoingAway also ends a stream cleanly; a client sends it when its
	// context is canceled.
	CloseGoingAway = websocket.CloseGoingAway // 1001
	// CloseUnsupportedData is sent by a client that receives a binary
	// message, which the framing does not define.
	CloseUnsupportedData = websocket.CloseUnsupportedData // 1003
	// CloseMessageTooBig is sent by a client that receives a message larger
	// than Options.MaxEventBytes.
	CloseMessageTooBig = websocket.CloseMessageTooBig // 1009
)

// closeWait bounds the time spent sending a close frame.
const closeWait = time.Second

// WebSocket runs an AG-UI agent over a WebSocket, with the framing described
// in the package documentation: the client sends the RunAgentInput as the
// first text message; each text message from the server is one event's JSON;
// the server closes with 1000 after the last event.
//
// A WebSocket is safe for concurrent use; each Run is an independent
// connection.
type WebSocket struct {
	url  string
	opts Options
}

var _ Runner = (*WebSocket)(nil)

// NewWebSocket returns a WebSocket source for the agent at url ("ws://" or
// "wss://"; "http://" and "https://" are mapped to them). opts may be nil.
func NewWebSocket(url string, opts *Options) *WebSocket {
	switch {
	case strings.HasPrefix(url, "http://"):
		url = "ws://" + strings.TrimPrefix(url, "http://")
	case strings.HasPrefix(url, "https://"):
		url = "wss://" + strings.TrimPrefix(url, "https://")
	}
	return &WebSocket{url: url, opts: opts.resolve()}
}

// Run dials the agent (sending Options.Header with the handshake), sends
// input (nil sends an empty RunAgentInput) and yields the events the server
// sends. See the package documentation for the contract of the iterator; a
// refused handshake is a KindStatus error.
//
// The connection is made when the iteration starts; each iteration makes a
// new one. Canceling ctx closes the connection (with 1001 when it can), which
// interrupts a blocked read; ending the iteration early closes it with 1000.
func (w *WebSocket) Run(ctx context.Context, input *event.RunAgentInput) iter.Seq2[event.Event, error] {
	return w.stream(input).events(ctx)
}

// Frames is Run without decoding: it yields each text message with its
// index (Offset is -1), and reports only transport failures (no
// KindIncomplete error).
func (w *WebSocket) Frames(ctx context.Context, input *event.RunAgentInput) iter.Seq2[Frame, error] {
	return w.stream(input).frames(ctx)
}

func (w *WebSocket) stream(input *event.RunAgentInput) *stream {
	st := &stream{op: "websocket", src: w.url}
	st.open = func(ctx context.Context) (source, error) {
		if input == nil {
			input = &event.RunAgentInput{}
		}
		body, err := json.Marshal(input)
		if err != nil {
			return nil, &Error{Kind: KindConnect, Offset: -1, Err: fmt.Errorf("encode RunAgentInput: %w", err)}
		}
		// The dial has a context of its own, which the idle watch cancels;
		// once connected, the watch closes the connection instead.
		dctx, cancel := context.WithCancel(ctx)
		var live atomic.Pointer[websocket.Conn]
		watch := newIdleWatch(w.opts.IdleTimeout, func() {
			cancel()
			if c := live.Load(); c != nil {
				c.Close()
			}
		})
		conn, resp, err := w.opts.Dialer.DialContext(dctx, w.url, w.opts.Header)
		if err != nil {
			watch.stop()
			cancel()
			if resp != nil {
				defer resp.Body.Close()
				return nil, &Error{Kind: KindStatus, Offset: -1, Status: resp.StatusCode,
					Body: bodyExcerpt(resp.Body), Err: err}
			}
			if watch.timedOut() {
				return nil, watch.err(-1)
			}
			return nil, &Error{Kind: KindConnect, Offset: -1, Err: err}
		}
		live.Store(conn)
		if watch.timedOut() { // it fired while the dial returned
			conn.Close()
		}
		watch.active()
		s := &wsSource{conn: conn, opts: &w.opts, quit: make(chan struct{}), aborted: make(chan struct{}),
			watch: watch, cancel: cancel}
		conn.SetReadLimit(int64(w.opts.MaxEventBytes))
		conn.SetPingHandler(s.pong)
		s.stopAbort = context.AfterFunc(ctx, s.abort)
		if err := conn.WriteMessage(websocket.TextMessage, body); err != nil {
			s.close()
			if watch.timedOut() {
				return nil, watch.err(-1)
			}
			return nil, &Error{Kind: KindIO, Offset: -1, Err: fmt.Errorf("send RunAgentInput: %w", err)}
		}
		if w.opts.PingInterval > 0 {
			s.alive()
			conn.SetPongHandler(func(string) error { s.alive(); return nil })
			s.wg.Add(1)
			go s.ping()
		}
		return s, nil
	}
	return st
}

// wsSource reads one WebSocket connection. Only the iterating goroutine
// reads; the ping goroutine and the context's AfterFunc only write control
// frames and close, which gorilla allows concurrently with reading.
type wsSource struct {
	conn *websocket.Conn
	opts *Options
	buf  bytes.Buffer

	quit      chan struct{} // closed to stop the ping goroutine
	wg        sync.WaitGroup
	stopAbort func() bool
	aborted   chan struct{} // closed when abort has run
	done      bool          // the peer closed, or a close frame was sent

	watch   *idleWatch
	cancel  context.CancelFunc // the dial's context
	pingErr atomic.Pointer[error]
}

// pongError is the error of a pong that could not be written in answer to
// the peer's ping: the peer does not read (or the connection broke).
type pongError struct {
	wait time.Duration
	err  error
}

func (e *pongError) Error() string {
	return fmt.Sprintf("answering the peer's ping: the pong could not be written within %v (Options.PongTimeout), the peer does not read what it is sent (a ping flood?): %v", e.wait, e.err)
}

func (e *pongError) Unwrap() error { return e.err }

// pong answers a ping from the peer, which counts as activity.
func (s *wsSource) pong(data string) error {
	s.watch.active()
	err := s.conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(s.opts.PongTimeout))
	if err == nil || errors.Is(err, websocket.ErrCloseSent) {
		return nil
	}
	return &pongError{wait: s.opts.PongTimeout, err: err}
}

func (s *wsSource) offset() int64 { return -1 }

// alive extends the read deadline after a sign of life from the peer.
func (s *wsSource) alive() {
	if s.opts.PingInterval > 0 {
		s.conn.SetReadDeadline(time.Now().Add(s.opts.PingInterval + s.opts.PongTimeout))
	}
}

func (s *wsSource) ping() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
			if err := s.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(s.opts.PongTimeout)); err != nil {
				s.pingErr.Store(&err)
				return
			}
		}
	}
}

// abort runs when the context is done: it says goodbye and closes the
// connection, which ends a blocked read.
func (s *wsSource) abort() {
	defer close(s.aborted)
	s.conn.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(CloseGoingAway, "canceled"), time.Now().Add(closeWait))
	s.conn.Close()
}

func (s *wsSource) next() ([]byte, int64, error) {
	mt, r, err := s.conn.NextReader()
	if err != nil {
		return nil, -1, s.classify(err)
	}
	s.alive()
	if mt != websocket.TextMessage {
		s.sendClose(CloseUnsupportedData, "agview: only text messages are events")
		return nil, -1, &Error{Kind: KindProtocol, Offset: -1, CloseCode: CloseUnsupportedData,
			Err: errors.New("received a binary message; each event must be one text message")}
	}
	s.buf.Reset()
	if _, err := s.buf.ReadFrom(r); err != nil {
		return nil, -1, s.classify(err)
	}
	s.watch.active()
	return s.buf.Bytes(), -1, nil
}

// classify turns a gorilla read error into io.EOF (a clean close) or a
// *Error. It runs before any wrapping: websocket.IsCloseError does not
// unwrap.
func (s *wsSource) classify(err error) error {
	var ce *websocket.CloseError
	var ne net.Error
	var pe *pongError
	switch {
	case s.watch.timedOut():
		return s.watch.err(-1)
	case errors.As(err, &pe):
		return &Error{Kind: KindIO, Offset: -1, Err: pe}
	case errors.As(err, &ce):
		switch ce.Code {
		case CloseNormal, CloseGoingAway, websocket.CloseNoStatusReceived:
			s.done = true
			return io.EOF
		case websocket.CloseAbnormalClosure:
			return &Error{Kind: KindIO, Offset: -1, Err: fmt.Errorf("the connection closed without a close frame: %w", io.ErrUnexpectedEOF)}
		}
		s.done = true
		return &Error{Kind: KindClosed, Offset: -1, CloseCode: ce.Code, Err: err}
	case errors.Is(err, websocket.ErrReadLimit):
		s.done = true // gorilla has sent 1009
		return &Error{Kind: KindLimit, Offset: -1, CloseCode: CloseMessageTooBig,
			Limit: int64(s.opts.MaxEventBytes), Err: err}
	case errors.As(err, &ne) && ne.Timeout() && s.pingErr.Load() != nil:
		return &Error{Kind: KindIO, Offset: -1,
			Err: fmt.Errorf("a ping could not be written within %v (Options.PongTimeout), the peer does not read what it is sent: %w", s.opts.PongTimeout, *s.pingErr.Load())}
	case errors.As(err, &ne) && ne.Timeout():
		return &Error{Kind: KindIO, Offset: -1,
			Err: fmt.Errorf("no message or pong for %v: %w", s.opts.PingInterval+s.opts.PongTimeout, err)}
	case errors.As(err, &ne), errors.Is(err, net.ErrClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Kind: KindIO, Offset: -1, Err: err}
	}
	// gorilla reports a malformed frame with a plain error after sending 1002.
	s.done = true
	return &Error{Kind: KindProtocol, Offset: -1, CloseCode: websocket.CloseProtocolError, Err: err}
}

func (s *wsSource) sendClose(code int, text string) {
	if s.done {
		return
	}
	s.done = true
	s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(closeWait))
}

func (s *wsSource) close() {
	s.watch.stop()
	defer s.cancel()
	if !s.stopAbort() {
		<-s.aborted // abort has closed the connection
	}
	close(s.quit)
	s.wg.Wait()
	s.sendClose(CloseNormal, "")
	s.conn.Close()
}
