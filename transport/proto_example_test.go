package transport_test

import (
	"context"
	"fmt"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
)

// An SSE source that asks for the protobuf framing; agenttest, like the
// reference encoder, answers in protobuf whenever the Accept admits it.
func ExampleEncoding() {
	srv := agenttest.NewServer(agenttest.Events(
		&event.RunStarted{ThreadID: "t1", RunID: "r1"},
		&event.TextMessageContent{MessageID: "m1", Delta: "Hello"},
		&event.RunFinished{ThreadID: "t1", RunID: "r1"},
	), nil)
	defer srv.Close()
	src := transport.NewSSE(srv.URL(), &transport.Options{Encoding: transport.EncodingPreferProto})
	for ev, err := range src.Run(context.Background(), nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ev.EventType())
	}
	// Output:
	// RUN_STARTED
	// TEXT_MESSAGE_CONTENT
	// RUN_FINISHED
}

func ExampleAcceptsProto() {
	for _, accept := range []string{"text/event-stream", "*/*", "text/event-stream, application/vnd.ag-ui.event+proto;q=0.1", ""} {
		fmt.Printf("%q: %v\n", accept, transport.AcceptsProto(accept))
	}
	// Output:
	// "text/event-stream": false
	// "*/*": true
	// "text/event-stream, application/vnd.ag-ui.event+proto;q=0.1": true
	// "": false
}
