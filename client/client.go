// Package client runs AG-UI agents and holds the conversation, as the
// reference TypeScript client (@ag-ui/client 1.0) does: it sends a
// RunAgentInput over a transport (SSE by default, or WebSocket), folds the
// history it sends and then the events the agent streams back into a store
// the caller can watch, and returns the final view. It builds the next run's
// input from that view (NextInput, Continue), so a conversation carries its
// history, state and interrupt answers from run to run (docs/protocol.md G15).
//
//	c := client.New("http://localhost:8000/agent")
//	v, err := c.Run(ctx, &event.RunAgentInput{ThreadID: "t1", Messages: history})
//	// … read the answer in v.Messages(), then the next turn:
//	v, err = c.Continue(ctx, &client.InputOptions{Messages: []event.Message{next}})
//
// A Client keeps one store across its runs: the view holds every run of the
// thread, its messages start with the history the last input sent (the
// user's own question included, whether or not the agent echoes it), and
// Continue — or Run(ctx, NextInput(c.Store().View(), …)) — continues it.
//
// Before anything is sent, Run refuses an input whose history holds one id
// twice (*reducer.InputError) and one that leaves a pending interrupt
// unanswered, resolves an expired one or answers one that is not pending
// (*InterruptError): nothing is sent and the view is unchanged.
//
// How a run ends:
//   - The stream completes (RUN_FINISHED or RUN_ERROR ends its last run): Run
//     returns the view and nil. A RUN_ERROR is in the view (the run's status
//     is errored, open invocations abandoned), not in the error.
//   - The context is cancelled: the request is closed, the run is marked
//     cancelled (never finished) and Run returns the context's error.
//   - The transport breaks or is cut (including a stream that ends before its
//     run finished, and, with WithIdleTimeout, an agent that went quiet): the
//     run is marked failed, every open invocation
//     abandoned (docs/protocol.md G11), everything folded so far kept, and Run
//     returns the *transport.Error.
//   - With WithStopOnViolation, the first rejected event ends the run as
//     failed and Run returns its *reducer.Violation; by default a rejected
//     event is recorded in the view's diagnostics and the run goes on (G1).
//
// # Durable threads
//
// WithJournal records each run in a journal (package journal: in memory, the
// embedded file journal, or NATS JetStream): the thread's lease is taken
// before anything is sent (a thread has one active run at a time, across
// processes), then the input, every event as received before it is folded,
// and how the run ended. Attach folds a journaled thread into a new store and
// follows it live from any process that reaches the journal, so a viewer that
// was not there when the run started sees the same view; a run whose writer
// died reads as cut (failed, open invocations abandoned).
//
// A run's input record holds only what the journal does not already hold
// (EncodeInputRecord, docs/journal-format.md): the messages after those the
// journal's fold of the thread holds as they are, the interrupt answers, and
// the state only when it changed; the whole input when the history was
// rewritten from its first message. So a thread's journal is about the size
// of its messages and events, and Attach folds it in time linear in the
// thread. Records that hold whole inputs, as earlier versions wrote them,
// read as before.
//
// # Concurrency
//
// A Client may run one run at a time: Run and Continue calls on one Client
// are serialised. Its store may be read and subscribed to from any goroutine
// at any time (see package store). NextInput and CheckResume are pure
// functions of a view.
// An Attachment follows on a goroutine of its own, which Stop ends and
// waits for; its store may be read and subscribed to from any goroutine.
package client

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"sync"
	"time"

	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/store"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// Client runs an agent at one URL. Create it with New.
type Client struct {
	url    string
	runner transport.Runner
	store  *store.Store
	stop   bool

	journal    journal.Journal
	journalErr func(error)
	known      knownView // the journal's view of the last thread recorded (record.go); guarded by mu

	mu sync.Mutex // serialises Run
}

// Option configures a Client.
type Option func(*config)

type config struct {
	websocket bool
	topts     transport.Options
	store     *store.Store
	stop      bool
	runner    transport.Runner

	journal    journal.Journal
	journalErr func(error)
}

// WithWebSocket makes the client speak WebSocket (package transport
// documents agview's framing) instead of SSE. The URL then has the ws:// or
// wss:// scheme.
func WithWebSocket() Option { return func(c *config) { c.websocket = true } }

// WithEncoding sets what the SSE request asks the agent to answer in:
// transport.EncodingPreferProto or transport.EncodingProto ask for the
// protobuf framing (application/vnd.ag-ui.event+proto); the default,
// transport.EncodingSSE, asks for text/event-stream. The answer is decoded by
// its Content-Type whatever was asked, and an Accept header given with
// WithHeader is sent as given instead.
func WithEncoding(e transport.Encoding) Option { return func(c *config) { c.topts.Encoding = e } }

