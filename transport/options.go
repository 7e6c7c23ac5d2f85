package transport

import (
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// Defaults applied to zero fields of Options.
const (
	// DefaultMaxEventBytes is the default limit on one event: 8 MiB.
	DefaultMaxEventBytes = 8 << 20
	// DefaultPingInterval is how often a WebSocket source pings its peer.
	DefaultPingInterval = 30 * time.Second
	// DefaultPongTimeout is how long a WebSocket source waits, after a
	// ping is due, for any sign of life before it gives up.
	DefaultPongTimeout = 10 * time.Second
	// DefaultIdleTimeout is the idle timeout (Options.IdleTimeout) that
	// agview's CLI gives a live run when none is asked for (agview watch
	// --idle-timeout): 15 minutes, one and a half times the 10 minutes the
	// common model SDKs (OpenAI's, Anthropic's) give a request by default,
	// so that an agent silent while it waits on a model has heard back or
	// has given up, and said so, before the run is cut; a dead agent no
	// longer holds a script for ever. Options.IdleTimeout's zero value
	// still means no idle timeout: a program chooses its own.
	DefaultIdleTimeout = 15 * time.Minute
)

// Options configure a source. A nil *Options means all defaults. Sources copy
// the struct (and clone Header) when they are created, so the caller may reuse
// or change it afterwards.
type Options struct {
	// MaxEventBytes bounds one event: an SSE event's data plus the line
	// being read, a JSONL line, a JSON-array element, a WebSocket message.
	// Exceeding it ends the stream with a KindLimit error; memory stays
	// bounded by it. 0 means DefaultMaxEventBytes.
	MaxEventBytes int

	// HTTPClient sends the SSE request. nil means http.DefaultClient. Its
	// Timeout, if any, bounds the whole stream; prefer a context deadline or
	// IdleTimeout. The source uses a copy of it whose CheckRedirect guards
	// redirects (see Header); the caller's CheckRedirect still runs after
	// that guard.
	HTTPClient *http.Client

	// Header holds extra request headers, sent with the SSE POST and the
	// WebSocket handshake (e.g. Authorization or an API key). Content-Type
	// of the SSE request is always set by the source; an Accept here is sent
	// as given, in place of the one Encoding asks for.
	//
	// The headers go to the agent's origin only. When the server redirects
	// the SSE request to another origin (another scheme, host or port),
	// these headers and the credential headers (Authorization,
	// Proxy-Authorization, Cookie) are removed before the redirect is
	// followed; a redirect from https to http is never followed (the request
	// fails with a KindConnect error wrapping ErrInsecureRedirect). A
	// WebSocket handshake follows no redirect at all.
	Header http.Header

	// Encoding is what the SSE request asks the agent for (its Accept
	// header): EncodingSSE (the zero value) text/event-stream,
	// EncodingPreferProto or EncodingProto the protobuf framing. The answer
	// is decoded by its Content-Type whatever was asked.
	Encoding Encoding

	// Dialer opens WebSocket connections. nil means websocket.DefaultDialer.
	Dialer *websocket.Dialer

	// PingInterval is how often a WebSocket source sends a ping. 0 means
	// DefaultPingInterval; a negative value disables pings and the read
	// deadline that goes with them.
	PingInterval time.Duration

	// PongTimeout is how long, beyond PingInterval, a WebSocket source waits
	// for a message or a pong before it ends the stream with a KindIO error.
	// It also bounds the write of each ping and of each pong answering the
	// peer's pings: a peer that does not read them (a ping flood) ends the
	// stream with a KindIO error that says so. 0 means DefaultPongTimeout.
	PongTimeout time.Duration

	// IdleTimeout ends a stream with a KindIdle error when the server shows
	// no activity for that long, from the request on: a server that sends
	// RUN_STARTED and then nothing, or trickles bytes, no longer holds the
	// caller forever. Over SSE, activity is the response headers and every
	// complete line (an event's lines, a comment such as a keep-alive, a
	// blank line); bytes that do not complete a line are not. Over WebSocket,
	// it is every complete message and every ping from the server; the pongs
	// answering the source's own pings are not (they show the connection is
	// up, not that the agent is working). 0 means no idle timeout.
	IdleTimeout time.Duration
}

// resolve returns a copy of o with defaults filled in.
func (o *Options) resolve() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.MaxEventBytes <= 0 {
		r.MaxEventBytes = DefaultMaxEventBytes
	}
	if r.HTTPClient == nil {
		r.HTTPClient = http.DefaultClient
	}
	r.Header = r.Header.Clone()
	if r.Dialer == nil {
		r.Dialer = websocket.DefaultDialer
	}
	if r.PingInterval == 0 {
		r.PingInterval = DefaultPingInterval
	}
	if r.PongTimeout <= 0 {
		r.PongTimeout = DefaultPongTimeout
	}
	return r
}
