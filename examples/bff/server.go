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
	"github.com/agview/agview/journal"
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
	DefaultCutPoll             = 500 * time.Millisecond
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
	// Journal keeps the threads: every run's input and events, which every
	// replica sharing it folds into the same view (package journal). nil
	// means a journal in memory, made by NewServer and closed by Close; a
	// journal given here is the caller's to close, after Close.
	Journal journal.Journal
	// CutPoll is how often a thread whose run is open in the journal asks
	// whether the run's writer still holds its lease; when it does not, the
	// run is marked cut. The delay before a dead replica's run reads as cut
	// is the journal's (the NATS journal's lease TTL; at once for the
	// memory and file journals) plus up to CutPoll. 0 means DefaultCutPoll.
	CutPoll time.Duration
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
	wg     sync.WaitGroup // one per run in progress, and per thread being dropped

	viewers viewerLimits
	j       journal.Journal
	ownJ    bool    // j was made by NewServer: Close closes it
	bus     stopBus // asks other replicas to stop their runs; nil when there are none

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
	if o.CutPoll <= 0 {
		o.CutPoll = DefaultCutPoll
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
	s.j = o.Journal
	if s.j == nil {
		s.j, s.ownJ = journal.NewMemory(""), true
	}
	if s.bus, err = newStopBus(s.j, s.stopLocal, s.log); err != nil {
		return nil, err
	}
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

// Close cancels every run this replica has in progress and waits for it to
// end (each is journalled as cancelled), then ends every event stream.
// Requests after Close answer 503. Close is idempotent. Call it before
// http.Server.Shutdown, which would otherwise wait for the event streams,
// which never end by themselves.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	threads := s.order
	s.order, s.threads = nil, map[string]*thread{}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	// Fold what the runs journalled as they ended, so that the last views
	// show how they ended.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, t := range threads {
		_ = t.catchUp(ctx)
		t.close()
	}
	if s.bus != nil {
		s.bus.close()
	}
	if s.ownJ {
		_ = s.j.Close()
	}
}

// Start starts a thread whose first run is sent the user's message (none
// when message is ""). It returns once the run's input is journalled; the
// run goes on in the background.
func (s *Server) Start(ctx context.Context, message string) (ThreadInfo, error) {
	var opts client.InputOptions
	if message != "" {
		opts.Messages = []event.Message{client.UserMessage(message)}
	}
	t, err := s.attach(client.NewID())
	if err != nil {
		return ThreadInfo{}, err
	}
	if err := s.begin(ctx, t, opts); err != nil {
		s.detach(t)
		return ThreadInfo{}, err
	}
	return t.info(), nil
}

// detach stops following t.
func (s *Server) detach(t *thread) {
	s.mu.Lock()
	if s.threads[t.id] == t {
		delete(s.threads, t.id)
		s.order = slices.DeleteFunc(s.order, func(o *thread) bool { return o == t })
	}
	s.mu.Unlock()
	t.close()
}

// Next starts the run that continues thread id (see NextRequest), on this
// replica, whichever ran the last one. It returns once the run's input is
// journalled; the run goes on in the background.
func (s *Server) Next(ctx context.Context, id string, req NextRequest) (ThreadInfo, error) {
	if err := req.check(); err != nil {
		return ThreadInfo{}, err
	}
	t, err := s.lookup(ctx, id)
	if err != nil {
		return ThreadInfo{}, err
	}
	opts := client.InputOptions{Answer: func(it event.Interrupt) *event.ResumeEntry {
		return &event.ResumeEntry{InterruptID: it.ID, Status: req.Answer, Payload: req.Payload}
	}}
	if req.Message != "" {
		opts.Messages = []event.Message{client.UserMessage(req.Message)}
	}
	if err := s.begin(ctx, t, opts); err != nil {
		return ThreadInfo{}, err
	}
	return t.info(), nil
}

// Stop cancels the run in progress on thread id, whichever replica runs it:
// this one cancels its own; another is asked to over the journal's NATS
// connection (ErrElsewhere when the journal has none). The run ends
// cancelled (docs/protocol.md G11: what it streamed is kept, its open
// invocations abandoned). It returns ErrNotRunning when no run is in
// progress.
func (s *Server) Stop(ctx context.Context, id string) (ThreadInfo, error) {
	t, err := s.lookup(ctx, id)
	if err != nil {
		return ThreadInfo{}, err
	}
	if t.stopLocal("") {
		return t.info(), nil
	}
	th, err := s.j.Stat(ctx, id)
	if err != nil {
		return ThreadInfo{}, err
	}
	if th.Active == nil {
		return ThreadInfo{}, ErrNotRunning
	}
	if s.bus == nil {
		return ThreadInfo{}, fmt.Errorf("%w: run %s is run by %s", ErrElsewhere, th.Active.RunID, th.Active.Owner)
	}
	if err := s.bus.stop(ctx, id, th.Active.RunID); err != nil {
		return ThreadInfo{}, err
	}
	return t.info(), nil
}

