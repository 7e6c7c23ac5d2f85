package threads

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

//go:embed page
var pageFiles embed.FS

// Page returns the page's files (index.html, app.css, app.js): what the
// service serves at its prefix unless Options.Page replaces them.
func Page() fs.FS {
	sub, _ := fs.Sub(pageFiles, "page") // the directory is embedded
	return sub
}

// Defaults of Options.
const (
	DefaultMaxThreadsPerOwner = 100
	DefaultMaxRuns            = 64
	DefaultMaxRunsPerOwner    = 4
	DefaultMaxViewers         = 1000
	DefaultMaxViewersPerOwner = 32
	DefaultMaxLoaded          = 256
	DefaultIdleExpiry         = 30 * 24 * time.Hour
	DefaultMaxBodyBytes       = 64 << 10
	DefaultBodyTimeout        = 10 * time.Second
	DefaultMaxRefused         = 1000
	DefaultFlushInterval      = 50 * time.Millisecond
	DefaultKeepAlive          = 15 * time.Second
	DefaultWriteTimeout       = 30 * time.Second
	DefaultRingBytes          = 1 << 20
	DefaultPageSize           = 50
	MaxPageSize               = 200
	MaxOwnerBytes             = 256
)

// Options configure a Service. nil and zero fields mean the defaults; New
// copies the struct.
type Options struct {
	// Prefix is the path the service is mounted at, "" or like "/agent"
	// (no trailing slash): its routes are Prefix+"/threads…", its page
	// Prefix+"/".
	Prefix string
	// Identify names the owner of a request: a user, a tenant, whatever the
	// service's authentication decides. A thread belongs to the owner that
	// created it; any other owner gets 404 for it on every route. An error
	// refuses the request with 401 (or the *Error's own code). nil means
	// one owner, "", for every request: fit only for a single user.
	Identify func(*http.Request) (owner string, err error)
	// Transport configures the connection to the agent (headers, limits);
	// nil means the defaults of package transport. It is copied.
	Transport *transport.Options
	// MaxThreadsPerOwner bounds the threads one owner keeps (429 beyond).
	MaxThreadsPerOwner int
	// MaxRuns bounds the runs this replica runs at once; MaxRunsPerOwner
	// those of one owner (429 beyond).
	MaxRuns, MaxRunsPerOwner int
	// MaxViewers bounds the event streams open on this replica;
	// MaxViewersPerOwner those of one owner (429 beyond).
	MaxViewers, MaxViewersPerOwner int
	// MaxLoaded bounds the threads this replica keeps folded in memory: the
	// least recently used one without a run here is let go beyond it (its
	// journal stays; the next request folds it again).
	MaxLoaded int
	// IdleExpiry deletes a thread from the journal once nothing was
	// appended to it for that long and no run is active; < 0 never.
	IdleExpiry time.Duration
	// ExpiryCheck is how often threads are checked for expiry; 0 means a
	// tenth of IdleExpiry, at most an hour.
	ExpiryCheck time.Duration
	// MaxBodyBytes bounds a request body (413 beyond); BodyTimeout bounds
	// the time to send it (408 beyond).
	MaxBodyBytes int64
	BodyTimeout  time.Duration
	// MaxRefused stops a run once it had this many refused events; < 0
	// never.
	MaxRefused int
	// FlushInterval is the shortest time between two writes to one viewer:
	// frames published meanwhile are sent together; < 0 means none.
	FlushInterval time.Duration
	// KeepAlive is how often an idle event stream gets an SSE comment; < 0
	// never.
	KeepAlive time.Duration
	// WriteTimeout bounds each write to a viewer.
	WriteTimeout time.Duration
	// RingBytes bounds the patches a thread keeps for viewers that are
	// behind; one further behind is sent a snapshot.
	RingBytes int
	// AllowedHosts are the Host header values served besides loopback names
	// (403 for others: DNS rebinding); a POST or DELETE whose Origin names
	// another host is refused with 403 too. Empty serves any Host.
	AllowedHosts []string
	// Page replaces the page's files (Page()); nil serves Page(). Its
	// index.html may hold {{BASE}}, replaced by the prefix.
	Page fs.FS
	// NoPage leaves the page out: the service answers only the JSON and
	// event routes.
	NoPage bool
	// Logger receives the service's log (nil discards it). Ids and error
	// texts in it are bounded.
	Logger *slog.Logger
}

