package agenttest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
)

// Options configure a Server. A nil *Options means all defaults; NewServer
// copies the struct.
type Options struct {
	// Delay is a pause before each frame: a slow agent. It ends early when
	// the server is closed or the client goes away.
	Delay time.Duration
	// Fault makes the server misbehave; the zero Fault is none.
	Fault Fault
	// MaxInputBytes bounds the RunAgentInput a client sends; larger inputs
	// are refused (413 over SSE, close 1009 over WebSocket). 0 means 8 MiB.
	MaxInputBytes int64
}

// FaultKind names a misbehaviour of the server.
type FaultKind uint8

// The faults a Server can inject.
const (
	// NoFault: the server follows the protocol.
	NoFault FaultKind = iota
	// FaultCut closes the connection abruptly after Fault.After frames: an
	// SSE response ends without its final chunk; a WebSocket's TCP
	// connection closes without a close frame.
	FaultCut
	// FaultGarbage writes Fault.Garbage raw after Fault.After frames, then
	// ends the stream: into the SSE body outside any framing (the default
	// garbage has no line end, so a client sees a truncated stream), or onto
	// the WebSocket's TCP connection beneath its framing (a malformed frame).
	FaultGarbage
	// FaultOversize sends, after Fault.After frames, one frame of Fault.Size
	// bytes (a CUSTOM event padded to that size), then ends the stream.
	FaultOversize
	// FaultStatus answers with HTTP status Fault.Status and body Fault.Body
	// instead of a stream (over WebSocket: refuses the handshake so).
	FaultStatus
	// FaultContentType answers SSE with Content-Type Fault.ContentType
	// (over WebSocket: sends the frames as binary messages).
	FaultContentType
)

// Fault describes one misbehaviour. Build one with CutAfter, GarbageAfter,
// OversizeAfter, Status or ContentType, or fill it in.
type Fault struct {
	// Kind is the misbehaviour; NoFault (the zero value) disables the rest.
	Kind FaultKind
	// After is the number of frames sent before a cut, garbage or oversized
	// frame. A fault whose After exceeds the script's length never happens.
	After int
	// Status is FaultStatus's HTTP status; 0 means 500.
	Status int
	// Body is FaultStatus's response body.
	Body string
	// ContentType is FaultContentType's header; "" means "application/json".
	ContentType string
	// Garbage is FaultGarbage's bytes. nil means a few bytes that are no
	// valid WebSocket frame header and hold no line end (so an SSE client
	// sees a truncated stream).
	Garbage []byte
	// Size is FaultOversize's frame size; 0 means
	// transport.DefaultMaxEventBytes + 1.
	Size int
}

// defaultGarbage is what FaultGarbage writes by default: bytes that are no
// valid WebSocket frame header and, having no line end, no complete SSE line.
const defaultGarbage = "\xff\xfe\x00garbage{\"type\":"

// CutAfter returns a fault that closes the connection abruptly after n frames.
func CutAfter(n int) Fault { return Fault{Kind: FaultCut, After: n} }

// GarbageAfter returns a fault that writes garbage (nil: the default of
// Fault.Garbage) after n frames.
func GarbageAfter(n int, garbage []byte) Fault {
	return Fault{Kind: FaultGarbage, After: n, Garbage: garbage}
}

// OversizeAfter returns a fault that sends a frame of size bytes after n frames.
func OversizeAfter(n, size int) Fault { return Fault{Kind: FaultOversize, After: n, Size: size} }

// Status returns a fault that answers with the HTTP status and body.
func Status(status int, body string) Fault {
	return Fault{Kind: FaultStatus, Status: status, Body: body}
}

// ContentType returns a fault that answers SSE with the content type.
func ContentType(contentType string) Fault {
	return Fault{Kind: FaultContentType, ContentType: contentType}
}

// Server is an AG-UI agent on a loopback port, playing a Script for every
// run. It serves SSE at URL() (POST a RunAgentInput, answer
// text/event-stream, one data field per frame, or the protobuf framing when
// the request's Accept admits it) and WebSocket at WSURL() (the framing of
// package transport).
//
// Over protobuf each frame's JSON members are carried where the schema has a
// field for them, so that a producer's mistakes reach the client where
// protobuf can express them. A frame it cannot carry so goes as the event it
// decodes to (a legacy null is left out), as an empty unknown ag_ui.Event arm
// (field 2047) for an unknown type, and otherwise (a null where a string
// goes, a THINKING_* type, something not JSON) as a malformed message the
// client refuses. A missing required string reads as "" in protobuf: what
// JSON refuses for it, protobuf accepts. Faults behave as over SSE; the
// default garbage reads as a frame length over any limit, and an oversized
// frame's CUSTOM value alone is Fault.Size bytes.
type Server struct {
	script Script
	opts   Options
	ln     net.Listener
	srv    *http.Server
	url    string
	done   chan struct{}

	mu     sync.Mutex
	closed bool
	inputs [][]byte
	conns  map[*websocket.Conn]struct{}
	wg     sync.WaitGroup
	once   sync.Once
}