// stopLocal cancels this replica's run runID of thread, and reports whether
// it had it: what another replica's Stop asks of this one.
func (s *Server) stopLocal(thread, runID string) bool {
	s.mu.Lock()
	t := s.threads[thread]
	s.mu.Unlock()
	return t != nil && t.stopLocal(runID)
}

// View returns the view of thread id, folded from everything the journal
// holds of it.
func (s *Server) View(ctx context.Context, id string) (*view.View, error) {
	t, err := s.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := t.catchUp(ctx); err != nil {
		return nil, err
	}
	return t.st.View(), nil
}

// Wait waits until no run of thread id is in progress, whichever replica
// runs it, its final view rendered for the viewers, then returns that view.
// It returns ctx.Err() with the latest view if ctx ends first.
func (s *Server) Wait(ctx context.Context, id string) (*view.View, error) {
	t, err := s.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := t.catchUp(ctx); err != nil {
		return t.st.View(), err
	}
	for {
		busy, change := t.busy()
		if !busy {
			return t.st.View(), nil
		}
		select {
		case <-change:
		case <-ctx.Done():
			return t.st.View(), ctx.Err()
		}
	}
}

// ThreadInfo describes a thread: the answer of POST /threads, POST
// /threads/{id}/runs and POST /threads/{id}/stop, and an element of GET
// /threads.
type ThreadInfo struct {
	// ID is the thread's id: the threadId of its runs, and its name in the
	// paths below.
	ID string `json:"id"`
	// Active is true while a run is in progress, on any replica.
	Active bool `json:"active"`
	// RunID is the runId of the run in progress, or of the last one ("" when
	// unknown).
	RunID string `json:"runId"`
	// Status is the status of the last run the agent started ("" before it
	// started, or when this replica has not folded the thread).
	Status view.RunStatus `json:"status"`
	// Created is when this replica first served the thread (zero when it
	// has not).
	Created time.Time `json:"created,omitzero"`

	Page   string `json:"page"`   // the page watching the thread
	Runs   string `json:"runs"`   // POST here to continue it
	Stop   string `json:"stop"`   // POST here to stop its run in progress
	Events string `json:"events"` // its event stream
	Legacy string `json:"legacy"` // its agent events without subagents
	View   string `json:"view"`   // its view's JSON
}

// attach returns the thread id, following it in the journal from now on if
// this replica did not yet, dropping the oldest thread it runs nothing of
// when there are MaxThreads already.
func (s *Server) attach(id string) (*thread, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if t := s.threads[id]; t != nil {
		return t, nil
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
			return nil, ErrTooManyThreads
		}
		s.log.Info("stopped following the oldest thread", "thread", dropped.id)
		s.wg.Add(1) // Close waits for it
		go func() {
			defer s.wg.Done()
			dropped.close() // its follower may be folding: do not wait under s.mu
		}()
	}
	t := newThread(id, s.agent, s.j, &s.opts)
	s.threads[id] = t
	s.order = append(s.order, t)
	return t, nil
}

// runner returns a transport for the agent.
func (s *Server) runner() transport.Runner {
	if u, err := url.Parse(s.agent); err == nil && (u.Scheme == "ws" || u.Scheme == "wss") {
		return transport.NewWebSocket(s.agent, s.opts.Transport)
	}
	return transport.NewSSE(s.agent, s.opts.Transport)
}