// Service is the thread service: an http.Handler with the thread routes,
// relative to Options.Prefix:
//
//	GET    /                      the page (unless NoPage)
//	GET    /threads/{id}          the page watching thread id
//	GET    /static/…              the page's CSS and script
//	GET    /threads               the asker's threads, newest first: ThreadList (?limit=N&after=ID)
//	POST   /threads               start a thread (StartRequest); 201, ThreadInfo
//	POST   /threads/{id}/runs     continue it (NextRequest); 202, ThreadInfo
//	POST   /threads/{id}/stop     stop its run in progress, on any replica; 202, ThreadInfo
//	DELETE /threads/{id}          delete it from the journal; 204
//	GET    /threads/{id}/events   the pane stream (docs/panes.md)
//	GET    /threads/{id}/legacy   the agent's events without subagents, as SSE
//	GET    /threads/{id}/view     its view's JSON
//
// Refusals are JSON {"error": MESSAGE, "code": CODE} with the *Error's
// status. Create it with New and Close it before http.Server.Shutdown.
type Service struct {
	j     journal.Journal
	agent string
	opts  Options
	mux   *http.ServeMux
	log   *slog.Logger
	page  []byte
	hosts map[string]bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // runs, and the expiry loop

	mu        sync.Mutex
	closed    bool
	threads   map[string]*thread
	runs      int
	runsBy    map[string]int
	viewers   int
	viewersBy map[string]int
}