// NewServer starts a server playing script on a loopback port. It panics if
// it cannot listen, as httptest.NewServer does. Close it when done.
func NewServer(script Script, opts *Options) *Server {
	s := &Server{script: script, done: make(chan struct{}), conns: map[*websocket.Conn]struct{}{}}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MaxInputBytes <= 0 {
		s.opts.MaxInputBytes = 8 << 20
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		if ln, err = net.Listen("tcp6", "[::1]:0"); err != nil {
			panic("agenttest: cannot listen on a loopback port: " + err.Error())
		}
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(s.handle),
		ReadHeaderTimeout: 10 * time.Second,
		// Count each connection's goroutine, so that Close waits for it
		// too. The hook runs on the Serve goroutine (StateNew) or on the
		// connection's own (the others), both counted already.
		ConnState: func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				s.wg.Add(1)
			case http.StateHijacked, http.StateClosed:
				s.wg.Done()
			}
		},
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.srv.Serve(ln)
	}()
	return s
}

// URL returns the SSE endpoint, e.g. "http://127.0.0.1:41234".
func (s *Server) URL() string { return s.url }

// WSURL returns the WebSocket endpoint, e.g. "ws://127.0.0.1:41234".
func (s *Server) WSURL() string { return "ws" + s.url[len("http"):] }

// Inputs returns the RunAgentInputs the server has received, in order of
// arrival, each freshly decoded: the caller may keep and change them.
func (s *Server) Inputs() []*event.RunAgentInput {
	s.mu.Lock()
	raw := append([][]byte(nil), s.inputs...)
	s.mu.Unlock()
	out := make([]*event.RunAgentInput, len(raw))
	for i, b := range raw {
		in := new(event.RunAgentInput)
		json.Unmarshal(b, in) // checked when it was recorded
		out[i] = in
	}
	return out
}

// Close stops the server: it closes the listener and every connection, ends
// the runs in progress and waits for all of the server's goroutines. It is
// idempotent.
func (s *Server) Close() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		conns := make([]*websocket.Conn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		close(s.done)
		s.srv.Close()
		for _, c := range conns {
			c.NetConn().Close()
		}
		s.wg.Wait()
	})
}

// enter registers a handler; it reports false once the server is closing.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	return true
}

func (s *Server) track(c *websocket.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) untrack(c *websocket.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// record checks that body is a RunAgentInput, keeps a copy and returns it decoded.
func (s *Server) record(body []byte) (*event.RunAgentInput, error) {
	in := new(event.RunAgentInput)
	if err := json.Unmarshal(body, in); err != nil {
		return nil, fmt.Errorf("agenttest: the request is not a RunAgentInput: %w", err)
	}
	s.mu.Lock()
	s.inputs = append(s.inputs, bytes.Clone(body))
	s.mu.Unlock()
	return in, nil
}

// pause waits Options.Delay; it reports false when the run must stop: the
// server is closing, or gone is closed (the client went away).
func (s *Server) pause(gone <-chan struct{}) bool {
	if s.opts.Delay <= 0 {
		return true
	}
	t := time.NewTimer(s.opts.Delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-gone:
	case <-s.done:
	}
	return false
}

// strikes reports whether the fault (cut, garbage, oversize) happens after n frames.
func (s *Server) strikes(n int) bool {
	switch s.opts.Fault.Kind {
	case FaultCut, FaultGarbage, FaultOversize:
		return s.opts.Fault.After == n
	}
	return false
}

func (s *Server) garbage() []byte {
	if s.opts.Fault.Garbage != nil {
		return s.opts.Fault.Garbage
	}
	return []byte(defaultGarbage)
}

// oversized returns a CUSTOM event of exactly Fault.Size bytes (at least its
// envelope's size); for the protobuf framing (proto), one whose value alone
// is Fault.Size bytes, so that its message is larger still.
func (s *Server) oversized(proto bool) []byte {
	size := s.opts.Fault.Size
	if size <= 0 {
		size = transport.DefaultMaxEventBytes + 1
	}
	const head, tail = `{"type":"CUSTOM","name":"agenttest.oversize","value":"`, `"}`
	pad := max(size-len(head)-len(tail), 0)
	if proto {
		pad = size
	}
	b := make([]byte, 0, len(head)+pad+len(tail))
	b = append(b, head...)
	b = append(b, bytes.Repeat([]byte{'x'}, pad)...)
	return append(b, tail...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "agenttest: server closed", http.StatusServiceUnavailable)
		return
	}
	defer s.wg.Done()
	if websocket.IsWebSocketUpgrade(r) {
		s.serveWebSocket(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "agenttest: POST a RunAgentInput, or open a WebSocket", http.StatusMethodNotAllowed)
		return
	}
	s.serveSSE(w, r)
}

func (s *Server) refuse(w http.ResponseWriter) {
	status := s.opts.Fault.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, s.opts.Fault.Body)
}

