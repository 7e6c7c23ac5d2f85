package transport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
)

// demoScript is a short run for the examples.
func demoScript() agenttest.Script {
	return agenttest.Events(
		&event.RunStarted{ThreadID: "t1", RunID: "r1"},
		&event.TextMessageStart{MessageID: "m1", Role: event.Ptr(event.RoleAssistant)},
		&event.TextMessageContent{MessageID: "m1", Delta: "Hello"},
		&event.TextMessageEnd{MessageID: "m1"},
		&event.RunFinished{ThreadID: "t1", RunID: "r1"},
	)
}

// Run an agent over SSE: every event of the run, then the end of the stream.
func ExampleNewSSE() {
	srv := agenttest.NewServer(demoScript(), nil)
	defer srv.Close()

	src := transport.NewSSE(srv.URL(), nil)
	for ev, err := range src.Run(context.Background(), &event.RunAgentInput{ThreadID: "t1", RunID: "r1"}) {
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		fmt.Println(ev.EventType())
	}
	// Output:
	// RUN_STARTED
	// TEXT_MESSAGE_START
	// TEXT_MESSAGE_CONTENT
	// TEXT_MESSAGE_END
	// RUN_FINISHED
}

// Run an agent over WebSocket, telling per-event decoding errors (the stream
// goes on) from fatal transport errors (the stream ends).
func ExampleNewWebSocket() {
	srv := agenttest.NewServer(agenttest.Frames(
		[]byte(`{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`),
		[]byte(`{"type":"TEXT_MESSAGE_CONTENT"}`), // messageId and delta are missing
		[]byte(`{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`),
	), &agenttest.Options{Fault: agenttest.CutAfter(2)})
	defer srv.Close()

	src := transport.NewWebSocket(srv.WSURL(), nil)
	for ev, err := range src.Run(context.Background(), nil) {
		var te *transport.Error
		switch {
		case errors.As(err, &te):
			fmt.Printf("fatal at frame %d: %v\n", te.Index, te.Kind)
		case err != nil:
			fmt.Println("skipped a frame that does not decode")
		default:
			fmt.Println(ev.EventType())
		}
	}
	// Output:
	// RUN_STARTED
	// skipped a frame that does not decode
	// fatal at frame 2: read failed
}

// Read a recorded stream; the format is detected. This one stops before its
// run finished, which is reported, never taken for success.
func ExampleRead() {
	recording := `{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
`
	for ev, err := range transport.Read(context.Background(), strings.NewReader(recording), transport.FormatAuto, nil) {
		if errors.Is(err, transport.ErrIncomplete) {
			fmt.Println(err)
			break
		}
		fmt.Println(ev.EventType())
	}
	// Output:
	// RUN_STARTED
	// TEXT_MESSAGE_START
	// transport: read jsonl: frame 2 at byte 118: stream ended before the run finished: run "r1" of thread "t1" (RUN_STARTED at frame 0) has no RUN_FINISHED or RUN_ERROR
}

// Read the raw frames of a recording with their byte offsets.
func ExampleReadFrames() {
	recording := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t1\",\"runId\":\"r1\"}\n\n" +
		": keep-alive\n\n" +
		"data: {\"type\":\"RUN_ERROR\",\"message\":\"boom\"}\n\n"
	for f, err := range transport.ReadFrames(context.Background(), strings.NewReader(recording), transport.FormatSSE, nil) {
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Printf("frame %d at byte %d: %s\n", f.Index, f.Offset, f.Data)
	}
	// Output:
	// frame 0 at byte 0: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
	// frame 1 at byte 73: {"type":"RUN_ERROR","message":"boom"}
}

// The bare event-stream parser, with the WHATWG rules: CR line ends, fields
// in any order, the id persisting across events.
func ExampleParseSSE() {
	stream := "retry: 3000\rid: 7\revent: delta\rdata: line one\rdata: line two\r\rdata: next\r\r"
	d := transport.NewSSEDecoder(strings.NewReader(stream), nil)
	for ev, err := range d.All() {
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Printf("%s id=%s %q\n", ev.Event, ev.ID, ev.Data)
	}
	retry, _ := d.Retry()
	fmt.Println("last id:", d.LastEventID(), "retry:", retry)
	// Output:
	// delta id=7 "line one\nline two"
	// message id=7 "next"
	// last id: 7 retry: 3s
}

// Emit events as a text/event-stream, as a backend-for-frontend does.
func ExampleWriteSSE() {
	transport.WriteSSE(os.Stdout, transport.SSEEvent{Data: `{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`})
	transport.WriteSSE(os.Stdout, transport.SSEEvent{Event: "note", ID: "2", Data: "two\nlines"})
	// Output:
	// data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
	//
	// event: note
	// id: 2
	// data: two
	// data: lines
}

// An idle timeout ends a run whose server has gone quiet: here it sends
// RUN_STARTED, then nothing.
func ExampleOptions_idleTimeout() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t1\",\"runId\":\"r1\"}\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // quiet until the client goes
	}))
	defer srv.Close()

	src := transport.NewSSE(srv.URL, &transport.Options{IdleTimeout: 50 * time.Millisecond})
	for ev, err := range src.Run(context.Background(), nil) {
		if errors.Is(err, transport.KindIdle) {
			var te *transport.Error
			errors.As(err, &te)
			fmt.Println("gave up after", te.Idle, "of silence")
			break
		}
		fmt.Println(ev.EventType())
	}
	// Output:
	// RUN_STARTED
	// gave up after 50ms of silence
}