// New returns the service of the threads in j, run by the AG-UI agent at
// agentURL (http(s) for SSE, ws(s) for WebSocket). j stays the caller's to
// close, after Close.
func New(j journal.Journal, agentURL string, opts *Options) (*Service, error) {
	u, err := url.Parse(agentURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") {
		return nil, fmt.Errorf("threads: agent URL %q: want an http, https, ws or wss URL", bound(agentURL, 100))
	}
	if j == nil {
		return nil, errors.New("threads: no journal")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Prefix = strings.TrimSuffix(o.Prefix, "/")
	if o.Prefix != "" && !strings.HasPrefix(o.Prefix, "/") {
		return nil, fmt.Errorf("threads: prefix %q must start with /", bound(o.Prefix, 100))
	}
	if o.Transport != nil {
		t := *o.Transport
		o.Transport = &t
	}
	def := func(p *int, d int) {
		if *p <= 0 {
			*p = d
		}
	}
	def(&o.MaxThreadsPerOwner, DefaultMaxThreadsPerOwner)
	def(&o.MaxRuns, DefaultMaxRuns)
	def(&o.MaxRunsPerOwner, DefaultMaxRunsPerOwner)
	def(&o.MaxViewers, DefaultMaxViewers)
	def(&o.MaxViewersPerOwner, DefaultMaxViewersPerOwner)
	def(&o.MaxLoaded, DefaultMaxLoaded)
	def(&o.RingBytes, DefaultRingBytes)
	if o.MaxRefused == 0 {
		o.MaxRefused = DefaultMaxRefused
	}
	if o.IdleExpiry == 0 {
		o.IdleExpiry = DefaultIdleExpiry
	}
	if o.ExpiryCheck <= 0 {
		o.ExpiryCheck = min(o.IdleExpiry/10, time.Hour)
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.FlushInterval == 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.AllowedHosts = slices.Clone(o.AllowedHosts)
	s := &Service{j: j, agent: agentURL, opts: o, log: o.Logger, mux: http.NewServeMux(), hosts: map[string]bool{},
		threads: map[string]*thread{}, runsBy: map[string]int{}, viewersBy: map[string]int{}}
	for _, h := range o.AllowedHosts {
		if h == "" {
			return nil, errors.New("threads: an empty allowed host")
		}
		s.hosts[strings.ToLower(h)] = true
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	p := o.Prefix
	if !o.NoPage {
		assets := o.Page
		if assets == nil {
			assets = Page()
		}
		page, err := fs.ReadFile(assets, "index.html")
		if err != nil {
			return nil, fmt.Errorf("threads: the page has no index.html: %w", err)
		}
		s.page = []byte(strings.ReplaceAll(string(page), "{{BASE}}", html.EscapeString(p)))
		s.mux.Handle("GET "+p+"/static/", http.StripPrefix(p+"/static/", http.FileServerFS(assets)))
		s.mux.HandleFunc("GET "+p+"/{$}", s.servePage)
		s.mux.HandleFunc("GET "+p+"/threads/{id}", s.servePage)
	}
	s.mux.HandleFunc("GET "+p+"/threads", s.serveList)
	s.mux.HandleFunc("POST "+p+"/threads", s.serveStart)
	s.mux.HandleFunc("POST "+p+"/threads/{id}/runs", s.serveNext)
	s.mux.HandleFunc("POST "+p+"/threads/{id}/stop", s.serveStop)
	s.mux.HandleFunc("DELETE "+p+"/threads/{id}", s.serveDelete)
	s.mux.HandleFunc("GET "+p+"/threads/{id}/events", s.serveEvents)
	s.mux.HandleFunc("GET "+p+"/threads/{id}/legacy", s.serveLegacy)
	s.mux.HandleFunc("GET "+p+"/threads/{id}/view", s.serveView)
	if o.IdleExpiry > 0 {
		s.wg.Go(s.expire)
	}
	return s, nil
}

// ServeHTTP serves the routes listed on Service, after checking the
// request's Host and, for a POST or DELETE, its Origin.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := s.checkOrigin(r); err != nil {
		s.fail(w, r, err)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Close cancels every run this replica runs and waits for it to end (each
// is journalled as cancelled), then ends every event stream. Requests after
// Close answer 503. It is idempotent.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	ts := s.threads
	s.threads = map[string]*thread{}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	for _, t := range ts {
		t.close()
	}
}

// ThreadInfo describes a thread: the answer of POST /threads, POST
// /threads/{id}/runs and /stop, and an element of GET /threads.
type ThreadInfo struct {
	ID      string    `json:"id"`
	Active  bool      `json:"active"`           // a run is in progress, on any replica
	Status  string    `json:"status"`           // the last run's status; "" before the first
	Created time.Time `json:"created,omitzero"` // when the thread was created
	Updated time.Time `json:"updated,omitzero"` // when a record was last appended
	Page    string    `json:"page"`             // the page watching it
	Events  string    `json:"events"`           // its pane stream
	Runs    string    `json:"runs"`             // POST here to continue it
	Stop    string    `json:"stop"`             // POST here to stop its run
	View    string    `json:"view"`             // its view's JSON
	Legacy  string    `json:"legacy"`           // its events without subagents
	Self    string    `json:"self"`             // DELETE here to delete it
}

// ThreadList is the answer of GET /threads: a page of the asker's threads,
// newest first, and the cursor of the next page ("" on the last).
type ThreadList struct {
	Threads []ThreadInfo `json:"threads"`
	Next    string       `json:"next,omitempty"`
}

func (s *Service) info(id string) ThreadInfo {
	base := s.opts.Prefix + "/threads/" + id
	return ThreadInfo{ID: id, Page: base, Events: base + "/events", Runs: base + "/runs", Stop: base + "/stop", View: base + "/view", Legacy: base + "/legacy", Self: base}
}

// identify returns the owner of r.
func (s *Service) identify(r *http.Request) (string, error) {
	if s.opts.Identify == nil {
		return "", nil
	}
	owner, err := s.opts.Identify(r)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return "", e
		}
		return "", fail(ErrUnauthorized, err, "Sign in to use this service.")
	}
	if len(owner) > MaxOwnerBytes {
		return "", fail(ErrUnauthorized, nil, "The identity is longer than %d bytes.", MaxOwnerBytes)
	}
	return owner, nil
}

// lookup returns the thread named in r's path when it is owner's, folding
// it if this replica did not yet; another owner's thread and a thread that
// does not exist are both ErrNotFound.
func (s *Service) lookup(ctx context.Context, r *http.Request, owner string) (*thread, error) {
	id := r.PathValue("id")
	if err := CheckID(id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	closed, t := s.closed, s.threads[id]
	s.mu.Unlock()
	if closed {
		return nil, fail(ErrClosed, nil, "The service is shutting down.")
	}
	if t != nil {
		if t.owner != owner {
			return nil, fail(ErrNotFound, nil, "No such thread.")
		}
		t.touch()
		return t, nil
	}
	st, err := s.j.Stat(ctx, id)
	if err != nil {
		return nil, err
	}
	if (st.Last == 0 && st.Active == nil && st.Meta.Created.IsZero()) || st.Meta.Owner != owner {
		return nil, fail(ErrNotFound, nil, "No such thread.")
	}
	return s.load(ctx, id, st.Meta)
}

// load folds thread id (client.Attach) and keeps it, letting the least
// recently used thread without a run here go beyond MaxLoaded.
func (s *Service) load(ctx context.Context, id string, meta journal.Meta) (*thread, error) {
	t := &thread{id: id, owner: meta.Owner, meta: meta, svc: s}
	t.touch()
	att, err := client.Attach(s.ctx, skipJournal{Journal: s.j, t: t}, id, nil)
	if err != nil {
		return nil, err
	}
	t.att, t.st = att, att.Store()
	t.hub = newHub(id, t.st.View(), s.opts.RingBytes, s.log)
	t.unsub = t.st.Subscribe(func(v *view.View) {
		t.hub.update(v)
		t.checkRefusals(v, s.opts.MaxRefused)
	})
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		t.close()
		return nil, fail(ErrClosed, nil, "The service is shutting down.")
	}
	if cur := s.threads[id]; cur != nil {
		s.mu.Unlock()
		t.close()
		cur.touch()
		return cur, nil
	}
	s.threads[id] = t
	var drop *thread
	if len(s.threads) > s.opts.MaxLoaded {
		for _, o := range s.threads {
			if o != t && (drop == nil || o.used.Load() < drop.used.Load()) && !o.running() {
				drop = o
			}
		}
		if drop != nil && drop.retire(false) {
			delete(s.threads, drop.id)
		} else {
			drop = nil
		}
	}
	s.mu.Unlock()
	if drop != nil {
		drop.close()
	}
	return t, nil
}

// unload lets thread t go.
func (s *Service) unload(t *thread) {
	s.mu.Lock()
	if s.threads[t.id] == t {
		delete(s.threads, t.id)
	}
	s.mu.Unlock()
	t.retire(true)
	t.close()
}

// countOwned returns how many threads owner has, and the Stat of each
// thread of the journal.
func (s *Service) stats(ctx context.Context) ([]journal.Thread, error) {
	ids, err := s.j.Threads(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]journal.Thread, 0, len(ids))
	for _, id := range ids {
		st, err := s.j.Stat(ctx, id)
		if err != nil {
			return nil, err
		}
		st.ID = id
		out = append(out, st)
	}
	return out, nil
}

