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
	"slices"
	"strings"
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
	DefaultKeepAlive           = 15 * time.Second
	DefaultWriteTimeout        = 30 * time.Second
	DefaultMaxThreads          = 100
	DefaultMaxViewers          = 1000
	DefaultMaxViewersPerClient = 32
	DefaultMaxQueuedBytes      = 1 << 20
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
	// MaxThreads is the number of threads kept in memory; when a new thread
	// would exceed it the oldest idle one is dropped (its viewers
	// disconnected). 0 means DefaultMaxThreads.
	MaxThreads int
	// MaxViewers bounds the event streams open at once, over all threads
	// (GET /threads/{id}/events and /legacy); one more is refused with 429.
	// 0 means DefaultMaxViewers.
	MaxViewers int
	// MaxViewersPerClient bounds the event streams open at once from one
	// client address (the request's RemoteAddr without its port); 0 means
	// DefaultMaxViewersPerClient.
	MaxViewersPerClient int
	// MaxQueuedBytes bounds what one viewer may hold back: when a newer
	// frame is published while a viewer still has more than this many bytes
	// of an older one to write, the viewer is disconnected (it reconnects
	// with Last-Event-ID and catches up from the latest frame), so that a
	// viewer that reads slowly or not at all pins no old version of a large
	// view. 0 means DefaultMaxQueuedBytes.
	MaxQueuedBytes int
	// AllowedHosts are the Host header values the service answers (a host,
	// or host:port), besides loopback names (localhost, 127.0.0.1, [::1],
	// on any port), which are always allowed. Any other Host is refused
	// with 403, so that a web page cannot reach the service through DNS
	// rebinding. A POST whose Origin names another host than its Host (and
	// not one of these) is refused with 403 too.
	AllowedHosts []string
	// Logger receives the service's log; nil discards it.
	Logger *slog.Logger
}

// Server is the backend-for-frontend: an http.Handler that starts agent runs
// with client.Client, keeps each thread's store, and serves browsers a live
// view of it. Create it with NewServer and Close it when done. The routes:
//
//	GET  /                          the page: start a thread, list the threads
//	GET  /threads/{id}              the page watching thread id
//	GET  /static/…                  the page's CSS and script
//	GET  /threads                   the threads, as JSON ([]ThreadInfo)
//	POST /threads                   start a thread (StartRequest, application/json); 201, ThreadInfo
//	POST /threads/{id}/runs         continue it (NextRequest, application/json); 202, ThreadInfo
//	POST /threads/{id}/stop         cancel its run in progress; 202, ThreadInfo
//	GET  /threads/{id}/events       the live view as SSE (see serveEvents)
//	GET  /threads/{id}/legacy       the agent's events without subagents, as SSE
//	GET  /threads/{id}/view         the latest view's JSON (view.View.MarshalJSON)
//
// In AG-UI's words, a thread is a conversation with the agent and a run is
// one request to the agent on that thread: POST /threads starts a thread
// with its first run, POST /threads/{id}/runs starts the next one (the
// user's next message, answers to the interrupts the last run ended on).
// Every run's RunAgentInput names the thread by its id and the run by a new
// run id; its events fold into the thread's one store, so the thread's view
// holds every run.
//
// Every request must name an allowed host (Options.AllowedHosts), and a POST
// from a browser must come from the service's own origin.
type Server struct {
	agent string
	opts  Options
	mux   *http.ServeMux
	log   *slog.Logger
	page  []byte
	hosts map[string]bool // lower-case hosts and host:ports of AllowedHosts

	ctx    context.Context // cancelled by Close: ends every run
	cancel context.CancelFunc
	wg     sync.WaitGroup // one per run in progress

	viewers viewerLimits

	mu      sync.Mutex
	closed  bool
	threads map[string]*thread
	order   []*thread // creation order
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
	if o.MaxThreads <= 0 {
		o.MaxThreads = DefaultMaxThreads
	}
	if o.MaxViewers <= 0 {
		o.MaxViewers = DefaultMaxViewers
	}
	if o.MaxViewersPerClient <= 0 {
		o.MaxViewersPerClient = DefaultMaxViewersPerClient
	}
	if o.MaxQueuedBytes <= 0 {
		o.MaxQueuedBytes = DefaultMaxQueuedBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.AllowedHosts = slices.Clone(o.AllowedHosts)
	hosts := map[string]bool{}
	for _, h := range o.AllowedHosts {
		if h == "" {
			return nil, fmt.Errorf("bff: an empty allowed host")
		}
		hosts[strings.ToLower(h)] = true
	}
	page, err := staticFiles.ReadFile("static/index.html")
	if err != nil {
		return nil, fmt.Errorf("bff: the embedded page is missing: %w", err)
	}
	assets, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("bff: the embedded assets are missing: %w", err)
	}
	s := &Server{agent: agentURL, opts: o, log: o.Logger, page: page, hosts: hosts, threads: map[string]*thread{}, mux: http.NewServeMux()}
	s.viewers = viewerLimits{max: o.MaxViewers, perClient: o.MaxViewersPerClient, byClient: map[string]int{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(assets)))
	s.mux.HandleFunc("GET /{$}", s.servePage)
	s.mux.HandleFunc("GET /threads/{id}", s.servePage)
	s.mux.HandleFunc("GET /threads", s.serveList)
	s.mux.HandleFunc("POST /threads", s.serveStart)
	s.mux.HandleFunc("POST /threads/{id}/runs", s.serveNext)
	s.mux.HandleFunc("POST /threads/{id}/stop", s.serveStop)
	s.mux.HandleFunc("GET /threads/{id}/events", s.serveEvents)
	s.mux.HandleFunc("GET /threads/{id}/legacy", s.serveLegacy)
	s.mux.HandleFunc("GET /threads/{id}/view", s.serveView)
	return s, nil
}

