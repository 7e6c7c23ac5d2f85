package reducer_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// The benchmark workloads come from the project's shared generator
// (../shared/bench/gen beside the module). They are generated on first use
// into testdata/bench/reducer/ at the module root, which git ignores; tests and
// benchmarks that need them skip when the generator is absent (a clone of the
// repository alone has none).

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

var genMu sync.Mutex

// workload returns the path of a generated stream and of its manifest.
func workload(tb testing.TB, profile string, events int, extra ...string) (stream, manifest string) {
	tb.Helper()
	gen := filepath.Join(moduleRoot(), "..", "shared", "bench", "gen")
	if _, err := os.Stat(filepath.Join(gen, "main.go")); err != nil {
		tb.Skipf("benchmark generator not found at %s", gen)
	}
	dir := filepath.Join(moduleRoot(), "testdata", "bench", "reducer")
	require.NoError(tb, os.MkdirAll(dir, 0o755))
	name := fmt.Sprintf("%s-%d", profile, events)
	for i := 0; i+1 < len(extra); i += 2 {
		name += fmt.Sprintf("%s%s", extra[i], extra[i+1])
	}
	stream = filepath.Join(dir, name+".jsonl")
	manifest = filepath.Join(dir, name+".manifest.json")
	genMu.Lock()
	defer genMu.Unlock()
	if _, err := os.Stat(manifest); err == nil {
		return stream, manifest
	}
	args := append([]string{"run", ".", "-q", "-profile", profile, "-events", fmt.Sprint(events), "-seed", "1",
		"-o", stream + ".tmp", "-manifest", manifest + ".tmp"}, extra...)
	cmd := exec.Command("go", args...)
	cmd.Dir = gen
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	require.NoError(tb, err, "generating %s: %s", name, out)
	require.NoError(tb, os.Rename(stream+".tmp", stream))
	require.NoError(tb, os.Rename(manifest+".tmp", manifest))
	return stream, manifest
}

// lines reads a JSONL file into one slice per event.
func lines(tb testing.TB, path string) [][]byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	require.NoError(tb, err)
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		out = append(out, bytes.Clone(sc.Bytes()))
	}
	require.NoError(tb, sc.Err())
	return out
}

// decodeAll decodes every line; the workloads hold only valid events.
func decodeAll(tb testing.TB, raw [][]byte) []event.Event {
	tb.Helper()
	out := make([]event.Event, len(raw))
	for i, l := range raw {
		e, err := event.Decode(l)
		require.NoError(tb, err, "line %d", i+1)
		out[i] = e
	}
	return out
}

type manifestDoc struct {
	Events       int           `json:"events"`
	MessageCount int           `json:"messageCount"`
	StateLen     int           `json:"stateLen"`
	StateFNV     uint32        `json:"stateFnv"`
	Messages     []manifestMsg `json:"messages"`
}

type manifestMsg struct {
	ID         string `json:"id"`
	Role       string `json:"role"`
	Sub        string `json:"sub"`
	Len        int    `json:"len"`
	FNV        uint32 `json:"fnv"`
	ToolCallID string `json:"toolCallId"`
	ToolCalls  []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Len  int    `json:"len"`
		FNV  uint32 `json:"fnv"`
	} `json:"toolCalls"`
}

func fnv32a(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// checkManifest asserts that a view holds what the generator's manifest says
// a correct consumer ends with.
func checkManifest(t testing.TB, v *view.View, manifest string) {
	b, err := os.ReadFile(manifest)
	require.NoError(t, err)
	var m manifestDoc
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, m.MessageCount, v.MessageCount(), "message count")
	state := v.State()
	assert.Equal(t, m.StateLen, len(state), "state length")
	assert.Equal(t, m.StateFNV, fnv32a(state), "state hash")
	for _, want := range m.Messages {
		got, ok := v.Message(want.ID)
		if !assert.True(t, ok, "message %s is missing", want.ID) {
			continue
		}
		assert.Equal(t, want.Role, string(got.Role), "message %s role", want.ID)
		sub := ""
		if got.Subagent != nil {
			sub = *got.Subagent
		}
		assert.Equal(t, want.Sub, sub, "message %s subagentRunId", want.ID)
		if want.Len < 0 {
			assert.Nil(t, got.Content, "message %s has no content", want.ID)
		} else {
			var s string
			require.NoError(t, json.Unmarshal(got.Content, &s), "message %s content", want.ID)
			assert.Equal(t, want.Len, len(s), "message %s content length", want.ID)
			assert.Equal(t, want.FNV, fnv32a([]byte(s)), "message %s content hash", want.ID)
		}
		require.Len(t, got.ToolCalls, len(want.ToolCalls), "message %s tool calls", want.ID)
		for i, tc := range want.ToolCalls {
			assert.Equal(t, tc.ID, got.ToolCalls[i].ID)
			assert.Equal(t, tc.Name, got.ToolCalls[i].Function.Name)
			assert.Equal(t, tc.Len, len(got.ToolCalls[i].Function.Arguments), "tool call %s arguments length", tc.ID)
			assert.Equal(t, tc.FNV, fnv32a([]byte(got.ToolCalls[i].Function.Arguments)), "tool call %s arguments hash", tc.ID)
		}
	}
}

// TestWorkloads folds the generated chat and swarm streams and checks the
// result against the generator's manifest.
func TestWorkloads(t *testing.T) {
	for _, profile := range []string{"chat", "swarm"} {
		t.Run(profile, func(t *testing.T) {
			stream, manifest := workload(t, profile, 10000)
			v := view.New()
			for i, l := range lines(t, stream) {
				var err error
				v, err = reducer.FoldJSON(v, l)
				require.NoError(t, err, "event %d", i)
			}
			assert.Zero(t, v.ViolationCount())
			checkManifest(t, v, manifest)
			r, ok := v.LastRun()
			require.True(t, ok)
			assert.Equal(t, view.RunFinished, r.Status)
		})
	}
}

func envSet(name string) bool { return os.Getenv(name) != "" }
