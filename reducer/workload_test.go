package reducer_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// The benchmark workloads come from the project's shared generator through
// internal/benchwork, which caches them under testdata/bench/ at the module
// root (git ignores it); tests and benchmarks that need them skip when the
// generator is absent (a clone of the repository alone has none).

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
			stream, manifest := benchwork.Stream(t, profile, 10000)
			v := view.New()
			for i, l := range benchwork.Lines(t, stream) {
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
