package event

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const examplesFile = "testdata/protocol-examples.jsonl"

// TestProtocolExamples decodes every example event of PROTOCOL.md §3 and
// checks that it re-encodes to an equal JSON value.
func TestProtocolExamples(t *testing.T) {
	lines := readLines(t, examplesFile)
	require.Len(t, lines, 32, "31 event types of the release plus the deprecated THINKING_TEXT_MESSAGE_CONTENT")
	seen := map[Type]bool{}
	for _, line := range lines {
		e, err := Decode([]byte(line))
		require.NoError(t, err, line)
		seen[e.EventType()] = true
		b, err := Encode(e)
		require.NoError(t, err, line)
		assert.JSONEq(t, line, string(b), "re-encoding %s", e.EventType())
		assertRoundTrip(t, e)
	}
	for _, ty := range Types() {
		if !ty.Deprecated() {
			assert.True(t, seen[ty], "§3 has an example of %s", ty)
		}
	}
}

// specExample is a backticked event object in PROTOCOL.md.
var specExample = regexp.MustCompile("`(\\{\"type\":.*?\\})`")

// TestProtocolExamplesMatchSpec fails when testdata/protocol-examples.jsonl
// differs from the examples of §3 of the shared PROTOCOL.md, when the shared
// folder exists beside the module.
func TestProtocolExamplesMatchSpec(t *testing.T) {
	spec, err := os.ReadFile(filepath.Join("..", "..", "shared", "spec", "PROTOCOL.md"))
	if os.IsNotExist(err) {
		t.Skip("no ../shared/spec/PROTOCOL.md beside the module: nothing to compare")
	}
	require.NoError(t, err)
	s := string(spec)
	start := strings.Index(s, "## 3. Event catalogue")
	end := strings.Index(s, "## 4. Chunk shorthand")
	require.True(t, start >= 0 && end > start, "PROTOCOL.md still has §3 and §4")
	var want []string
	for _, m := range specExample.FindAllStringSubmatch(s[start:end], -1) {
		want = append(want, m[1])
	}
	assert.Equal(t, want, readLines(t, examplesFile), "copy §3's examples again into %s", examplesFile)
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	require.NoError(t, sc.Err())
	return out
}