// Start starts a thread of owner whose first run is sent message (none when
// ""). It returns once the run's input is journalled.
func (s *Service) Start(ctx context.Context, owner, message string) (ThreadInfo, error) {
	all, err := s.stats(ctx)
	if err != nil {
		return ThreadInfo{}, err
	}
	n := 0
	for _, st := range all {
		if st.Meta.Owner == owner {
			n++
		}
	}
	if n >= s.opts.MaxThreadsPerOwner {
		return ThreadInfo{}, fail(ErrTooManyThreads, nil, "You have %d threads, the most this service keeps; delete one to start another.", n)
	}
	id := NewID()
	meta := journal.Meta{Owner: owner, Created: time.Now().UTC()}
	if err := s.j.Create(ctx, id, meta); err != nil {
		return ThreadInfo{}, err
	}
	t, err := s.load(ctx, id, meta)
	if err != nil {
		return ThreadInfo{}, err
	}
	var opts client.InputOptions
	if message != "" {
		opts.Messages = []event.Message{client.UserMessage(message)}
	}
	if err := s.begin(ctx, t, opts); err != nil {
		return ThreadInfo{}, err
	}
	return s.threadInfo(t), nil
}

// threadInfo describes a loaded thread.
func (s *Service) threadInfo(t *thread) ThreadInfo {
	info := s.info(t.id)
	v := t.view()
	info.Active = active(v)
	if r, ok := v.LastRun(); ok {
		info.Status = string(r.Status)
	}
	info.Created = t.meta.Created
	t.mu.Lock()
	if t.local != nil {
		info.Active = true
	}
	t.mu.Unlock()
	return info
}

