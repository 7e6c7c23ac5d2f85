// Package transport is where AG-UI events come from: a live agent over SSE
// (or the protobuf framing the same request can negotiate) or WebSocket, or a
// recorded stream (JSON Lines, SSE text, a JSON array, protobuf frames). It
// frames the bytes, enforces size limits, decodes each frame with
// event.Decode (event.DecodeProto for a protobuf frame) and says how the
// stream ended. It does not interpret events
// beyond decoding them: verifying and folding is the reducer's job.
//
// # Sources
//
//	src := transport.NewSSE("http://localhost:8000/agent", nil)   // or NewWebSocket("ws://…", nil)
//	for ev, err := range src.Run(ctx, input) { … }
//
//	for ev, err := range transport.ReadFile(ctx, "run.jsonl", transport.FormatAuto, nil) { … }
//
// SSE and WebSocket implement Runner. Read and ReadFile read recorded streams
// with the format given or detected. Each source also has a Frames variant
// (SSE.Frames, WebSocket.Frames, ReadFrames, ReadFileFrames) that yields the
// raw frames with their index and byte offset, undecoded. ParseSSE and
// SSEDecoder are the bare WHATWG event-stream parser; WriteSSE, AppendSSE and
// AppendSSEData its encoder (used by agenttest, and by a backend that re-emits
// events). DetectFormat and ParseFormat serve a command line's --format.
//
// # The iterator contract
//
// Every source yields (event.Event, error) pairs, one per frame, in stream
// order, so the position of a pair is the event's index:
//
//   - (ev, nil): the frame decoded.
//   - (ev, err) with err an *event.DecodeError or *event.UnknownTypeError (ev
//     as event.Decode returned it, usually nil): that frame did not decode. The
//     stream goes on; a consumer records the error and continues.
//   - (nil, err) with err a *Error: a fatal failure (request, HTTP status,
//     content type, I/O, size limit, framing, cancellation). It is the last
//     pair; the iteration ends. Error.Index is the index of the frame being
//     read, Error.Offset the byte offset where known.
//
// A stream that ends cleanly after its last run's RUN_FINISHED or RUN_ERROR
// ends the iteration with no error. A stream that ends cleanly otherwise (the
// last RUN_STARTED has no terminal event, or no run at all) ends with a
// KindIncomplete *Error (errors.Is(err, transport.ErrIncomplete)): an
// incomplete run is never reported as success. A stream that ends inside a
// frame ends with KindTruncated.
//
// An SSE stream (live or recorded) may end not quite as the format says,
// and docs/protocol.md G18 tolerates it, as the reference client does: a last
// event without its blank line (or its last line without a line ending) is
// dispatched when its data is one complete JSON value; a last line that holds
// no data (a comment, a stray field, junk) is ignored. Such a stream, its
// last run finished, ends with a KindUnterminated *Error saying what was
// tolerated. It is not a failure: it matches io.EOF (errors.Is), and
// reducer.End (store.Store.End) records it as a warning and ends the view
// as for a clean end. An SSE event whose data is empty (a bare "data" line)
// is yielded as (nil, event.ErrEmpty), which consumers skip with a warning.
//
// Breaking out of the loop early releases everything (the HTTP response, the
// WebSocket connection, the file). The iterators are single-use with respect
// to their input: iterating a Run again makes a new request.
//
// # SSE
//
// A run is one POST of the RunAgentInput as JSON, with Accept:
// text/event-stream (Options.Encoding can ask for protobuf instead; an Accept
// in Options.Header is sent as given). The answer must be 2xx (else
// KindStatus, with the status and a bounded excerpt of the body) and
// text/event-stream or application/vnd.ag-ui.event+proto, whatever was asked
// (else KindContentType, naming the Content-Type received). An
// event-stream body is parsed by the WHATWG rules (LF, CRLF and CR
// line ends, a leading BOM, comments, multi-line data, event, id, retry);
// each dispatched event's data is one frame, whatever its event type. The
// last event id is kept as a cursor (SSE.LastEventID). Unlike the reference
// TypeScript client, which splits on "\n\n" only, CRLF and CR streams are
// accepted.
//
// Options.Header (an API key, Authorization) is for the agent's origin only.
// Redirects are followed as net/http follows them, with two guards: a
// redirect to another origin (scheme, host or port) is sent without
// Options.Header and without the credential headers (Authorization,
// Proxy-Authorization, Cookie), and a redirect from https to http is never
// followed (KindConnect, wrapping ErrInsecureRedirect).
//
// # Protobuf framing
//
// AG-UI's binary encoding (docs/protocol.md §2.4), media type
// application/vnd.ag-ui.event+proto: each frame is a 4-byte big-endian length
// and one ag_ui.Event message, decoded with event.DecodeProto into the same
// events as JSON. Options.Encoding asks for it over HTTP:
// EncodingPreferProto sends Accept: application/vnd.ag-ui.event+proto,
// text/event-stream;q=0.5 and EncodingProto the protobuf type alone; the
// reference server encoder (@ag-ui/encoder@1.0.0) answers in protobuf
// whenever the Accept admits it, as AcceptsProto tells. A length over
// Options.MaxEventBytes is refused from its four bytes (KindLimit), before
// anything is allocated for the frame; a stream that ends inside a length or
// a message ends with KindTruncated. Frame.Proto marks a protobuf frame.
//
// # WebSocket framing
//
// AG-UI defines no WebSocket framing; agview's is:
//
//  1. The client connects (Options.Header goes with the handshake) and sends
//     the RunAgentInput JSON as its first text message.
//  2. Each later text message from the server is exactly one event's JSON. A
//     binary message is a protocol error (the client closes with 1003).
//  3. After the run's last event the server closes with 1000 (normal
//     closure). 1000, 1001 and a close frame without a code end the stream
//     cleanly; any other close code is a KindClosed error carrying it, and a
//     connection lost without a close frame is a KindIO error.
//  4. Messages larger than Options.MaxEventBytes are refused: the client
//     closes with 1009 and the stream ends with KindLimit.
//  5. The client pings every Options.PingInterval and ends the stream with
//     KindIO when nothing (message or pong) arrives for PingInterval +
//     PongTimeout. Servers answer pings, as gorilla/websocket does by default.
//     The client answers the server's pings; a pong (or a ping) that cannot
//     be written within PongTimeout, because the peer does not read, ends the
//     stream with a KindIO error that says so.
//  6. The handshake follows no redirect.
//  7. A client that stops early closes with 1000; one whose context is
//     canceled closes with 1001.
//
// # Recorded streams
//
// FormatJSONL is one event per line (blank lines skipped, CRLF accepted, the
// last line may lack its LF); FormatSSE the text/event-stream format;
// FormatJSONArray a JSON array of events, streamed element by element so that
// memory stays bounded by the largest event; FormatProto protobuf frames (the
// body of an application/vnd.ag-ui.event+proto answer). FormatAuto detects
// the format from the first significant byte (a zero byte is a protobuf
// frame's length).
//
// # Limits
//
// Options.MaxEventBytes (default 8 MiB) bounds one event in every format: a
// peer that sends a gigabyte without a line break is stopped at the limit
// with a KindLimit error, having used memory proportional to the limit.
//
// Options.IdleTimeout (off by default) bounds how long a live source waits
// for a sign of life: a server that sends RUN_STARTED and then nothing, or
// trickles bytes without completing a line, ends the stream with a KindIdle
// error (Error.Idle holds the timeout) instead of holding the caller
// forever. SSE comments (keep-alives) and WebSocket pings from the server
// count as activity. A context deadline bounds the whole run instead.
//
// # Concurrency
//
// SSE and WebSocket values are safe for concurrent use: each Run is an
// independent request with its own state. An iterator must be consumed by
// one goroutine: that goroutine is the only one that reads the connection,
// file or reader. A WebSocket run adds one goroutine that sends pings; it is
// stopped and waited for before the iteration returns, as is the function
// that closes the connection when the context is canceled. With an
// IdleTimeout, a timer cancels the request or closes the connection when it
// fires; it is stopped before the iteration returns. The events
// yielded own their data and may be passed to other goroutines. An
// SSEDecoder is not safe for concurrent use.
package transport
