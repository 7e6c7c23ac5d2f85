package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/conformance"
)

// TestHelpOnce checks that every command's --help prints its help once, on
// standard output, and exits 0.
func TestHelpOnce(t *testing.T) {
	for _, c := range commands() {
		for _, flag := range []string{"--help", "-h"} {
			t.Run(c.name+flag, func(t *testing.T) {
				code, out, errOut := runCLI(t, nil, c.name, flag)
				assert.Equal(t, exitOK, code)
				assert.Empty(t, errOut, "help goes to standard output only")
				assert.Equal(t, 1, strings.Count(out, "Usage: agview "+c.name), "help printed once:\n%s", out)
			})
		}
	}
}

// TestBadFlagPointsToHelp checks that a wrong flag prints the error and one
// line pointing to --help, not the whole help.
func TestBadFlagPointsToHelp(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, c.name, "--frobnicate")
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			require.Len(t, lines, 2, errOut)
			assert.Contains(t, lines[0], "flag provided but not defined: -frobnicate")
			assert.Equal(t, fmt.Sprintf(`Run "agview %s --help" for usage.`, c.name), lines[1])
		})
	}
}

const (
	runStarted  = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
	runFinished = `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// TestUnusableRecordings checks that a recording that holds no events, or no
// run, fails a CI gate (exit 2) with a message saying what was found, and
// that with --json every outcome is one JSON object.
func TestUnusableRecordings(t *testing.T) {
	jsonl := runStarted + "\n" + runFinished + "\n"
	tests := []struct {
		name    string
		content string
		args    []string
		stderr  string
	}{
		{"empty file", "", nil, "no events: read 0 bytes"},
		{"white space", "\n\n  \n", nil, "no events: read 5 bytes"},
		{"jsonl read as sse", jsonl, []string{"--format", "sse"}, "as sse; is it another format? (leave out --format to detect it)"},
		{"no run", `{"type":"NOT_A_TYPE"}` + "\n", nil, "no run: 1 events, none of them started a run (RUN_STARTED)"},
		{"event over the limit", runStarted + "\n", []string{"--max-event-bytes", "10"}, "raise the limit with --max-event-bytes"},
	}
	for _, tc := range tests {
		path := writeFile(t, "rec.jsonl", tc.content)
		for _, cmd := range []string{"verify", "replay"} {
			t.Run(cmd+" "+tc.name, func(t *testing.T) {
				code, out, errOut := runCLI(t, nil, append([]string{cmd, path}, tc.args...)...)
				assert.Equal(t, exitUsage, code, "stdout %q stderr %q", out, errOut)
				assert.Empty(t, out)
				assert.Contains(t, errOut, tc.stderr)
				assert.Contains(t, errOut, path)

				code, out, errOut = runCLI(t, nil, append([]string{cmd, "--json", path}, tc.args...)...)
				assert.Equal(t, exitUsage, code)
				var got map[string]any
				require.NoError(t, json.Unmarshal([]byte(out), &got), "one JSON object on stdout: %q", out)
				assert.Equal(t, "error", got["verdict"])
				assert.Contains(t, got["error"], tc.stderr)
				assert.Len(t, got, 2)
				assert.Contains(t, errOut, tc.stderr)
			})
		}
	}
	t.Run("missing file --json", func(t *testing.T) {
		code, out, _ := runCLI(t, nil, "verify", "--json", filepath.Join(t.TempDir(), "nope.jsonl"))
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, out, `"verdict":"error"`)
		assert.Contains(t, out, "nope.jsonl")
	})
}

// TestLinesNamed checks that text output names the 1-based line of a
// line-based recording, JSON keeps the 0-based index, a line that is not
// JSON is an event (not the end of the stream), and the type of a broken
// event is kept when its bytes name one.
func TestLinesNamed(t *testing.T) {
	content := strings.Join([]string{
		runStarted,
		"",
		`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}`,
		`this is not json`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		runFinished,
	}, "\n") + "\n"
	path := writeFile(t, "rec.jsonl", content)

	code, out, errOut := runCLI(t, nil, "verify", path)
	assert.Equal(t, exitRejected, code)
	lines := strings.Split(out, "\n")
	require.GreaterOrEqual(t, len(lines), 3, out)
	assert.Regexp(t, `^line 4: event 2: E3: `, lines[0], "the line that is not JSON is event 2, line 4")
	assert.NotContains(t, lines[0], "(byte 0)")
	assert.NotContains(t, out, "end of stream")
	assert.Regexp(t, `^line 5: event 3 \(TEXT_MESSAGE_CONTENT\): E3: `, lines[1], "the type of a broken event is kept")
	assert.Equal(t, "rejected: 2 of 6 events", lines[2])
	assert.Contains(t, errOut, "first: line 4: event 2: E3")

	_, out, _ = runCLI(t, nil, "verify", "--json", path)
	var rep struct {
		RejectAt   int
		Violations []struct {
			Index int
			Line  int
			Type  string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, 2, rep.RejectAt, "rejectAt stays the 0-based event index")
	require.Len(t, rep.Violations, 2)
	assert.Equal(t, 4, rep.Violations[0].Line)
	assert.Equal(t, "TEXT_MESSAGE_CONTENT", rep.Violations[1].Type)

	// SSE: the line where the event's block begins.
	sse := "data: " + runStarted + "\n\n: a comment\ndata: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"x\"}\n\ndata: " + runFinished + "\n\n"
	code, out, _ = runCLI(t, []byte(sse), "verify", "-")
	assert.Equal(t, exitRejected, code)
	assert.Regexp(t, `^line 3: event 1 \(TEXT_MESSAGE_END\): V7: `, out)

	// A JSON array is not line-based: no line is named.
	arr := "[" + runStarted + ",\n{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"x\"},\n" + runFinished + "]"
	_, out, _ = runCLI(t, []byte(arr), "verify", "-")
	assert.Regexp(t, `^event 1 \(TEXT_MESSAGE_END\): V7: `, out)
}

// TestReplayListsRejected checks that replay says which events it refused.
func TestReplayListsRejected(t *testing.T) {
	content := runStarted + "\n" + `{"type":"TEXT_MESSAGE_END","messageId":"x"}` + "\n" + runFinished + "\n"
	path := writeFile(t, "rec.jsonl", content)
	code, out, errOut := runCLI(t, nil, "replay", path)
	assert.Equal(t, exitRejected, code)
	assert.NotEmpty(t, out, "the view is printed")
	assert.Contains(t, errOut, path+": line 2: event 1 (TEXT_MESSAGE_END): V7: ")
	assert.Contains(t, errOut, "1 of 3 events rejected")
}

// TestWatchURLs checks that a URL watch cannot use is a usage error, and
// that a connection failing before any event says so.
func TestWatchURLs(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"ftp://example.com/agent"}, `want a http:// or https:// URL`},
		{[]string{"ws://127.0.0.1:1/agent"}, "add --ws for a WebSocket agent"},
		{[]string{"--ws", "http://127.0.0.1:1/agent"}, "leave out --ws"},
		{[]string{"localhost:8000"}, "want a http:// or https:// URL"},
	} {
		code, _, errOut := runCLI(t, nil, append([]string{"watch"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Contains(t, errOut, tc.stderr, tc.args)
	}

	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	url := "http://" + addr + "/agent"
	code, _, errOut := runCLI(t, nil, "watch", url)
	assert.Equal(t, exitRejected, code)
	assert.Contains(t, errOut, "could not connect to "+url)
	assert.NotContains(t, errOut, "after the last run ended")
}

// TestProgress checks that a large input read with standard error on a
// terminal shows progress, and that the line is cleared at the end.
func TestProgress(t *testing.T) {
	var b strings.Builder
	b.WriteString(runStarted + "\n")
	for i := range 2000 {
		fmt.Fprintf(&b, `{"type":"CUSTOM","name":"n%d","value":1}`+"\n", i)
	}
	b.WriteString(runFinished + "\n")
	path := writeFile(t, "big.jsonl", b.String())
	var out, errb strings.Builder
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, stderrTerminal: true, progressMin: 1}
	code := e.dispatch(t.Context(), []string{"verify", path})
	assert.Equal(t, exitOK, code)
	assert.Contains(t, errb.String(), "agview: "+path+": ")
	assert.Contains(t, errb.String(), "events/s")
	assert.True(t, strings.HasSuffix(errb.String(), "\r\x1b[K"), "the progress line is cleared: %q", errb.String())
	assert.Equal(t, "ok: 2002 events\n", out.String())

	// Not a terminal, or a small input: nothing.
	errb.Reset()
	e = &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, progressMin: 1, progressEvery: time.Millisecond}
	e.dispatch(t.Context(), []string{"verify", path})
	assert.Empty(t, errb.String())
	e = &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, stderrTerminal: true, progressMin: 1 << 30}
	e.dispatch(t.Context(), []string{"verify", path})
	assert.Empty(t, errb.String())
}

