// Package agenttest is an in-process AG-UI agent for tests and demos, as
// net/http/httptest is for HTTP: a Server on a loopback port plays a Script
// for every run, over SSE and over WebSocket, and can misbehave on demand.
//
//	srv := agenttest.NewServer(agenttest.Events(
//		&event.RunStarted{ThreadID: "t1", RunID: "r1"},
//		&event.RunFinished{ThreadID: "t1", RunID: "r1"},
//	), nil)
//	defer srv.Close()
//	for ev, err := range transport.NewSSE(srv.URL(), nil).Run(ctx, input) { … }
//
// # Scripts
//
// A Script yields the frames of a run, each one event's JSON exactly as it goes
// on the wire; a frame need not be a valid event. Events encodes events, Frames
// plays raw frames, Vector and VectorFile play a conformance vector's events
// verbatim, ScriptFunc turns a generator into a Script (it sees the run's
// RunAgentInput), and Swarm generates the demo swarm of subagents.
//
// # Wire
//
// SSE: POST a RunAgentInput to URL(); the answer is text/event-stream with one
// "data:" field per frame (a frame holding line breaks takes several data
// lines), flushed frame by frame. Protobuf: when the request's Accept admits
// application/vnd.ag-ui.event+proto (with q above 0, through a wildcard too:
// transport.AcceptsProto, as the reference encoder decides), the answer is the
// protobuf framing instead, each frame as a 4-byte big-endian length and one
// ag_ui.Event; a frame's JSON is carried field by field, so a frame protobuf
// cannot express reaches the client as the nearest thing it can (see
// Server). WebSocket: connect to WSURL(), send the
// RunAgentInput as a text message; each frame comes as one text message, then
// a close with code 1000 — the framing package transport defines. Every input
// received is recorded (Server.Inputs).
//
// # Faults
//
// Options.Fault injects one failure: a connection cut after N frames
// (CutAfter), garbage bytes after N frames (GarbageAfter), an oversized event
// (OversizeAfter), an HTTP error answer (Status) or a wrong content type
// (ContentType); Options.Delay slows every frame down. Each gives a client a
// distinct typed error (see package transport's Error kinds).
//
// # Concurrency
//
// A Server serves any number of concurrent runs, each on its own goroutine,
// and its methods may be called from any goroutine. A Script may be played by
// several runs at once, so its Frames must be safe for concurrent use (those
// of this package are). Close waits for every goroutine the server started.
package agenttest