// WithHTTPClient sets the *http.Client that sends SSE requests.
func WithHTTPClient(h *http.Client) Option { return func(c *config) { c.topts.HTTPClient = h } }

// WithHeader adds a request header (sent with the SSE POST and the WebSocket
// handshake), e.g. WithHeader("Authorization", "Bearer …"). It is sent to
// the agent's origin only: a redirect to another origin goes without it, and
// a redirect from https to http is refused (see transport.Options.Header).
func WithHeader(key, value string) Option {
	return func(c *config) {
		if c.topts.Header == nil {
			c.topts.Header = http.Header{}
		}
		c.topts.Header.Add(key, value)
	}
}

// WithIdleTimeout ends a run whose server shows no activity for d (no
// event, no SSE comment, no WebSocket message or ping): the run is marked
// failed and Run returns a *transport.Error of kind transport.KindIdle.
// transport.Options.IdleTimeout says what counts as activity. 0, the
// default, means no idle timeout.
func WithIdleTimeout(d time.Duration) Option { return func(c *config) { c.topts.IdleTimeout = d } }

// WithTransportOptions sets the transport's options (limits, keepalive, …).
// Header, HTTPClient, Encoding and IdleTimeout set by other options are kept
// when opts
// leaves them empty. opts is copied.
func WithTransportOptions(opts *transport.Options) Option {
	return func(c *config) {
		if opts == nil {
			return
		}
		h, hc, enc, idle := c.topts.Header, c.topts.HTTPClient, c.topts.Encoding, c.topts.IdleTimeout
		c.topts = *opts
		if c.topts.Header == nil {
			c.topts.Header = h
		}
		if c.topts.Encoding == transport.EncodingSSE {
			c.topts.Encoding = enc
		}
		if c.topts.HTTPClient == nil {
			c.topts.HTTPClient = hc
		}
		if c.topts.IdleTimeout == 0 {
			c.topts.IdleTimeout = idle
		}
	}
}

// WithStore makes the client fold into s instead of a store of its own, e.g.
// one whose initial view was folded from a recording.
func WithStore(s *store.Store) Option { return func(c *config) { c.store = s } }

// WithStopOnViolation makes a run stop at the first rejected event: the run
// is marked failed and Run returns the *reducer.Violation.
func WithStopOnViolation() Option { return func(c *config) { c.stop = true } }

// WithRunner makes the client use r to reach the agent instead of the SSE or
// WebSocket transport for its URL: for example a transport configured by
// hand, or a recorded stream in tests.
func WithRunner(r transport.Runner) Option { return func(c *config) { c.runner = r } }

// New returns a client for the agent at url.
func New(url string, opts ...Option) *Client {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	c := &Client{url: url, store: cfg.store, stop: cfg.stop, runner: cfg.runner, journal: cfg.journal, journalErr: cfg.journalErr}
	if c.store == nil {
		c.store = store.New(nil)
	}
	if c.runner == nil {
		if cfg.websocket {
			c.runner = transport.NewWebSocket(url, &cfg.topts)
		} else {
			c.runner = transport.NewSSE(url, &cfg.topts)
		}
	}
	return c
}

// URL returns the agent's URL.
func (c *Client) URL() string { return c.url }

// Store returns the store the client folds into. Subscribe to it to watch
// runs live.
func (c *Client) Store() *store.Store { return c.store }

// Close closes the client's store (stopping its subscribers). It does not
// affect a store given with WithStore.
func (c *Client) Close() { c.store.Close() }

// Run starts a run with input and folds its events into the store until the
// stream ends, then returns the final view.
//
// The view starts from the history input sends (docs/protocol.md G15): before
// anything is sent, input is folded into the store (reducer.Input), so its
// messages are the view's messages, in order, each owned as its
// subagentRunId says, and the stream folds onto them as the reference
// client's messages evolve. A view that already holds the conversation
// (earlier runs of this Client) has its messages replaced by input's as a
// MESSAGES_SNAPSHOT would (client-only activity kept): send the history
// back, as NextInput and Continue do, to continue the thread.
//
// input may leave RunID empty (a random UUID is used), ThreadID empty (the
// view's thread, else a random UUID), ProtocolVersion nil ("1.0"), State nil
// (the view's state: {} for a new client, as the reference sends it) and
// ForwardedProps nil ({}); input is not modified. Run refuses, before
// anything is sent and with the view unchanged, an input whose history
// holds two messages with one id (*reducer.InputError) or whose resume
// entries do not answer the thread's pending interrupts as CheckResume
// requires (*InterruptError). See the package documentation for how a run
// ends and what Run returns.
func (c *Client) Run(ctx context.Context, input *event.RunAgentInput) (*view.View, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.run(ctx, c.prepare(input))
}

