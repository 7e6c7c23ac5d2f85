package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileJSONL is a recording whose every value the CLI shows carries what
// a terminal interprets: OSC (retitle the window, OSC 52 writes the
// clipboard), CSI (clear the screen, move the cursor up over earlier lines,
// hide text), a bare CR, C1 controls (U+009B is CSI), a raw 0x9b byte, a
// bidi override. JSON escapes carry them into the decoded strings.
func hostileJSONL() string {
	const (
		osc    = `\u001b]0;pwned\u0007`
		osc52  = `\u001b]52;c;cm0gLXJmIH4=\u0007`
		csi    = `\u001b[2J\u001b[1A`
		c1     = `\u009b31m`
		cr     = `\r\nforged line`
		bidi   = `\u202e`
		rawC1  = "\x9b"
		hidden = `\u001b[8m`
	)
	lines := []string{
		`{"type":"RUN_STARTED","threadId":"t` + osc + `","runId":"r` + c1 + `"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"sa` + csi + `","name":"agent` + osc52 + `","description":"d` + cr + `"}`,
		`{"type":"STEP_STARTED","stepName":"step` + c1 + hidden + `","subagentRunId":"sa` + csi + `"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m` + osc + `","role":"assistant","subagentRunId":"sa` + csi + `"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m` + osc + `","delta":"hello ` + osc52 + rawC1 + `","subagentRunId":"sa` + csi + `"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m` + osc + `","subagentRunId":"sa` + csi + `"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"tc` + cr + `","toolCallName":"tool` + bidi + csi + `","parentMessageId":"m` + osc + `","subagentRunId":"sa` + csi + `"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"tc` + cr + `","delta":"{\"a\":\"` + `\\u001b[31m` + `\"}","subagentRunId":"sa` + csi + `"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"tc` + cr + `","subagentRunId":"sa` + csi + `"}`,
		// Refused: a message nobody started, named by a hostile id.
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"ghost` + osc52 + `","delta":"x"}`,
		// Skipped: an unknown type.
		`{"type":"EVIL` + csi + `","x":1}`,
		// Refused: a line that is not JSON, holding raw controls.
		`{"type":"TEXT_MESSAGE_CONTENT","delta":"` + "\x1b]0;raw\x07\x9b" + `"`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"k` + c1 + `":"v` + bidi + osc + `","raw":"` + rawC1 + `"}}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"sa` + csi + `","outcome":{"type":"error","error":{"message":"sub failed` + osc + `"}}}`,
		`{"type":"RUN_ERROR","message":"boom` + osc52 + cr + `","code":"E` + c1 + `"}`,
	}
	return strings.Join(lines, "\n") + "\n"
}

// assertTerminalSafe fails when out holds a C0 control other than a line
// feed, DEL, a C1 control, a bidi override or a byte that is not UTF-8.
func assertTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	assert.True(t, utf8.ValidString(out), "%s: not UTF-8:\n%q", what, out)
	for i, r := range out {
		bad := (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) || r == '\u202e'
		if bad {
			from, to := max(0, i-60), min(len(out), i+60)
			assert.Fail(t, "a control character reaches the terminal", "%s: %U at byte %d: %q", what, r, i, out[from:to])
			return
		}
	}
}

// TestTerminalSafeOutput runs a hostile recording through every text output
// of the CLI (verify, replay, their --json, watch's lines and --json and
// its standard error, a journal's thread list and attach): none prints a
// control character it received.
func TestTerminalSafeOutput(t *testing.T) {
	rec := hostileJSONL()
	dir := t.TempDir()
	path := filepath.Join(dir, "hostile.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(rec), 0o644))

	check := func(t *testing.T, name string, args []string, stdin []byte) (string, string) {
		code, out, stderr := runCLI(t, stdin, args...)
		assert.NotEqual(t, exitUsage, code, "%s: %s", name, stderr)
		assert.NotEmpty(t, out+stderr, name)
		assertTerminalSafe(t, name+" (stdout)", out)
		assertTerminalSafe(t, name+" (stderr)", stderr)
		return out, stderr
	}
	for _, args := range [][]string{
		{"verify", path},
		{"verify", "--json", path},
		{"replay", path},
		{"replay", "--json", path},
	} {
		t.Run(strings.Join(args[:len(args)-1], " "), func(t *testing.T) {
			out, stderr := check(t, args[0], args, nil)
			// The values are still there, escaped.
			assert.Regexp(t, `(\\x1b|\\u001b)\]52;c;cm0gLXJmIH4=`, out+stderr)
		})
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, l := range strings.Split(strings.TrimSuffix(rec, "\n"), "\n") {
			_, _ = w.Write([]byte("data: " + l + "\n\n"))
		}
	}))
	defer srv.Close()
	dsn := "file:" + filepath.Join(dir, "journal")
	in := filepath.Join(dir, "in.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"threadId":"thread-1","runId":"run-1","messages":[]}`), 0o644))
	next := filepath.Join(dir, "next.json")
	t.Run("watch", func(t *testing.T) {
		check(t, "watch lines", []string{"watch", "--journal", dsn, "--input", in, srv.URL}, nil)
		check(t, "watch --json", []string{"watch", "--json", "--next", next, srv.URL}, nil)
	})
	t.Run("attach", func(t *testing.T) {
		check(t, "attach list", []string{"attach", dsn}, nil)
		check(t, "attach lines", []string{"attach", dsn, "thread-1"}, nil)
		check(t, "attach --json", []string{"attach", "--json", dsn, "thread-1"}, nil)
	})
}