// ServeHTTP serves the routes listed on Server, after checking the request's
// Host and, for a POST, its Origin.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := s.checkOrigin(r); err != nil {
		s.fail(w, r, err)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Close cancels every run in progress and waits for it to end, then ends
// every event stream. Requests after Close answer 503. Close is idempotent.
// Call it before http.Server.Shutdown, which would otherwise wait for the
// event streams, which never end by themselves.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	threads := s.order
	s.order, s.threads = nil, map[string]*thread{}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	for _, t := range threads {
		t.close()
	}
}

// Start starts a thread whose first run is sent the user's message (none
// when message is ""). It returns at once; the run goes on in the
// background.
func (s *Server) Start(message string) (ThreadInfo, error) {
	var opts client.InputOptions
	if message != "" {
		opts.Messages = []event.Message{userMessage(message)}
	}
	t, err := s.create(opts)
	if err != nil {
		return ThreadInfo{}, err
	}
	return t.info(), nil
}

// Next starts the run that continues thread id (see NextRequest). It returns
// at once; the run goes on in the background.
func (s *Server) Next(id string, req NextRequest) (ThreadInfo, error) {
	if err := req.check(); err != nil {
		return ThreadInfo{}, err
	}
	t, err := s.lookup(id)
	if err != nil {
		return ThreadInfo{}, err
	}
	opts := client.InputOptions{Answer: func(it event.Interrupt) *event.ResumeEntry {
		return &event.ResumeEntry{InterruptID: it.ID, Status: req.Answer, Payload: req.Payload}
	}}
	if req.Message != "" {
		opts.Messages = []event.Message{userMessage(req.Message)}
	}
	if err := s.begin(t, opts); err != nil {
		return ThreadInfo{}, err
	}
	return t.info(), nil
}

// Stop cancels the run in progress on thread id: the run ends cancelled
// (PROTOCOL.md G11: what it streamed is kept, its open invocations
// abandoned). It returns ErrNotRunning when no run is in progress.
func (s *Server) Stop(id string) (ThreadInfo, error) {
	t, err := s.lookup(id)
	if err != nil {
		return ThreadInfo{}, err
	}
	if !t.stopRun() {
		return ThreadInfo{}, ErrNotRunning
	}
	return t.info(), nil
}

// View returns the latest view of thread id.
func (s *Server) View(id string) (*view.View, error) {
	t, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	return t.client.Store().View(), nil
}

