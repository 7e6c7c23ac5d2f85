package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

//go:embed static
var staticFiles embed.FS

// Defaults of Options.
const (
	DefaultKeepAlive    = 15 * time.Second
	DefaultWriteTimeout = 30 * time.Second
	DefaultMaxRuns      = 100
)

// Options configure a Server. nil and the zero value mean the defaults;
// NewServer copies the struct.
type Options struct {
	// Transport configures the connection to the agent (headers, limits,
	// HTTP client); nil means the defaults of package transport. It is
	// copied.
	Transport *transport.Options
	// FlushInterval is the shortest time between two writes to one viewer:
	// changes made meanwhile are sent together, as their latest version.
	// 0 writes each change as soon as the viewer is ready for it.
	FlushInterval time.Duration
	// KeepAlive is how often an idle event stream gets an SSE comment, so
	// that proxies keep it open; 0 means DefaultKeepAlive, < 0 never.
	KeepAlive time.Duration
	// WriteTimeout bounds each write to a viewer; a viewer that reads
	// nothing for that long is disconnected. 0 means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// MaxRuns is the number of runs kept in memory; when a new run would
	// exceed it the oldest idle run is dropped (its viewers disconnected).
	// 0 means DefaultMaxRuns.
	MaxRuns int
	// Logger receives the service's log; nil discards it.
	Logger *slog.Logger
}

// Server is the backend-for-frontend: an http.Handler that starts agent runs
// with client.Client, keeps each run's store, and serves browsers a live
// view of it. Create it with NewServer and Close it when done. The routes:
//
//	GET  /                       the page: start a run, list the runs
//	GET  /runs/{id}              the page watching run id
//	GET  /static/…               the page's CSS and script
//	GET  /runs                   the runs, as JSON
//	POST /runs                   start a run (StartRequest, application/json); 201, RunInfo
//	POST /runs/{id}/next         continue it (NextRequest, application/json); 202, RunInfo
//	GET  /runs/{id}/events       the live view as SSE (see serveEvents)
//	GET  /runs/{id}/legacy       the agent's events without subagents, as SSE
//	GET  /runs/{id}/view         the latest view's JSON (view.View.MarshalJSON)
//
// A run is a conversation with the agent: the agent run POST /runs starts,
// and those POST /runs/{id}/next starts to continue it (answering the
// interrupts it ended on). Its events fold into one store, so its view holds
// every agent run.
type Server struct {
	agent string
	opts  Options
	mux   *http.ServeMux
	log   *slog.Logger
	page  []byte

	ctx    context.Context // cancelled by Close: ends every agent run
	cancel context.CancelFunc
	wg     sync.WaitGroup // one per agent run in progress

	mu     sync.Mutex
	closed bool
	runs   map[string]*conversation
	order  []*conversation // creation order
}

// NewServer returns a service for the AG-UI agent at agentURL: http(s) for
// SSE, ws(s) for WebSocket. opts may be nil.
func NewServer(agentURL string, opts *Options) (*Server, error) {
	u, err := url.Parse(agentURL)
	if err != nil {
		return nil, fmt.Errorf("bff: agent URL %q: %w", agentURL, err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return nil, fmt.Errorf("bff: agent URL %q: want an http, https, ws or wss URL", agentURL)
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Transport != nil {
		t := *o.Transport
		o.Transport = &t
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.MaxRuns <= 0 {
		o.MaxRuns = DefaultMaxRuns
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	page, err := staticFiles.ReadFile("static/index.html")
	if err != nil {
		return nil, fmt.Errorf("bff: the embedded page is missing: %w", err)
	}
	assets, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("bff: the embedded assets are missing: %w", err)
	}
	s := &Server{agent: agentURL, opts: o, log: o.Logger, page: page, runs: map[string]*conversation{}, mux: http.NewServeMux()}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(assets)))
	s.mux.HandleFunc("GET /{$}", s.servePage)
	s.mux.HandleFunc("GET /runs/{id}", s.servePage)
	s.mux.HandleFunc("GET /runs", s.serveList)
	s.mux.HandleFunc("POST /runs", s.serveStart)
	s.mux.HandleFunc("POST /runs/{id}/next", s.serveNext)
	s.mux.HandleFunc("GET /runs/{id}/events", s.serveEvents)
	s.mux.HandleFunc("GET /runs/{id}/legacy", s.serveLegacy)
	s.mux.HandleFunc("GET /runs/{id}/view", s.serveView)
	return s, nil
}

// ServeHTTP serves the routes listed on Server.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Close cancels every agent run in progress and waits for it to end, then
// ends every event stream. Requests after Close answer 503. Close is
// idempotent. Call it before http.Server.Shutdown, which would otherwise wait
// for the event streams, which never end by themselves.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	convs := s.order
	s.order, s.runs = nil, map[string]*conversation{}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	for _, c := range convs {
		c.close()
	}
}

