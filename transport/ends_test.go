package transport_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
)

const (
	endStarted  = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
	endFinished = `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	endText     = `{"type":"TEXT_MESSAGE_START","messageId":"m"}`
)

// endCases are SSE streams whose end PROTOCOL.md G18 decides.
var endCases = []struct {
	name   string
	in     string
	events int            // events yielded (decoded or not)
	kind   transport.Kind // of the final error; 0: none
	note   string         // in the final error's text
}{
	{name: "clean", in: "data: " + endStarted + "\n\ndata: " + endFinished + "\n\n", events: 2},
	{name: "last event without its blank line", in: "data: " + endStarted + "\n\ndata: " + endFinished + "\n",
		events: 2, kind: transport.KindUnterminated, note: "has no blank line after it; dispatched"},
	{name: "last event without its line ending", in: "data: " + endStarted + "\n\ndata: " + endFinished,
		events: 2, kind: transport.KindUnterminated, note: "has no line ending; dispatched"},
	{name: "CRLF, last event without its blank line", in: "data: " + endStarted + "\r\n\r\ndata: " + endFinished + "\r\n",
		events: 2, kind: transport.KindUnterminated, note: "dispatched"},
	{name: "multi-line data without the blank line", in: "data: " + endStarted + "\n\ndata: {\"type\":\"RUN_FINISHED\",\ndata: \"threadId\":\"t\",\"runId\":\"r\"}",
		events: 2, kind: transport.KindUnterminated, note: "dispatched"},
	{name: "junk after the run ended", in: "data: " + endStarted + "\n\ndata: " + endFinished + "\n\ngarbage",
		events: 2, kind: transport.KindUnterminated, note: "holds no data; ignored"},
	{name: "comment after the run ended", in: "data: " + endStarted + "\n\ndata: " + endFinished + "\n\n: bye",
		events: 2, kind: transport.KindUnterminated, note: "holds no data; ignored"},
	{name: "stray data field after the run ended", in: "data: " + endStarted + "\n\ndata: " + endFinished + "\n\ndata",
		events: 2, kind: transport.KindUnterminated, note: "its data is empty; ignored"},
	{name: "NULs after the run ended", in: "data: " + endStarted + "\n\ndata: " + endFinished + "\n\n\x00\x00\x00",
		events: 2, kind: transport.KindUnterminated, note: "holds no data; ignored"},
	{name: "last data not one JSON value", in: "data: " + endStarted + "\n\ndata: {\"type\":\"RUN_FINISHED\"",
		events: 1, kind: transport.KindTruncated},
	{name: "two JSON values are not one", in: "data: " + endStarted + "\n\ndata: {}{}",
		events: 1, kind: transport.KindTruncated},
	{name: "mid-run: dispatched, then incomplete", in: "data: " + endStarted + "\n\ndata: " + endText,
		events: 2, kind: transport.KindIncomplete, note: "has no line ending; dispatched"},
	{name: "mid-run junk: incomplete", in: "data: " + endStarted + "\n\ngarbage",
		events: 1, kind: transport.KindIncomplete, note: "holds no data; ignored"},
	{name: "empty-data event skipped", in: "data: " + endStarted + "\n\ndata\n\ndata: " + endFinished + "\n\n", events: 3},
}

func checkEnd(t *testing.T, name, in string, got collected, events int, kind transport.Kind, note string) {
	t.Helper()
	assert.Len(t, got.events, events, "%s: events yielded", name)
	if kind == 0 {
		assert.NoError(t, got.fatal, "%s", name)
		return
	}
	var te *transport.Error
	require.ErrorAs(t, got.fatal, &te, "%s: want a %v error", name, kind)
	assert.Equal(t, kind, te.Kind, "%s: %v", name, te)
	assert.Equal(t, events, te.Index, "%s: the error's index", name)
	assert.Contains(t, te.Error(), note, "%s", name)
	assert.Equal(t, kind == transport.KindUnterminated, errors.Is(te, io.EOF),
		"%s: only a tolerated end matches io.EOF: %v", name, te)
}

func TestSSEStreamEnds(t *testing.T) {
	t.Parallel()
	for _, tc := range endCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := collect(transport.Read(t.Context(), strings.NewReader(tc.in), transport.FormatSSE, nil))
			checkEnd(t, tc.name, tc.in, got, tc.events, tc.kind, tc.note)
			for i, err := range got.errs {
				if strings.Contains(tc.name, "empty-data") && i == 1 {
					assert.ErrorIs(t, err, event.ErrEmpty, "the empty-data event is an empty frame")
					continue
				}
				assert.NoError(t, err, "event %d", i)
			}
			if tc.kind == transport.KindUnterminated {
				last := got.events[len(got.events)-1]
				require.NotNil(t, last)
				assert.Equal(t, event.TypeRunFinished, last.EventType())
			}
		})
	}
}

// TestSSEStreamEndsOverHTTP serves each case from an HTTP server that writes
// it in random pieces, flushing each: the end decides the same way whatever
// the write boundaries.
func TestSSEStreamEndsOverHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range endCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(8) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					rng := rand.New(rand.NewPCG(seed, 7))
					b := []byte(tc.in)
					for len(b) > 0 {
						n := min(len(b), 1+rng.IntN(24))
						_, _ = w.Write(b[:n])
						w.(http.Flusher).Flush()
						b = b[n:]
					}
				}))
				got := collect(transport.NewSSE(srv.URL, nil).Run(context.Background(), &event.RunAgentInput{ThreadID: "t", RunID: "r"}))
				srv.Close()
				checkEnd(t, tc.name, tc.in, got, tc.events, tc.kind, tc.note)
			}
		})
	}
}

// TestSSEFramesEnd: the frames of a stream with a tolerated end end with the
// KindUnterminated error too (agview replay reads frames).
func TestSSEFramesEnd(t *testing.T) {
	t.Parallel()
	in := "data: " + endStarted + "\n\ndata: " + endFinished + "\n\n: bye"
	var frames int
	var last error
	for f, err := range transport.ReadFrames(t.Context(), bytes.NewReader([]byte(in)), transport.FormatSSE, nil) {
		if err != nil {
			last = err
			break
		}
		frames++
		assert.Equal(t, frames-1, f.Index)
	}
	assert.Equal(t, 2, frames)
	require.ErrorIs(t, last, transport.KindUnterminated)
	assert.ErrorIs(t, last, io.EOF)
}

// TestSSEDecoderStaysStrict: the bare WHATWG parser still reports a stream
// that ends inside an event as truncated; only the AG-UI sources are lenient.
func TestSSEDecoderStaysStrict(t *testing.T) {
	t.Parallel()
	d := transport.NewSSEDecoder(strings.NewReader("data: "+endFinished+"\n"), nil)
	_, err := d.Next()
	require.ErrorIs(t, err, transport.KindTruncated)
}
