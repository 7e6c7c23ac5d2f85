package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/conformance"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// runCLI runs the command in-process with the given standard input and
// returns its exit code, standard output and standard error.
func runCLI(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(t.Context(), args, bytes.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// writeVector writes the vector's events as a JSONL file and returns its path.
func writeVector(t *testing.T, v *conformance.Vector) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), v.Name+".jsonl")
	require.NoError(t, os.WriteFile(p, v.JSONL(), 0o644))
	return p
}

// TestConformanceThroughCLI runs every shared vector through "verify --json"
// and "replay --json", from a file and from standard input in all three
// recorded formats, and checks the verdict, rejectAt, messages, state and
// pendingInterrupts the library test checks.
func TestConformanceThroughCLI(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	for _, vec := range vecs {
		t.Run(vec.Name, func(t *testing.T) {
			t.Parallel()
			path := writeVector(t, vec)
			code, out, stderr := runCLI(t, nil, "verify", "--json", path)
			var rep verifyReport
			require.NoError(t, json.Unmarshal([]byte(out), &rep), "verify --json output: %s\nstderr: %s", out, stderr)
			assert.Equal(t, vec.Expect.Verdict, rep.Verdict, "verdict (violations %v)", rep.Violations)
			assert.Equal(t, len(vec.Events), rep.Events, "events")
			if vec.Accept() {
				assert.Equal(t, exitOK, code)
				assert.Nil(t, rep.RejectAt)
			} else {
				assert.Equal(t, exitRejected, code)
				if assert.NotNil(t, rep.RejectAt) {
					assert.Equal(t, *vec.Expect.RejectAt, *rep.RejectAt, "rejectAt")
				}
				if vec.Expect.Rule != "" {
					assert.Equal(t, vec.Expect.Rule, rep.Rule, "rule")
				}
				assert.Contains(t, stderr, path, "stderr names the file")
			}

			for _, src := range inputsOf(t, vec, path) {
				code, out, stderr = runCLI(t, src.stdin, append([]string{"replay", "--json"}, src.args...)...)
				if vec.Accept() {
					require.Equal(t, exitOK, code, "%s: stderr: %s", src.name, stderr)
				} else {
					require.Equal(t, exitRejected, code, "%s: stderr: %s", src.name, stderr)
					continue
				}
				var form struct {
					Messages          json.RawMessage `json:"messages"`
					State             json.RawMessage `json:"state"`
					PendingInterrupts json.RawMessage `json:"pendingInterrupts"`
				}
				require.NoError(t, json.Unmarshal([]byte(out), &form), "%s: replay --json output", src.name)
				for _, d := range vec.CheckFinal(form.Messages, form.State, form.PendingInterrupts) {
					t.Errorf("%s: %s", src.name, d)
				}
			}
		})
	}
}

type input struct {
	name  string
	args  []string
	stdin []byte
}

// inputsOf returns the vector as a JSONL file, and on standard input as JSONL,
// as SSE text and as a JSON array (each detected, and each named by --format).
func inputsOf(t *testing.T, vec *conformance.Vector, path string) []input {
	var sse bytes.Buffer
	for _, e := range vec.Events {
		var c bytes.Buffer
		require.NoError(t, json.Compact(&c, e))
		sse.WriteString("data: ")
		sse.Write(c.Bytes())
		sse.WriteString("\n\n")
	}
	arr, err := json.Marshal(vec.Events)
	require.NoError(t, err)
	return []input{
		{"file", []string{path}, nil},
		{"stdin jsonl", []string{"-"}, vec.JSONL()},
		{"stdin sse", []string{"-"}, sse.Bytes()},
		{"stdin sse --format", []string{"--format", "sse", "-"}, sse.Bytes()},
		{"stdin json array", []string{"-"}, arr},
		{"stdin json array --format", []string{"-", "--format", "json"}, arr},
	}
}