// begin starts a run of t on this replica: it takes the thread's lease in
// the journal (ErrBusy when any replica runs one), builds the input from
// the thread's whole view with opts (client.NextInput: the history, the
// state, an answer to every pending interrupt, then opts.Messages), journals
// it, and runs it on a goroutine Close waits for.
func (s *Server) begin(ctx context.Context, t *thread, opts client.InputOptions) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	s.wg.Add(1) // Close waits for the run from here
	s.mu.Unlock()
	started := false
	defer func() {
		if !started {
			s.wg.Done()
		}
	}()

	runID := client.NewID()
	w, err := s.j.Begin(ctx, journal.Lease{Thread: t.id, RunID: runID})
	if err != nil {
		if errors.Is(err, journal.ErrBusy) {
			return fmt.Errorf("%w: %w", ErrBusy, err)
		}
		return err
	}
	ended := false
	defer func() {
		if !ended {
			_ = w.End(context.WithoutCancel(ctx))
		}
	}()
	// Everything before the lease is the history.
	if err := t.catchUp(ctx); err != nil {
		return err
	}
	opts.ThreadID, opts.RunID = t.id, runID
	v := t.st.View()
	in := client.NextInput(v, &opts)
	// Refuse what the client would: an interrupt left unanswered, an
	// expired one resolved (nothing journalled, nothing sent).
	if err := client.CheckResume(v, in, time.Now()); err != nil {
		return &RequestError{Status: http.StatusConflict, Where: "answer", Reason: err.Error(), Err: err}
	}
	data, err := client.EncodeInputRecord(v, in) // what the journal does not hold (v is its fold)
	if err != nil {
		return fmt.Errorf("bff: cannot encode the run's input: %w", err)
	}
	runCtx, stop := context.WithCancel(s.ctx)
	if err := t.setLocal(&localRun{id: runID, stop: stop, done: make(chan struct{})}); err != nil {
		stop()
		return err
	}
	last, err := w.Append(ctx, journal.Record{Kind: journal.KindInput, Data: data})
	if err != nil {
		stop()
		_ = t.setLocal(nil)
		return err
	}
	started, ended = true, true
	go func() {
		defer s.wg.Done()
		defer stop()
		s.run(runCtx, t, w, in)
	}()
	// Answer once the follower has the input: the thread reads as active.
	return t.waitSeq(ctx, last)
}

// run runs one run of t to its end, journalling its events and how it
// ended, then releases the thread's lease.
func (s *Server) run(ctx context.Context, t *thread, w journal.Writer, in *event.RunAgentInput) {
	c := client.New(s.agent, client.WithRunner(journalRunner{runner: s.runner(), w: w, log: s.log, thread: t.id}))
	v, err := c.Run(ctx, in)
	c.Close()
	var end journal.End
	attrs := []any{"thread", t.id, "run", in.RunID, "events", v.EventCount(), "invocations", v.InvocationCount()}
	if r, ok := v.LastRun(); ok {
		attrs = append(attrs, "status", r.Status)
	}
	switch {
	case err == nil:
		s.log.Info("run ended", attrs...)
	case ctx.Err() != nil:
		end.Canceled = true
		s.log.Info("run cancelled", attrs...)
	default:
		end.Error = err.Error()
		s.log.Warn("run failed", append(attrs, "err", err)...)
	}
	data, _ := json.Marshal(end) // an End always encodes
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := w.Append(wctx, journal.Record{Kind: journal.KindEnd, Data: data}); err != nil {
		s.log.Error("cannot journal the run's end; other replicas will read it as cut", "thread", t.id, "run", in.RunID, "err", err)
	}
	if err := w.End(wctx); err != nil {
		s.log.Error("cannot release the thread's lease", "thread", t.id, "run", in.RunID, "err", err)
	}
	_ = t.setLocal(nil)
}

// lookup returns thread id, following it if this replica did not yet: any
// thread the journal holds.
func (s *Server) lookup(ctx context.Context, id string) (*thread, error) {
	s.mu.Lock()
	closed, t := s.closed, s.threads[id]
	s.mu.Unlock()
	switch {
	case closed:
		return nil, ErrClosed
	case t != nil:
		return t, nil
	}
	th, err := s.j.Stat(ctx, id)
	if err != nil {
		return nil, err
	}
	if th.Last == 0 && th.Active == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownThread, id)
	}
	return s.attach(id)
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
		if _, err := s.lookup(r.Context(), id); err != nil {
			http.Error(w, err.Error(), StatusOf(err))
			return
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(s.page)
}

func (s *Server) serveList(w http.ResponseWriter, r *http.Request) {
	ids, err := s.j.Threads(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]ThreadInfo, 0, len(ids))
	for _, id := range ids {
		s.mu.Lock()
		t := s.threads[id]
		s.mu.Unlock()
		if t != nil {
			out = append(out, t.info())
			continue
		}
		info := threadInfo(id)
		if th, err := s.j.Stat(r.Context(), id); err == nil && th.Active != nil {
			info.Active, info.RunID = true, th.Active.RunID
		}
		out = append(out, info)
	}
	// The newest first when known, as the page lists them.
	slices.SortStableFunc(out, func(a, b ThreadInfo) int { return b.Created.Compare(a.Created) })
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
	info, err := s.Start(r.Context(), req.Message)
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
	info, err := s.Next(r.Context(), r.PathValue("id"), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, info)
}

func (s *Server) serveStop(w http.ResponseWriter, r *http.Request) {
	info, err := s.Stop(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, info)
}

func (s *Server) serveView(w http.ResponseWriter, r *http.Request) {
	v, err := s.View(r.Context(), r.PathValue("id"))
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