// Start starts a run: a conversation whose first agent run is sent the
// user's message (none when message is ""). It returns at once; the run goes
// on in the background.
func (s *Server) Start(message string) (RunInfo, error) {
	input := &event.RunAgentInput{}
	if message != "" {
		input.Messages = []event.Message{userMessage(message)}
	}
	conv, err := s.create(func(*view.View) *event.RunAgentInput { return input })
	if err != nil {
		return RunInfo{}, err
	}
	return conv.info(), nil
}

// Next starts the agent run that continues run id (see NextRequest). It
// returns at once; the agent run goes on in the background.
func (s *Server) Next(id string, req NextRequest) (RunInfo, error) {
	if err := req.check(); err != nil {
		return RunInfo{}, err
	}
	conv, err := s.lookup(id)
	if err != nil {
		return RunInfo{}, err
	}
	opts := &client.InputOptions{Answer: func(it event.Interrupt) *event.ResumeEntry {
		return &event.ResumeEntry{InterruptID: it.ID, Status: req.Answer, Payload: req.Payload}
	}}
	if req.Message != "" {
		opts.Messages = []event.Message{userMessage(req.Message)}
	}
	if err := s.begin(conv, func(v *view.View) *event.RunAgentInput { return client.NextInput(v, opts) }); err != nil {
		return RunInfo{}, err
	}
	return conv.info(), nil
}

// View returns the latest view of run id.
func (s *Server) View(id string) (*view.View, error) {
	conv, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	return conv.client.Store().View(), nil
}

// Wait waits until no agent run of run id is in progress, its final view
// rendered for its viewers, then returns that view. It returns ctx.Err()
// with the latest view if ctx ends first.
func (s *Server) Wait(ctx context.Context, id string) (*view.View, error) {
	conv, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	for {
		conv.mu.Lock()
		active, idle := conv.active, conv.idle
		conv.mu.Unlock()
		if !active {
			return conv.client.Store().View(), nil
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return conv.client.Store().View(), ctx.Err()
		}
	}
}

func userMessage(text string) event.Message {
	content, _ := json.Marshal(text) // a string always encodes
	return event.Message{ID: "user-" + client.NewID(), Role: event.RoleUser, Content: content}
}

// RunInfo describes a run: the answer of POST /runs and POST
// /runs/{id}/next, and an element of GET /runs.
type RunInfo struct {
	// ID names the run in the paths below.
	ID string `json:"id"`
	// Active is true while an agent run is in progress.
	Active bool `json:"active"`
	// Status is the status of the last agent run ("" before it started).
	Status view.RunStatus `json:"status"`
	// Created is when the run was started.
	Created time.Time `json:"created"`

	Page   string `json:"page"`   // the page watching the run
	Events string `json:"events"` // its event stream
	Legacy string `json:"legacy"` // its agent events without subagents
	View   string `json:"view"`   // its view's JSON
}

