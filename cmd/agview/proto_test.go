package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/transport"
)

// viewShape returns conformance.ViewShape of replay --json's output.
func viewShape(t *testing.T, out string) string {
	s, err := conformance.ViewShape([]byte(out))
	require.NoError(t, err, "%s", out)
	return s
}

// TestConformanceThroughCLIProto records every conformance vector as
// agenttest serves it over protobuf and checks that "replay --json --format
// proto" of the recording, and "replay --json" detecting the format, print
// the view "replay --json" prints for the JSONL recording (up to diagnostic
// wording; conformance.ProtoLossy lists the vectors protobuf cannot carry
// whole), with the same exit status, and that "verify --json" gives the same
// verdict, event count and rejectAt.
func TestConformanceThroughCLIProto(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	require.Len(t, vecs, 178)
	byName := map[string]*conformance.Vector{}
	for _, v := range vecs {
		byName[v.Name] = v
	}
	srv := agenttest.NewServer(agenttest.ScriptFunc(func(in *event.RunAgentInput) iter.Seq[json.RawMessage] {
		return agenttest.Frames(byName[in.ThreadID].Events...).Frames(in)
	}), nil)
	defer srv.Close()
	dir := t.TempDir()
	for _, vec := range vecs {
		t.Run(vec.Name, func(t *testing.T) {
			bin := filepath.Join(dir, vec.Name+".bin")
			require.NoError(t, os.WriteFile(bin, fetchProto(t, srv, vec.Name), 0o644))
			jsonl := writeVector(t, vec)
			wantCode, want, _ := runCLI(t, nil, "replay", "--json", jsonl)
			if _, lossy := conformance.ProtoLossy[vec.Name]; !lossy {
				var wantRep, gotRep verifyReport
				_, out, _ := runCLI(t, nil, "verify", "--json", jsonl)
				require.NoError(t, json.Unmarshal([]byte(out), &wantRep))
				code, out, stderr := runCLI(t, nil, "verify", "--json", bin)
				require.NoError(t, json.Unmarshal([]byte(out), &gotRep), "%s", stderr)
				assert.Equal(t, wantCode, code, "verify: %s", stderr)
				assert.Equal(t, wantRep.Verdict, gotRep.Verdict, "verify")
				assert.Equal(t, wantRep.RejectAt, gotRep.RejectAt, "verify")
				assert.Equal(t, wantRep.Events, gotRep.Events, "verify")
			}
			for _, args := range [][]string{{"--format", "proto", bin}, {bin}} {
				code, got, stderr := runCLI(t, nil, append([]string{"replay", "--json"}, args...)...)
				if why, lossy := conformance.ProtoLossy[vec.Name]; lossy {
					assert.NotEqual(t, viewShape(t, want), viewShape(t, got), "listed as lossy (%s) but folds alike", why)
					continue
				}
				assert.Equal(t, wantCode, code, "%v: stderr: %s", args, stderr)
				assert.JSONEq(t, viewShape(t, want), viewShape(t, got), "%v", args)
			}
		})
	}
}

// fetchProto returns the body of the protobuf answer of srv for the vector
// name: a protobuf recording.
func fetchProto(t *testing.T, srv *agenttest.Server, name string) []byte {
	in, err := json.Marshal(&event.RunAgentInput{ThreadID: name, RunID: "replay"})
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL(), bytes.NewReader(in))
	require.NoError(t, err)
	req.Header.Set("Accept", transport.MediaTypeProto)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, transport.MediaTypeProto, resp.Header.Get("Content-Type"))
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}

// TestEmitRoundTrip converts every vector's JSONL recording to protobuf with
// "replay --emit proto" and back with "replay --emit jsonl": a vector whose
// every frame converts folds, from the protobuf recording, to the view of its
// JSONL (up to diagnostic wording, conformance.ProtoLossy aside); a frame
// with no protobuf form is left out, named on stderr, and the exit status
// is 1.
func TestEmitRoundTrip(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	var whole atomic.Int32
	for _, vec := range vecs {
		t.Run(vec.Name, func(t *testing.T) {
			t.Parallel()
			path := writeVector(t, vec)
			code, bin, stderr := runCLI(t, nil, "replay", "--emit", "proto", path)
			if code != exitOK {
				require.Equal(t, exitRejected, code, "stderr: %s", stderr)
				assert.Contains(t, stderr, "left out")
				return
			}
			whole.Add(1)
			binPath := filepath.Join(t.TempDir(), "run.bin")
			require.NoError(t, os.WriteFile(binPath, []byte(bin), 0o644))
			_, want, _ := runCLI(t, nil, "replay", "--json", path)
			_, got, _ := runCLI(t, nil, "replay", "--json", binPath)
			if _, lossy := conformance.ProtoLossy[vec.Name]; !lossy {
				assert.JSONEq(t, viewShape(t, want), viewShape(t, got))
			}
			code, back, stderr := runCLI(t, []byte(bin), "replay", "--emit", "jsonl", "-")
			require.Equal(t, exitOK, code, "stderr: %s", stderr)
			_, again, _ := runCLI(t, nil, "replay", "--json", writeText(t, back))
			assert.JSONEq(t, viewShape(t, got), viewShape(t, again), "protobuf → JSONL keeps the view")
		})
	}
	t.Cleanup(func() { assert.Greater(t, whole.Load(), int32(150), "most vectors convert whole") })
}

func writeText(t *testing.T, s string) string {
	p := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	return p
}

// TestEmitJSONLOfReferenceRecordings: "replay --emit jsonl" of the streams
// the reference encoder recorded (testdata/proto) gives back the events it
// was given.
func TestEmitJSONLOfReferenceRecordings(t *testing.T) {
	bins, err := filepath.Glob(filepath.Join("..", "..", "testdata", "proto", "*.bin"))
	require.NoError(t, err)
	require.NotEmpty(t, bins)
	for _, bin := range bins {
		code, out, stderr := runCLI(t, nil, "replay", "--emit", "jsonl", bin)
		require.Equal(t, exitOK, code, "%s: %s", bin, stderr)
		want, err := os.ReadFile(strings.TrimSuffix(bin, ".bin") + ".jsonl")
		require.NoError(t, err)
		wl, gl := lines(string(want)), lines(out)
		require.Len(t, gl, len(wl), bin)
		for i := range wl {
			w, err := event.Decode([]byte(wl[i]))
			require.NoError(t, err)
			g, err := event.Decode([]byte(gl[i]))
			require.NoError(t, err, "%s line %d: %s", bin, i, gl[i])
			wj, _ := event.Encode(w)
			gj, _ := event.Encode(g)
			assert.JSONEq(t, string(wj), string(gj), "%s line %d", bin, i)
		}
	}
}

func lines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// TestEmitErrors: what --emit refuses.
func TestEmitErrors(t *testing.T) {
	path := writeText(t, `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`+"\n")
	code, _, stderr := runCLI(t, nil, "replay", "--emit", "xml", path)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--emit "xml": want jsonl or proto`)
	code, _, stderr = runCLI(t, nil, "replay", "--emit", "proto", "--json", path)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "exclude each other")
	bad := writeText(t, "\x00\x00\x00\x09\x12\x07p")
	code, _, stderr = runCLI(t, nil, "replay", "--emit", "jsonl", bad)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "ended mid-frame")
	code, _, stderr = runCLI(t, nil, "replay", "--format", "proto", bad)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "ended mid-frame")
}