func (s *Server) serveSSE(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxInputBytes))
	if err != nil {
		status := http.StatusBadRequest
		if errors.As(err, new(*http.MaxBytesError)) {
			status = http.StatusRequestEntityTooLarge
		}
		http.Error(w, "agenttest: reading the request: "+err.Error(), status)
		return
	}
	input, err := s.record(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if s.opts.Fault.Kind == FaultStatus {
		s.refuse(w)
		return
	}
	// Protobuf whenever the request's Accept admits it, as the reference
	// encoder decides (transport.AcceptsProto).
	proto := transport.AcceptsProto(strings.Join(r.Header.Values("Accept"), ","))
	ct := "text/event-stream"
	if proto {
		ct = transport.MediaTypeProto
	}
	if s.opts.Fault.Kind == FaultContentType {
		ct = s.opts.Fault.ContentType
		if ct == "" {
			ct = "application/json"
		}
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	var buf []byte
	write := func(frame []byte) bool {
		if proto {
			buf = protoFrame(buf[:0], frame)
		} else {
			buf = transport.AppendSSEData(buf[:0], frame)
		}
		if _, err := w.Write(buf); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	n := 0
	for frame := range s.script.Frames(input) {
		if s.strikes(n) {
			break
		}
		if !s.pause(r.Context().Done()) || !write(frame) {
			return
		}
		n++
	}
	if !s.strikes(n) {
		return
	}
	switch s.opts.Fault.Kind {
	case FaultCut:
		panic(http.ErrAbortHandler) // net/http closes the connection without ending the body
	case FaultGarbage:
		if _, err := w.Write(s.garbage()); err == nil {
			rc.Flush()
		}
	case FaultOversize:
		write(s.oversized(proto))
	}
}

// unknownArm is the ag_ui.Event field number protoFrame writes for a frame
// whose type no arm carries: one no schema defines, so that a client skips it
// as it skips an unknown JSON type.
const unknownArm = 2047

// protoFrame appends frame, one event's JSON, as a frame of the protobuf
// framing. The frame's members are carried as they are where the schema has a
// field for them (event.AppendProtoJSON), so that a producer's mistakes reach
// the client where protobuf can express them; a frame that cannot be carried
// so but decodes (a legacy null read as absent) goes as event.AppendProto
// writes the decoded event; one with an unknown type as an empty unknown arm
// (a client skips it); one with no protobuf form at all (a null where a
// string goes, a deprecated THINKING_* type) as a malformed message (a client
// refuses it).
func protoFrame(dst, frame []byte) []byte {
	n := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	b, err := event.AppendProtoJSON(dst, frame)
	var derr error
	if err != nil {
		var e event.Event
		if e, derr = event.Decode(frame); derr == nil {
			b, err = event.AppendProto(dst, e)
		}
	}
	var ue *event.UnknownTypeError
	if err != nil && errors.As(derr, &ue) {
		b, err = protowire.AppendVarint(dst, protowire.EncodeTag(unknownArm, protowire.BytesType)), nil
		b = append(b, 0)
	}
	if err != nil {
		b = append(dst, 0xff) // a truncated tag: no valid message
	}
	binary.BigEndian.PutUint32(b[n:], uint32(len(b)-n-4))
	return b
}

func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	if s.opts.Fault.Kind == FaultStatus {
		s.refuse(w)
		return
	}
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered
	}
	if !s.track(conn) {
		conn.Close()
		return
	}
	defer s.untrack(conn)
	conn.SetReadLimit(s.opts.MaxInputBytes)
	mt, body, err := conn.ReadMessage()
	if err != nil {
		conn.Close()
		return
	}
	if mt != websocket.TextMessage {
		closeWith(conn, websocket.CloseUnsupportedData, "agenttest: send the RunAgentInput as a text message")
		conn.Close()
		return
	}
	input, err := s.record(body)
	if err != nil {
		closeWith(conn, websocket.CloseInvalidFramePayloadData, truncate(err.Error(), 120))
		conn.Close()
		return
	}

	// One goroutine reads, to answer pings and see the client's close.
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		for {
			if _, _, err := conn.NextReader(); err != nil {
				return
			}
		}
	}()
	defer func() {
		conn.Close()
		<-readDone
	}()

	mt = websocket.TextMessage
	if s.opts.Fault.Kind == FaultContentType {
		mt = websocket.BinaryMessage
	}
	n := 0
	for frame := range s.script.Frames(input) {
		if s.strikes(n) {
			break
		}
		if !s.pause(readDone) || conn.WriteMessage(mt, frame) != nil {
			return
		}
		n++
	}
	if s.strikes(n) {
		switch s.opts.Fault.Kind {
		case FaultCut:
			return // the deferred Close drops the TCP connection without a close frame
		case FaultGarbage:
			conn.NetConn().Write(s.garbage())
			return
		case FaultOversize:
			if conn.WriteMessage(websocket.TextMessage, s.oversized(false)) != nil {
				return
			}
		}
	} else {
		closeWith(conn, websocket.CloseNormalClosure, "run finished")
	}
	// Wait for the client's close (or its going away), briefly.
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-readDone:
	case <-t.C:
	case <-s.done:
	}
}

func closeWith(conn *websocket.Conn, code int, text string) {
	conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
}

// truncate cuts s to at most n bytes, for a close reason (at most 123 bytes).
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
