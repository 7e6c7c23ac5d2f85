package benchwork

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestName covers the file names of workloads and the arguments Stream
// refuses.
func TestName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		profile string
		events  int
		extra   []string
		want    string // "" when an error is expected
		errHas  string
	}{
		{name: "plain", profile: "chat", events: 10000, want: "chat-10000"},
		{name: "one flag", profile: "state", events: 2000, extra: []string{"-state-kb", "100"}, want: "state-2000-state-kb100"},
		{name: "two flags", profile: "swarm", events: 16, extra: []string{"-k", "4", "--depth", "2"}, want: "swarm-16-k4--depth2"},
		{name: "empty profile", profile: "", events: 16, errHas: "profile"},
		{name: "profile with separator", profile: "../chat", events: 16, errHas: "profile"},
		{name: "no events", profile: "chat", events: 0, errHas: "positive"},
		{name: "odd extra", profile: "chat", events: 16, extra: []string{"-k"}, errHas: "pairs"},
		{name: "flag without dash", profile: "swarm", events: 16, extra: []string{"k", "4"}, errHas: "dash"},
		{name: "flag with equals", profile: "swarm", events: 16, extra: []string{"-k=4", "x"}, errHas: "dash"},
		{name: "reserved format", profile: "chat", events: 16, extra: []string{"-format", "sse"}, errHas: "sets it itself"},
		{name: "reserved seed with two dashes", profile: "chat", events: 16, extra: []string{"--seed", "2"}, errHas: "sets it itself"},
		{name: "reserved output", profile: "chat", events: 16, extra: []string{"-o", "x"}, errHas: "sets it itself"},
		{name: "value with space", profile: "swarm", events: 16, extra: []string{"-k", "4 2"}, errHas: "value"},
		{name: "empty value", profile: "swarm", events: 16, extra: []string{"-k", ""}, errHas: "value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := name(c.profile, c.events, c.extra)
			if c.want == "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.errHas)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

// TestLines reads files of various line ends and blank lines.
func TestLines(t *testing.T) {
	t.Parallel()
	longLine := make([]byte, 3<<20) // longer than the reader's buffer
	for i := range longLine {
		longLine[i] = 'a' + byte(i%26)
	}
	cases := []struct {
		name    string
		content string
		want    []string
	}{
		{name: "empty file", content: "", want: nil},
		{name: "blank lines only", content: "\n \n\t\r\n\n", want: nil},
		{name: "final newline", content: "{\"a\":1}\n{\"b\":2}\n", want: []string{`{"a":1}`, `{"b":2}`}},
		{name: "no final newline", content: "{\"a\":1}\n{\"b\":2}", want: []string{`{"a":1}`, `{"b":2}`}},
		{name: "crlf", content: "{\"a\":1}\r\n{\"b\":2}\r\n", want: []string{`{"a":1}`, `{"b":2}`}},
		{name: "blank lines between", content: "\n{\"a\":1}\n\n  \n{\"b\":2}\n\n", want: []string{`{"a":1}`, `{"b":2}`}},
		{name: "inner blanks kept", content: " {\"a\":1} \n", want: []string{` {"a":1} `}},
		{name: "long line", content: "x\n" + string(longLine) + "\ny", want: []string{"x", string(longLine), "y"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "stream.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(c.content), 0o644))
			lines, frames := Lines(t, path), Frames(t, path)
			require.Len(t, lines, len(c.want), "lines")
			require.Len(t, frames, len(c.want), "frames")
			for i, w := range c.want {
				assert.Equal(t, w, string(lines[i]), "line %d", i+1)
				assert.Equal(t, w, string(frames[i]), "frame %d", i+1)
			}
		})
	}
}

// TestLinesOwnCopies checks that appending to or changing one line leaves
// the others alone.
func TestLinesOwnCopies(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "stream.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("ab\ncd\nef\n"), 0o644))
	lines := Lines(t, path)
	require.Len(t, lines, 3)
	for i := range lines {
		assert.Equal(t, len(lines[i]), cap(lines[i]), "line %d is clipped", i+1)
	}
	_ = append(lines[0], 'X', 'Y', 'Z')
	lines[1][0] = 'Q'
	assert.Equal(t, []string{"ab", "Qd", "ef"}, []string{string(lines[0]), string(lines[1]), string(lines[2])})
}

// TestModuleRoot finds the agview module's go.mod.
func TestModuleRoot(t *testing.T) {
	t.Parallel()
	root := ModuleRoot()
	require.NotEmpty(t, root)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	assert.Contains(t, string(mod), "module github.com/agview/agview\n")
	gen, _ := Generator()
	assert.Equal(t, filepath.Join(filepath.Dir(root), "shared", "bench", "gen"), gen)
}

// TestStreamSkipsWithoutGenerator checks that a missing generator skips the
// caller rather than failing it.
func TestStreamSkipsWithoutGenerator(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	reached := false
	ok := t.Run("absent", func(t *testing.T) {
		cache{gen: "", dir: dir}.stream(t, "chat", 16, nil)
		reached = true
	})
	assert.True(t, ok, "the subtest must not fail")
	assert.False(t, reached, "stream must skip the subtest")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written")
}

// TestGenerateFailure checks that a failing generator run reports its output
// and leaves no file behind.
func TestGenerateFailure(t *testing.T) {
	t.Parallel()
	empty, out := t.TempDir(), t.TempDir()
	stream, manifest := filepath.Join(out, "w.jsonl"), filepath.Join(out, "w.manifest.json")
	err := generate(t.Context(), empty, stream, manifest, []string{"-profile", "chat", "-events", "16"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "go run "+empty)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, entries, "no stream, manifest or temporary file left")
}

// TestStream generates tiny workloads into a temporary folder, from parallel
// callers, and checks what they hold. It skips when the generator is absent.
func TestStream(t *testing.T) {
	gen, ok := Generator()
	if !ok {
		t.Skipf("no workload generator at %s", gen)
	}
	t.Parallel()
	cases := []struct {
		name    string
		profile string
		extra   []string
		file    string
	}{
		{name: "chat", profile: "chat", file: "chat-16"},
		{name: "state", profile: "state", extra: []string{"-state-kb", "1"}, file: "state-16-state-kb1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := cache{gen: gen, dir: t.TempDir()}
			paths := make([][2]string, 3)
			t.Run("callers", func(t *testing.T) {
				for i := range paths {
					t.Run("", func(t *testing.T) {
						t.Parallel()
						s, m := w.stream(t, c.profile, 16, c.extra)
						paths[i] = [2]string{s, m}
					})
				}
			})
			want := [2]string{filepath.Join(w.dir, c.file+".jsonl"), filepath.Join(w.dir, c.file+".manifest.json")}
			for i, p := range paths {
				assert.Equal(t, want, p, "paths of caller %d", i)
			}
			entries, err := os.ReadDir(w.dir)
			require.NoError(t, err)
			require.Len(t, entries, 2, "the stream and the manifest, no temporary file")

			lines := Lines(t, want[0])
			require.Len(t, lines, 16, "events")
			var first, last struct{ Type string }
			require.NoError(t, json.Unmarshal(lines[0], &first))
			require.NoError(t, json.Unmarshal(lines[len(lines)-1], &last))
			assert.Equal(t, "RUN_STARTED", first.Type)
			assert.Equal(t, "RUN_FINISHED", last.Type)
			raw, err := os.ReadFile(want[1])
			require.NoError(t, err)
			var m struct{ Events int }
			require.NoError(t, json.Unmarshal(raw, &m))
			assert.Equal(t, 16, m.Events, "manifest's event count")

			// A cached workload is not generated again: with a generator
			// folder that holds no generator, only the cache can answer.
			cs, cm := cache{gen: t.TempDir(), dir: w.dir}.stream(t, c.profile, 16, c.extra)
			assert.Equal(t, want, [2]string{cs, cm}, "paths of the cached workload")
		})
	}
}

func TestWriteThread(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, WriteThread(&a, 100))
	require.NoError(t, WriteThread(&b, 100))
	assert.Equal(t, a.String(), b.String(), "deterministic")
	lines := strings.Split(strings.TrimSuffix(a.String(), "\n"), "\n")
	assert.Len(t, lines, 2+100*3+10*4+2)
	for _, l := range lines {
		assert.True(t, json.Valid([]byte(l)), l)
	}
	assert.Contains(t, lines[3], `"type":"TEXT_MESSAGE_CONTENT"`)
}