// TestGolden checks the text and JSON output of verify and replay on a few
// vectors against golden files (go test -update rewrites them).
func TestGolden(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	byName := map[string]*conformance.Vector{}
	for _, v := range vecs {
		byName[v.Name] = v
	}
	names := []string{
		"15-large-supervisor-five-researchers",
		"15-large-suspend-resume-two-runs",
		"15-large-attribution-only-five-producers",
		"09-term-run-error-with-open-invocations",
		"05-own-text-content-mismatch",
		"12-state-delta-unknown-op",
		"01-plain-truncated-stream-no-run-finished",
	}
	for _, name := range names {
		vec := byName[name]
		require.NotNil(t, vec, name)
		path := writeVector(t, vec)
		for _, cmd := range [][]string{{"verify"}, {"verify", "--json"}, {"replay"}, {"replay", "--json"}} {
			file := name + "." + strings.ReplaceAll(strings.Join(cmd, ""), "--", "-") + ".golden"
			t.Run(file, func(t *testing.T) {
				_, out, _ := runCLI(t, nil, append(cmd, path)...)
				golden(t, file, out)
			})
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "missing golden file: run go test ./cmd/agview -run TestGolden -update")
	assert.Equal(t, string(want), got, "output differs from %s (go test -update rewrites it)", p)
}

func TestUsageAndErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.txt")
	require.NoError(t, os.WriteFile(garbage, []byte("this is not an event stream\x00\x01"), 0o644))
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no command", nil, exitUsage, "", "Usage:"},
		{"help", []string{"--help"}, exitOK, "Commands:", ""},
		{"unknown command", []string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{"verify help", []string{"verify", "--help"}, exitOK, "Examples:", ""},
		{"replay help", []string{"replay", "-h"}, exitOK, "--json", ""},
		{"verify no file", []string{"verify"}, exitUsage, "", "want exactly one FILE"},
		{"verify two files", []string{"verify", "a", "b"}, exitUsage, "", "want exactly one FILE"},
		{"verify missing file", []string{"verify", filepath.Join(dir, "nope.jsonl")}, exitUsage, "", "nope.jsonl"},
		{"verify bad flag", []string{"verify", "--frob", "x"}, exitUsage, "", "flag provided but not defined"},
		{"verify bad format", []string{"verify", "--format", "xml", "x"}, exitUsage, "", "xml"},
		{"verify garbage", []string{"verify", garbage}, exitUsage, "", "garbage.txt"},
		{"replay missing file", []string{"replay", "--json", filepath.Join(dir, "nope.jsonl")}, exitUsage, "", "nope.jsonl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, tc.args...)
			assert.Equal(t, tc.code, code, "exit code; stdout %q stderr %q", out, errOut)
			assert.Contains(t, out, tc.stdout)
			assert.Contains(t, errOut, tc.stderr)
		})
	}
}

func TestVerifyTextFormat(t *testing.T) {
	stream := strings.Join([]string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"a"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","subagentRunId":"b"}`,
		`{"type":"NOT_A_TYPE"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
	}, "\n")
	code, out, errOut := runCLI(t, []byte(stream), "verify", "-")
	assert.Equal(t, exitRejected, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.GreaterOrEqual(t, len(lines), 3, out)
	assert.Regexp(t, `^line 3: event 2 \(TEXT_MESSAGE_CONTENT\): R15: .*'b'.*'m'.*'a'`, lines[0])
	assert.Equal(t, "rejected: 1 of 6 events", lines[1])
	assert.Contains(t, out, "warnings (2):")
	assert.Contains(t, out, "event 1 (TEXT_MESSAGE_START): R12: subagent 'a' has not been announced")
	assert.Contains(t, out, "event 3 (NOT_A_TYPE)")
	assert.Contains(t, errOut, "standard input")

	code, out, _ = runCLI(t, []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`+"\n"), "verify", "-")
	assert.Equal(t, exitOK, code, "a stream that ends mid-run is accepted with a warning (G12)")
	assert.True(t, strings.HasPrefix(out, "ok: 1 events\n"), out)
	assert.Contains(t, out, "warnings (1):")
}

func TestContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"verify", "-"}, strings.NewReader(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`), &out, &errb)
	assert.Equal(t, exitUsage, code, "a cancelled read is unusable input: %s", errb.String())
}

// TestIsTerminalDevNull checks that /dev/null, a character device, is not
// taken for a terminal: "agview watch URL > /dev/null" would open the
// terminal UI on it, fail, and cancel the run.
func TestIsTerminalDevNull(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("isTerminal(%s) = true", os.DevNull)
	}
}
