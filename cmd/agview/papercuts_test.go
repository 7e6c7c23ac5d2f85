package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerifyVectorFile: verify on one of the project's own conformance
// vectors (a JSON object with "events") printed an E3 per line of the
// object; now it checks the vector's events and says so in one line. An
// object that is neither an event nor a vector is one line of error.
func TestVerifyVectorFile(t *testing.T) {
	vec := filepath.Join("..", "..", "testdata", "conformance", "vectors", "08-par-parent-and-subagent-concurrent-messages.json")
	code, out, stderr := runCLI(t, nil, "verify", vec)
	assert.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "ok: 11 events\n", out)
	assert.Equal(t, 1, strings.Count(stderr, "\n"))
	assert.Contains(t, stderr, "a conformance vector (08-par-parent-and-subagent-concurrent-messages): reading its 11 events")

	code, out, stderr = runCLI(t, nil, "replay", "--json", vec)
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, `"runs"`)

	obj := filepath.Join(t.TempDir(), "input.json")
	require.NoError(t, os.WriteFile(obj, []byte("{\n  \"threadId\": \"t\",\n  \"messages\": []\n}\n"), 0o644))
	code, out, stderr = runCLI(t, nil, "verify", obj)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.Contains(t, stderr, "neither an event")

	// One event on one line is still a recording of one event.
	one := filepath.Join(t.TempDir(), "one.jsonl")
	require.NoError(t, os.WriteFile(one, []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`+"\n"), 0o644))
	code, out, _ = runCLI(t, nil, "verify", one)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "ok: 1 events\nwarnings (1):\n  end of stream after 1 events: G12: the stream ended while run 'r' (thread 't') was running; the run never finished\n", out)
}

// TestFormatMismatch: --format jsonl on an SSE file refused every line with
// an E3 and no hint; now it is one error that says what the file looks
// like.
func TestFormatMismatch(t *testing.T) {
	sse := filepath.Join("testdata", "producer-warnings.sse")
	for _, args := range [][]string{{"verify"}, {"verify", "--json"}, {"replay"}} {
		code, out, stderr := runCLI(t, nil, append(args, "--format", "jsonl", sse)...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %s", args, stderr)
		assert.Contains(t, stderr, "the file looks like sse; leave out --format to detect it (or give --format sse)")
		assert.NotContains(t, out, "E3")
	}
	code, _, stderr := runCLI(t, nil, "verify", "--format", "sse", sse)
	assert.Equal(t, exitOK, code, stderr)
}

// TestWatchListsRejected: watch said "N events rejected (agview replay or
// verify on a recording shows them)", naming a recording it never made; now
// it lists them.
func TestWatchListsRejected(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, l := range []string{
			`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"ghost","delta":"x"}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		} {
			_, _ = w.Write([]byte("data: " + l + "\n\n"))
		}
	}))
	defer srv.Close()
	for _, args := range [][]string{{"watch"}, {"watch", "--json"}} {
		code, _, stderr := runCLI(t, nil, append(args, srv.URL)...)
		assert.Equal(t, exitRejected, code)
		assert.NotContains(t, stderr, "recording")
		assert.Contains(t, stderr, "agview: run r: 1 event rejected:\nagview:   event 1 (TEXT_MESSAGE_CONTENT): V7: no text message 'ghost' is in progress")
	}
}

// TestDemoServe: there was no agent to try watch on; demo --serve serves
// the demo agent and prints its URL, which watch runs.
func TestDemoServe(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r, w := io.Pipe()
	done := make(chan int, 1)
	go func() {
		e := &env{stdin: bytes.NewReader(nil), stdout: w, stderr: io.Discard}
		done <- e.dispatch(ctx, []string{"demo", "--serve", "--speed", "0"})
		w.Close()
	}()
	first, err := bufio.NewReader(r).ReadString('\n')
	require.NoError(t, err)
	go io.Copy(io.Discard, r)
	m := regexp.MustCompile(`serving at (http://\S+) `).FindStringSubmatch(first)
	require.NotNil(t, m, first)

	code, out, stderr := runCLI(t, nil, "watch", "--json", m[1])
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, `"invocations"`)

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code)
	case <-time.After(10 * time.Second):
		t.Fatal("demo --serve does not stop when interrupted")
	}

	code, _, stderr = runCLI(t, nil, "demo", "--serve", "--json")
	assert.Equal(t, exitUsage, code, stderr)
}

// TestDidYouMean: a mistyped command printed the usage; now it names the
// command meant.
func TestDidYouMean(t *testing.T) {
	for typed, want := range map[string]string{
		"veryfi": "verify", "reply": "replay", "wtach": "watch", "attahc": "attach", "dmeo": "demo", "explian": "explain", "rep": "replay",
	} {
		code, _, stderr := runCLI(t, nil, typed, "x")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, fmt.Sprintf("unknown command %q; did you mean %q?", typed, want))
	}
	code, _, stderr := runCLI(t, nil, "frobnicate")
	assert.Equal(t, exitUsage, code)
	assert.NotContains(t, stderr, "did you mean")
	assert.Contains(t, stderr, "Commands:", "the usage, when nothing is close")
}