// TestExplain checks "agview explain": the list, one rule, and an unknown id.
func TestExplain(t *testing.T) {
	code, out, _ := runCLI(t, nil, "explain")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "R15  A continuation agrees with its opener's owner\n")
	assert.Contains(t, out, "V7   TEXT_MESSAGE_CONTENT and END need an open message\n")

	code, out, _ = runCLI(t, nil, "explain", "r15")
	assert.Equal(t, exitOK, code)
	for _, want := range []string{
		"R15: A continuation agrees with its opener's owner",
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi","subagentRunId":"sub-2"}`,
		"agview rejects the last event:",
		"line 3: event 2 (TEXT_MESSAGE_CONTENT): R15: subagentRunId 'sub-2' does not match",
		"Fix: ",
	} {
		assert.Contains(t, out, want)
	}

	code, _, errOut := runCLI(t, nil, "explain", "R99")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `no rule "R99"`)
}

// TestExplainCoversVerify checks that every rule verify prints for the
// conformance vectors can be explained.
func TestExplainCoversVerify(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, vec := range vecs {
		path := writeVector(t, vec)
		_, out, _ := runCLI(t, nil, "verify", "--json", path)
		var rep verifyReport
		require.NoError(t, json.Unmarshal([]byte(out), &rep))
		for _, d := range append(rep.Violations, rep.Warnings...) {
			if seen[d.Rule] {
				continue
			}
			seen[d.Rule] = true
			code, _, errOut := runCLI(t, nil, "explain", d.Rule)
			assert.Equal(t, exitOK, code, "%s (from %s): %s", d.Rule, vec.Name, errOut)
		}
	}
}