// Continue runs the next turn of the conversation the client holds: the
// input NextInput(view, opts) builds from the client's latest view (the
// history, the state, opts.Messages such as the user's next message, and the
// answers opts.Answer gives the pending interrupts), then Run.
func (c *Client) Continue(ctx context.Context, opts *InputOptions) (*view.View, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.run(ctx, c.prepare(NextInput(c.store.View(), opts)))
}

// run checks and folds in, then streams its run; the caller holds c.mu.
func (c *Client) run(ctx context.Context, in *event.RunAgentInput) (*view.View, error) {
	if err := CheckResume(c.store.View(), in, time.Now()); err != nil {
		return c.store.View(), err
	}
	events := c.runner.Run
	if c.journal != nil {
		// An input the view refuses must not reach the journal: check it
		// first (reducer.Input is pure), then take the lease and record it.
		if _, err := reducer.Input(c.store.View(), in); err != nil {
			return c.store.View(), err
		}
	}
	rec, err := c.record(ctx, in) // WithJournal: the lease, then the input
	if err != nil {
		return c.store.View(), err
	}
	if rec != nil {
		defer rec.end(ctx, errRunAborted) // when run returns before the end below
		events = func(ctx context.Context, in *event.RunAgentInput) iter.Seq2[event.Event, error] {
			return rec.events(ctx, c.runner, in)
		}
	}
	if err := c.store.Input(in); err != nil {
		return c.store.View(), err
	}
	var runErr error
	for e, err := range events(ctx, in) {
		if err != nil {
			var te *transport.Error
			if errors.As(err, &te) {
				// A fatal transport error is the last value the source yields.
				runErr = err
				break
			}
			// A frame that did not decode (or an unknown type): recorded, and
			// the stream goes on.
			if rerr := c.store.Refuse(err); rerr != nil {
				return c.store.View(), rerr
			}
			if c.stop && c.refused() {
				runErr = lastViolation(c.store.View(), err)
				break
			}
			continue
		}
		if derr := c.store.Dispatch(e); derr != nil {
			var viol *reducer.Violation
			if !errors.As(derr, &viol) {
				// Closed store or a reducer panic: nothing more can be folded.
				return c.store.View(), derr
			}
			if c.stop {
				runErr = derr
				break
			}
		}
	}
	if err := ctx.Err(); err != nil && (runErr == nil || !errors.Is(runErr, err)) {
		// Cancellation decides how the run ended, whatever the transport
		// saw while the connection was being torn down.
		runErr = err
	}
	rec.end(ctx, runErr)
	if err := c.store.End(runErr); err != nil {
		return c.store.View(), err
	}
	if rec != nil {
		c.known = rec.known(c.journal, in.ThreadID, c.store.View())
	}
	if errors.Is(runErr, io.EOF) {
		// A clean end that G18 tolerates: End recorded it as a warning.
		runErr = nil
	}
	return c.store.View(), runErr
}

// refused reports whether the last event folded into the store was refused
// as a violation (not skipped with a warning).
func (c *Client) refused() bool {
	v := c.store.View()
	ds := v.Diagnostics()
	return len(ds) > 0 && ds[len(ds)-1].Kind == view.DiagViolation && ds[len(ds)-1].Index == v.EventCount()-1
}

// lastViolation returns the violation the store recorded last as a
// *reducer.Violation wrapping cause.
func lastViolation(v *view.View, cause error) error {
	ds := v.Diagnostics()
	d := ds[len(ds)-1]
	return fmt.Errorf("%w: %w", &reducer.Violation{Rule: d.Rule, Index: d.Index, Type: d.Type, Message: d.Message}, cause)
}

// prepare returns a copy of input with the ids, protocol version, state
// (the view's, {} for a new one) and forwarded props filled in and nil lists
// made empty, as the reference client sends them.
func (c *Client) prepare(input *event.RunAgentInput) *event.RunAgentInput {
	var in event.RunAgentInput
	if input != nil {
		in = *input
	}
	if in.ThreadID == "" {
		in.ThreadID = c.store.View().Thread()
	}
	if in.ThreadID == "" {
		in.ThreadID = NewID()
	}
	if in.ProtocolVersion == nil {
		in.ProtocolVersion = event.Ptr(ProtocolVersion)
	}
	if in.ForwardedProps == nil {
		in.ForwardedProps = json.RawMessage(`{}`)
	}
	if in.State == nil {
		// The reference always sends its agent's state ({} before any
		// run), and a server with a typed model requires it: absent, the
		// run keeps the view's state (reducer.Input), so that is what goes.
		in.State = c.store.View().State()
	}
	if in.RunID == "" {
		in.RunID = NewID()
	}
	if in.Messages == nil {
		in.Messages = []event.Message{}
	}
	if in.Tools == nil {
		in.Tools = []event.Tool{}
	}
	if in.Context == nil {
		in.Context = []event.Context{}
	}
	return &in
}

// NewID returns a random UUID (version 4), as the reference client mints run
// and thread ids.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