// begin starts a run of t on this replica: it waits until the store holds
// everything journalled (ErrBusy while a run is in progress anywhere),
// builds the input from the thread's view with opts (client.NextInput),
// and runs it with a client recording into the journal and folding into
// the thread's store, on a goroutine Close waits for. It returns once the
// input is journalled.
func (s *Service) begin(ctx context.Context, t *thread, opts client.InputOptions) error {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return fail(ErrClosed, nil, "The service is shutting down.")
	case s.runs >= s.opts.MaxRuns:
		s.mu.Unlock()
		return fail(ErrTooManyRuns, nil, "The service runs %d runs already; try again when one ends.", s.runs)
	case s.runsBy[t.owner] >= s.opts.MaxRunsPerOwner:
		s.mu.Unlock()
		return fail(ErrTooManyRuns, nil, "You have %d runs in progress, the most at once; wait for one to end.", s.runsBy[t.owner])
	}
	s.runs++
	s.runsBy[t.owner]++
	s.wg.Add(1)
	s.mu.Unlock()
	started := false
	defer func() {
		if !started {
			s.endRun(t.owner)
		}
	}()
	if err := t.catchUp(ctx); err != nil {
		return err
	}
	v := t.view()
	opts.ThreadID, opts.RunID = t.id, client.NewID()
	in := client.NextInput(v, &opts)
	if err := client.CheckResume(v, in, time.Now()); err != nil {
		return fail(ErrConflict, err, "The answer does not fit the thread's pending interrupts: %s.", bound(err.Error(), 120))
	}
	runCtx, stop := context.WithCancelCause(s.ctx)
	lr := &localRun{id: in.RunID, owner: t.owner, stop: stop, recorded: make(chan struct{}), done: make(chan struct{}), refused0: v.ViolationCount()}
	if err := t.setLocal(lr); err != nil {
		stop(nil)
		return err
	}
	started = true
	go func() {
		defer s.endRun(t.owner)
		defer stop(nil)
		err := s.run(runCtx, t, in)
		t.endLocal(lr, err)
	}()
	select {
	case <-lr.recorded:
		return nil
	case <-lr.done:
		if lr.err != nil && !errors.Is(lr.err, context.Canceled) {
			var je *journal.Error
			if errors.As(lr.err, &je) {
				return lr.err
			}
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// endRun releases a run's place.
func (s *Service) endRun(owner string) {
	s.mu.Lock()
	s.runs--
	if s.runsBy[owner]--; s.runsBy[owner] <= 0 {
		delete(s.runsBy, owner)
	}
	s.mu.Unlock()
	s.wg.Done()
}

// run runs in with a client that journals it and folds it into t's store.
func (s *Service) run(ctx context.Context, t *thread, in *event.RunAgentInput) error {
	opts := []client.Option{client.WithStore(t.st), client.WithTransportOptions(s.opts.Transport),
		client.WithJournal(s.j, func(err error) {
			s.log.Warn("cannot journal a run's records; other replicas see them late", "thread", logID(t.id), "run", logID(in.RunID), "err", bound(err.Error(), 200))
		})}
	if u, err := url.Parse(s.agent); err == nil && (u.Scheme == "ws" || u.Scheme == "wss") {
		opts = append(opts, client.WithWebSocket())
	}
	c := client.New(s.agent, opts...)
	v, err := c.Run(ctx, in)
	attrs := []any{"thread", logID(t.id), "run", logID(in.RunID), "events", v.EventCount()}
	if r, ok := v.LastRun(); ok {
		attrs = append(attrs, "status", r.Status)
	}
	switch {
	case err == nil:
		s.log.Info("run ended", attrs...)
	case ctx.Err() != nil:
		s.log.Info("run cancelled", append(attrs, "cause", bound(fmt.Sprint(context.Cause(ctx)), 200))...)
	default:
		s.log.Warn("run failed", append(attrs, "err", bound(err.Error(), 200))...)
	}
	return err
}

// Next starts the run that continues thread t (see NextRequest).
func (s *Service) next(ctx context.Context, t *thread, req NextRequest) error {
	if err := req.check(); err != nil {
		return err
	}
	opts := client.InputOptions{Answer: func(it event.Interrupt) *event.ResumeEntry {
		return &event.ResumeEntry{InterruptID: it.ID, Status: req.Answer, Payload: req.Payload}
	}}
	if req.Message != "" {
		opts.Messages = []event.Message{client.UserMessage(req.Message)}
	}
	return s.begin(ctx, t, opts)
}

// expire deletes the threads idle for longer than IdleExpiry, every
// ExpiryCheck, until Close.
func (s *Service) expire() {
	tk := time.NewTicker(s.opts.ExpiryCheck)
	defer tk.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tk.C:
		}
		s.expireOnce(s.ctx)
	}
}