// create makes a new run and starts its first agent run with the input
// input builds, dropping the oldest idle run when there are MaxRuns already.
func (s *Server) create(input func(*view.View) *event.RunAgentInput) (*conversation, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	var dropped *conversation
	if len(s.order) >= s.opts.MaxRuns {
		for i, c := range s.order {
			if c.retire() {
				dropped = c
				s.order = append(s.order[:i:i], s.order[i+1:]...)
				delete(s.runs, c.id)
				break
			}
		}
		if dropped == nil {
			s.mu.Unlock()
			return nil, ErrTooManyRuns
		}
	}
	conv := newConversation(client.NewID(), s.agent, s.runner(), s.log)
	in, _ := conv.begin(input) // a new conversation is neither busy nor retired
	s.start(conv, in)
	s.runs[conv.id] = conv
	s.order = append(s.order, conv)
	s.mu.Unlock()
	if dropped != nil {
		s.log.Info("dropped the oldest idle run", "run", dropped.id)
		dropped.close()
	}
	return conv, nil
}

// runner returns a transport for the agent.
func (s *Server) runner() transport.Runner {
	if u, err := url.Parse(s.agent); err == nil && (u.Scheme == "ws" || u.Scheme == "wss") {
		return transport.NewWebSocket(s.agent, s.opts.Transport)
	}
	return transport.NewSSE(s.agent, s.opts.Transport)
}

// begin starts an agent run of conv with the input input builds from its
// latest view, unless one is in progress.
func (s *Server) begin(conv *conversation, input func(*view.View) *event.RunAgentInput) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	in, err := conv.begin(input)
	if err != nil {
		return err
	}
	s.start(conv, in)
	return nil
}

// start runs conv's agent run on a goroutine Close waits for. The caller
// holds s.mu and has checked that the server is not closed.
func (s *Server) start(conv *conversation, in *event.RunAgentInput) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		conv.run(s.ctx, in)
	}()
}

// lookup returns run id.
func (s *Server) lookup(id string) (*conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	c, ok := s.runs[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownRun, id)
	}
	return c, nil
}

// fail answers err as JSON {"error": "..."} with its status.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := StatusOf(err)
	if status >= 500 {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

func writeJSON(w http.ResponseWriter, status int, x any) {
	data, err := marshal(x)
	if err != nil {
		http.Error(w, "bff: cannot encode the answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	if id := r.PathValue("id"); id != "" {
		if _, err := s.lookup(id); err != nil {
			http.Error(w, err.Error(), StatusOf(err))
			return
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(s.page)
}

func (s *Server) serveList(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	convs := append([]*conversation(nil), s.order...)
	s.mu.Unlock()
	out := make([]RunInfo, 0, len(convs))
	for _, c := range convs {
		out = append(out, c.info())
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) serveStart(w http.ResponseWriter, r *http.Request) {
	if err := checkJSON(r); err != nil {
		s.fail(w, r, err)
		return
	}
	req, err := DecodeStartRequest(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	info, err := s.Start(req.Message)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", info.Page)
	writeJSON(w, http.StatusCreated, info)
}

func (s *Server) serveNext(w http.ResponseWriter, r *http.Request) {
	if err := checkJSON(r); err != nil {
		s.fail(w, r, err)
		return
	}
	req, err := DecodeNextRequest(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	info, err := s.Next(r.PathValue("id"), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, info)
}

func (s *Server) serveView(w http.ResponseWriter, r *http.Request) {
	v, err := s.View(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// write sends buf to a viewer and flushes it, within the write timeout.
func (s *Server) write(rc *http.ResponseController, w http.ResponseWriter, buf []byte) error {
	if err := rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if _, err := w.Write(buf); err != nil {
		return err
	}
	return rc.Flush()
}

// startSSE sends the headers of an event stream at once, so that the
// viewer knows the stream is open before its first event.
func startSSE(w http.ResponseWriter, rc *http.ResponseController) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // tell nginx-style proxies not to buffer
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush() // a failure shows at the first write
}