// TestBadFlagValues: a bad flag value is a usage error (exit 2) naming the
// flag, a negative --max-event-bytes included (it meant the default
// silently), and with --json it is one JSON object on standard output too,
// wherever --json stands.
func TestBadFlagValues(t *testing.T) {
	path := writeFile(t, "rec.jsonl", runStarted+"\n"+runFinished+"\n")
	for _, args := range [][]string{
		{"verify", "--max-event-bytes", "-5", path},
		{"replay", "--max-event-bytes=x", path},
		{"verify", "--json", "--bogus", path},
		{"replay", "--bogus", "--json", path},
		{"verify", "--max-event-bytes", "-1", "--json", path},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, args...)
			assert.Equal(t, exitUsage, code, "stdout %q stderr %q", out, errOut)
			assert.Contains(t, errOut, "--help")
			if !slices.Contains(args, "--json") {
				assert.Empty(t, out)
				return
			}
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &got), "one JSON object on stdout: %q", out)
			assert.Equal(t, "error", got["verdict"])
		})
	}
}

// TestDemoPlain checks that the demo off a terminal ends with the parent's
// answer and the run's outcome, and that --speed is checked.
func TestDemoPlain(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "demo", "--speed", "0")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	assert.Equal(t, "run demo-run interrupted: 1 interrupt awaiting an answer (approval-0dd15648 from researcher sa-0dd15648)", last)
	i := slices.Index(lines, "agent says:")
	require.Positive(t, i, "the parent's answer comes before the outcome:\n%s", out)
	assert.Contains(t, lines[i+1], "Short answer: yes")

	for _, bad := range []string{"-1", "NaN", "x"} {
		code, _, errOut := runCLI(t, nil, "demo", "--speed", bad)
		assert.Equal(t, exitUsage, code, bad)
		assert.NotEmpty(t, errOut)
	}
	code, out, _ = runCLI(t, nil, "demo", "--seed", "7", "--json")
	assert.Equal(t, exitOK, code)
	assert.True(t, json.Valid([]byte(out)))
}

// TestWatchFallsBackToLines checks that when the terminal UI cannot run (no
// controlling terminal), watch shows the run as plain lines instead of
// cancelling it and calling that a failed connection.
func TestWatchFallsBackToLines(t *testing.T) {
	if f, err := os.Open("/dev/tty"); err == nil {
		f.Close()
		t.Skip("a controlling terminal is there: the UI would take it over")
	}
	var out, errb strings.Builder
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, isTerminal: true}
	code := e.dispatch(t.Context(), []string{"demo", "--speed", "0"})
	assert.Equal(t, exitOK, code, errb.String())
	assert.Contains(t, errb.String(), "terminal UI: ")
	assert.Contains(t, errb.String(), "showing plain lines instead")
	assert.NotContains(t, errb.String(), "could not connect")
	assert.Contains(t, out.String(), "run demo-run interrupted")
}
