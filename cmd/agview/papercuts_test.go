package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
