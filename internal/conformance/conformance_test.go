package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoad(t *testing.T) {
	vs, err := Load()
	require.NoError(t, err)
	assert.Len(t, vs, 178, "the shared suite has 178 vectors")
	for _, v := range vs {
		assert.NotEmpty(t, v.Events, v.Name)
		assert.Contains(t, []string{"accept", "reject"}, v.Expect.Verdict, v.Name)
		if v.Accept() {
			assert.Nil(t, v.Expect.RejectAt, v.Name)
		} else {
			require.NotNil(t, v.Expect.RejectAt, v.Name)
			assert.Less(t, *v.Expect.RejectAt, len(v.Events), v.Name)
		}
	}
}

func TestJSONL(t *testing.T) {
	vs, err := Load()
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimSuffix(vs[0].JSONL(), []byte("\n")), []byte("\n"))
	require.Len(t, lines, len(vs[0].Events))
	for i, l := range lines {
		assert.JSONEq(t, string(vs[0].Events[i]), string(l))
	}
}

// TestCopyMatchesShared fails when testdata/conformance differs from the
// shared folder it was copied from (when that folder exists beside the module).
func TestCopyMatchesShared(t *testing.T) {
	shared, ok := SharedDir()
	if !ok {
		t.Skip("no ../shared/conformance beside the module: nothing to compare")
	}
	sameFiles(t, shared, Dir(), "vectors")
	a, err := os.ReadFile(filepath.Join(shared, "..", "README.md"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(Dir(), "..", "README.md"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(a, b), "conformance README differs from the shared copy")
}

// sameFiles fails unless the folder copy holds exactly the files of shared,
// byte for byte.
func sameFiles(t *testing.T, shared, copy, what string) {
	t.Helper()
	want, err := os.ReadDir(shared)
	require.NoError(t, err)
	got, err := os.ReadDir(copy)
	require.NoError(t, err)
	require.Equal(t, names(want), names(got), "the copied %s must be the shared ones", what)
	for _, e := range want {
		a, err := os.ReadFile(filepath.Join(shared, e.Name()))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(copy, e.Name()))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(a, b), "%s/%s differs from the shared copy: copy it again", what, e.Name())
	}
}

func names(es []os.DirEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestCheckFinal(t *testing.T) {
	v := &Vector{Expect: Expect{
		Verdict:           "accept",
		Messages:          []byte(`[{"id":"<minted-uuid-1>","role":"reasoning","content":"x"},{"id":"m1","role":"assistant","content":"hi"}]`),
		State:             []byte(`{"a":1}`),
		PendingInterrupts: []byte(`[]`),
	}}
	tests := []struct {
		name                     string
		messages, state, pending string
		diffs                    int
	}{
		{"equal, minted id by content", `[{"id":"u-42","role":"reasoning","content":"x"},{"role":"assistant","content":"hi","id":"m1"}]`, `{"a":1}`, `[]`, 0},
		{"minted content differs", `[{"id":"u-42","role":"reasoning","content":"y"},{"id":"m1","role":"assistant","content":"hi"}]`, `{"a":1}`, `[]`, 1},
		{"extra key", `[{"id":"u","role":"reasoning","content":"x"},{"id":"m1","role":"assistant","content":"hi","name":"n"}]`, `{"a":1}`, `[]`, 1},
		{"state and pending differ", `[{"id":"u","role":"reasoning","content":"x"},{"id":"m1","role":"assistant","content":"hi"}]`, `{"a":2}`, `null`, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := v.CheckFinal([]byte(tc.messages), []byte(tc.state), []byte(tc.pending))
			assert.Len(t, d, tc.diffs, "%v", d)
		})
	}
}

func TestLoadClient(t *testing.T) {
	vs, err := LoadClient()
	require.NoError(t, err)
	assert.Len(t, vs, 97, "the shared suite has 97 client vectors")
	resumed := 0
	for _, v := range vs {
		assert.NotEmpty(t, v.Events, v.Name)
		assert.JSONEq(t, string(v.History), string(v.Expect.SentInput.Messages), "%s: the client sends its history", v.Name)
		var in map[string]any
		require.NoError(t, json.Unmarshal(v.Input(), &in), v.Name)
		assert.Equal(t, ClientThreadID, in["threadId"], v.Name)
		if v.Resumed() {
			resumed++
			assert.NotEqual(t, "[]", string(v.Expect.PendingInterrupts), v.Name)
		}
	}
	assert.Positive(t, resumed, "some vectors leave interrupts pending")
}

// TestClientCopyMatchesShared fails when testdata/conformance/client differs
// from the shared folder it was copied from (when that folder exists).
func TestClientCopyMatchesShared(t *testing.T) {
	shared, ok := SharedClientDir()
	if !ok {
		t.Skip("no ../shared/conformance/client beside the module: nothing to compare")
	}
	sameFiles(t, shared, ClientDir(), "client")
}

func TestCheckInput(t *testing.T) {
	want := `{"threadId":"t","runId":"next-run","tools":[],"messages":[{"id":"<minted-uuid-1>","role":"reasoning","content":"x"}]}`
	tests := []struct {
		name  string
		got   string
		diffs int
	}{
		{"equal, key order aside, minted id by content", `{"messages":[{"content":"x","role":"reasoning","id":"u-1"}],"tools":[],"runId":"next-run","threadId":"t"}`, 0},
		{"a key too many", `{"threadId":"t","runId":"next-run","tools":[],"messages":[{"id":"u","role":"reasoning","content":"x"}],"resume":[]}`, 1},
		{"a key missing", `{"threadId":"t","runId":"next-run","messages":[{"id":"u","role":"reasoning","content":"x"}]}`, 1},
		{"a value and a message differ", `{"threadId":"u","runId":"next-run","tools":[],"messages":[{"id":"u","role":"reasoning","content":"y"}]}`, 2},
		{"not an object", `[]`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := CheckInput("nextInput", []byte(want), []byte(tc.got))
			assert.Len(t, d, tc.diffs, "%v", d)
		})
	}
}
