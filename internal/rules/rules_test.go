package rules

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md")

// TestExamples checks every rule's example: a rule that rejects rejects the
// last event under its own id, a rule that warns warns under its id, a rule
// that accepts accepts, and nothing before the last event is rejected.
func TestExamples(t *testing.T) {
	for _, r := range All() {
		t.Run(r.ID, func(t *testing.T) {
			require.NotEmpty(t, r.Example)
			require.NotEmpty(t, r.Title)
			require.NotEmpty(t, r.Text)
			require.NotEmpty(t, r.Fix)
			o := Fold(r)
			for _, d := range o.Earlier {
				assert.NotEqual(t, "violation", string(d.Kind), "an event before the last was rejected: %v", d)
			}
			if r.Accepts {
				assert.False(t, o.Rejected, "an accepting rule's example is accepted: %v", o.Says)
				return
			}
			id := r.ID
			if r.ReportedAs != "" {
				id = r.ReportedAs
			}
			found := false
			for _, s := range o.Says {
				if strings.Contains(s, ": "+id+": ") {
					found = true
				}
			}
			assert.True(t, found, "the example's last event is reported under %s; agview says %q", id, o.Says)
		})
	}
}

// TestTable checks the ids: unique, in the documented families, and every
// R1–R28, V1–V17 and E1–E4 present.
func TestTable(t *testing.T) {
	var ids []string
	for _, r := range All() {
		assert.NotContains(t, ids, r.ID, "duplicate id")
		ids = append(ids, r.ID)
		got, ok := Lookup(strings.ToLower(r.ID))
		assert.True(t, ok)
		assert.Equal(t, r.ID, got.ID)
	}
	for _, fam := range []struct {
		p string
		n int
	}{{"R", 28}, {"V", 17}, {"E", 4}} {
		for i := 1; i <= fam.n; i++ {
			id := fam.p + itoa(i)
			assert.Contains(t, ids, id)
		}
	}
	_, ok := Lookup("R99")
	assert.False(t, ok)
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}

// TestEveryRuleInTheCode checks that every rule id the library files a
// diagnostic under has an entry, so that "agview explain" can explain
// whatever "agview verify" prints.
func TestEveryRuleInTheCode(t *testing.T) {
	lit := regexp.MustCompile(`"((?:R|V|G|E)[0-9]{1,2}|A1)"`)
	var ids []string
	for _, r := range All() {
		ids = append(ids, r.ID)
	}
	root := filepath.Join("..", "..")
	for _, dir := range []string{"reducer", "event", "transport", "store", "client", "patch", "view"} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, m := range lit.FindAllSubmatch(b, -1) {
				id := string(m[1])
				if !slices.Contains(ids, id) {
					t.Errorf("%s uses rule id %s, which internal/rules does not explain", f, id)
				}
			}
		}
	}
}

// TestMarkdown checks that docs/rules.md is generated from the table (go
// test -update rewrites it).
func TestMarkdown(t *testing.T) {
	p := filepath.Join("..", "..", "docs", "rules.md")
	got := Markdown()
	if *update {
		require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "run go test ./internal/rules -update")
	assert.Equal(t, string(want), got, "docs/rules.md differs from the table: go test ./internal/rules -update rewrites it")
}

// TestProtocolCopy fails when docs/protocol.md differs from the shared
// spec/PROTOCOL.md it was copied from (where that folder exists beside the
// module root).
func TestProtocolCopy(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "spec", "PROTOCOL.md"))
	if os.IsNotExist(err) {
		t.Skip("no ../shared/spec/PROTOCOL.md beside the module root: nothing to compare")
	}
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "protocol.md"))
	require.NoError(t, err)
	first, body, ok := strings.Cut(string(got), "\n")
	require.True(t, ok)
	assert.True(t, strings.HasPrefix(first, "<!-- Copied verbatim"), "docs/protocol.md starts with the line saying where it came from")
	assert.True(t, body == string(want), "docs/protocol.md differs from ../shared/spec/PROTOCOL.md: copy it again (keep its first line)")
}