// expireOnce deletes the threads idle for longer than IdleExpiry.
func (s *Service) expireOnce(ctx context.Context) {
	all, err := s.stats(ctx)
	if err != nil {
		s.log.Warn("cannot list threads to expire them", "err", bound(err.Error(), 200))
		return
	}
	cutoff := time.Now().Add(-s.opts.IdleExpiry)
	for _, st := range all {
		last := st.Updated
		if last.IsZero() {
			last = st.Meta.Created
		}
		if st.Active != nil || last.IsZero() || last.After(cutoff) {
			continue
		}
		if err := s.j.Delete(ctx, st.ID); err != nil {
			s.log.Warn("cannot delete an expired thread", "thread", logID(st.ID), "err", bound(err.Error(), 200))
			continue
		}
		s.log.Info("deleted an idle thread", "thread", logID(st.ID), "idle", time.Since(last).Round(time.Second))
		s.mu.Lock()
		t := s.threads[st.ID]
		s.mu.Unlock()
		if t != nil {
			s.unload(t)
		}
	}
}

// acquireViewer counts a new event stream of owner.
func (s *Service) acquireViewer(owner string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.viewers >= s.opts.MaxViewers:
		return nil, fail(ErrTooManyViewers, nil, "The service has %d live views open, the most it serves; try again later.", s.viewers)
	case s.viewersBy[owner] >= s.opts.MaxViewersPerOwner:
		return nil, fail(ErrTooManyViewers, nil, "You have %d live views open, the most at once; close a tab.", s.viewersBy[owner])
	}
	s.viewers++
	s.viewersBy[owner]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.viewers--
			if s.viewersBy[owner]--; s.viewersBy[owner] <= 0 {
				delete(s.viewersBy, owner)
			}
		})
	}, nil
}

// fail answers err as JSON with its status, logging a 5xx with the cause
// (bounded).
func (s *Service) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := AsError(err)
	if e.Status() >= 500 {
		cause := ""
		if e.Err != nil {
			cause = bound(e.Err.Error(), 300)
		}
		s.log.Error("request failed", "method", r.Method, "path", bound(r.URL.Path, 100), "code", e.Code, "cause", cause)
	}
	writeJSON(w, e.Status(), errorBody{Error: e.Message, Code: e.Code})
}

func writeJSON(w http.ResponseWriter, status int, x any) {
	data, err := marshal(x)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"The service failed to encode its answer.","code":"internal"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// parseLimit reads ?limit.
func parseLimit(r *http.Request) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return DefaultPageSize, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxPageSize {
		return 0, fail(ErrBadRequest, err, "The limit must be a number from 1 to %d.", MaxPageSize)
	}
	return n, nil
}