// Wait waits until no run of thread id is in progress, its final view
// rendered for its viewers, then returns that view. It returns ctx.Err()
// with the latest view if ctx ends first.
func (s *Server) Wait(ctx context.Context, id string) (*view.View, error) {
	t, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	for {
		t.mu.Lock()
		active, idle := t.active, t.idle
		t.mu.Unlock()
		if !active {
			return t.client.Store().View(), nil
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return t.client.Store().View(), ctx.Err()
		}
	}
}

func userMessage(text string) event.Message {
	content, _ := json.Marshal(text) // a string always encodes
	return event.Message{ID: "user-" + client.NewID(), Role: event.RoleUser, Content: content}
}

// ThreadInfo describes a thread: the answer of POST /threads, POST
// /threads/{id}/runs and POST /threads/{id}/stop, and an element of GET
// /threads.
type ThreadInfo struct {
	// ID is the thread's id: the threadId of its runs, and its name in the
	// paths below.
	ID string `json:"id"`
	// Active is true while a run is in progress.
	Active bool `json:"active"`
	// RunID is the runId of the run in progress, or of the last one ("" before
	// the first).
	RunID string `json:"runId"`
	// Status is the status of the last run the agent started ("" before it
	// started).
	Status view.RunStatus `json:"status"`
	// Created is when the thread was started.
	Created time.Time `json:"created"`

	Page   string `json:"page"`   // the page watching the thread
	Runs   string `json:"runs"`   // POST here to continue it
	Stop   string `json:"stop"`   // POST here to stop its run in progress
	Events string `json:"events"` // its event stream
	Legacy string `json:"legacy"` // its agent events without subagents
	View   string `json:"view"`   // its view's JSON
}

// create makes a new thread and starts its first run with opts, dropping the
// oldest idle thread when there are MaxThreads already.
func (s *Server) create(opts client.InputOptions) (*thread, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	var dropped *thread
	if len(s.order) >= s.opts.MaxThreads {
		for i, t := range s.order {
			if t.retire() {
				dropped = t
				s.order = append(s.order[:i:i], s.order[i+1:]...)
				delete(s.threads, t.id)
				break
			}
		}
		if dropped == nil {
			s.mu.Unlock()
			return nil, ErrTooManyThreads
		}
	}
	t := newThread(client.NewID(), s.agent, s.runner(), &s.opts)
	if err := s.startLocked(t, opts); err != nil { // a new thread is neither busy nor retired
		s.mu.Unlock()
		t.close()
		return nil, err
	}
	s.threads[t.id] = t
	s.order = append(s.order, t)
	s.mu.Unlock()
	if dropped != nil {
		s.log.Info("dropped the oldest idle thread", "thread", dropped.id)
		dropped.close()
	}
	return t, nil
}

// runner returns a transport for the agent.
func (s *Server) runner() transport.Runner {
	if u, err := url.Parse(s.agent); err == nil && (u.Scheme == "ws" || u.Scheme == "wss") {
		return transport.NewWebSocket(s.agent, s.opts.Transport)
	}
	return transport.NewSSE(s.agent, s.opts.Transport)
}

// begin starts a run of t with opts, unless one is in progress.
func (s *Server) begin(t *thread, opts client.InputOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return s.startLocked(t, opts)
}

// startLocked starts a run of t with opts on a goroutine Close waits for.
// The caller holds s.mu and has checked that the server is not closed.
func (s *Server) startLocked(t *thread, opts client.InputOptions) error {
	ctx, cancel := context.WithCancel(s.ctx)
	in, err := t.begin(opts, cancel)
	if err != nil {
		cancel()
		return err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		t.run(ctx, in)
	}()
	return nil
}

// lookup returns thread id.
func (s *Server) lookup(id string) (*thread, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	t, ok := s.threads[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownThread, id)
	}
	return t, nil
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
	threads := slices.Clone(s.order)
	s.mu.Unlock()
	out := make([]ThreadInfo, 0, len(threads))
	for _, t := range threads {
		out = append(out, t.info())
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

func (s *Server) serveStop(w http.ResponseWriter, r *http.Request) {
	info, err := s.Stop(r.PathValue("id"))
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
