package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// suiteCase is one record of the json-patch-tests suite (its README.md).
type suiteCase struct {
	Comment  string          `json:"comment"`
	Doc      json.RawMessage `json:"doc"`
	Patch    json.RawMessage `json:"patch"`
	Expected json.RawMessage `json:"expected"`
	Error    string          `json:"error"`
	Disabled bool            `json:"disabled"`
}

const suiteDir = "testdata/json-patch-tests"

// loadSuite returns the enabled cases of tests.json and spec_tests.json,
// named file#index.
func loadSuite(t testing.TB) (names []string, cases []suiteCase) {
	t.Helper()
	for _, file := range []string{"tests.json", "spec_tests.json"} {
		raw, err := os.ReadFile(filepath.Join(suiteDir, file))
		require.NoError(t, err)
		var all []suiteCase
		require.NoError(t, json.Unmarshal(raw, &all), "parse %s", file)
		for i, c := range all {
			if c.Patch == nil || c.Disabled {
				continue // a comment-only record, or disabled upstream
			}
			names = append(names, fmt.Sprintf("%s#%d", file, i))
			cases = append(cases, c)
		}
	}
	return names, cases
}

// TestJSONPatchSuite runs every enabled case of the json-patch-tests suite
// under strict RFC 6902 (unknown ops rejected), and again under the default
// options, where the only difference allowed is that an unknown op becomes a
// warning instead of an error.
func TestJSONPatchSuite(t *testing.T) {
	t.Parallel()
	names, cases := loadSuite(t)
	require.Len(t, cases, 108, "the suite has 108 enabled cases")

	for i, c := range cases {
		t.Run(names[i], func(t *testing.T) {
			t.Parallel()
			doc, err := New(c.Doc)
			require.NoError(t, err, "doc")
			before := doc.String()

			got, warns, err := Apply(doc, c.Patch, &Options{RejectUnknownOps: true})
			assert.Equal(t, before, doc.String(), "Apply must not modify its input (%s)", c.Comment)
			assert.Empty(t, warns, "strict mode gives no warnings")
			if c.Error != "" {
				require.Error(t, err, "want an error: %s (%s)", c.Error, c.Comment)
				var pe *Error
				require.ErrorAs(t, err, &pe)
				assert.True(t, got.Equal(doc) && got.String() == before, "a failed patch returns the document unchanged")
			} else {
				require.NoError(t, err, c.Comment)
				if c.Expected != nil {
					want, err := New(c.Expected)
					require.NoError(t, err, "expected")
					assert.True(t, got.Equal(want), "%s: got %s, want %s", c.Comment, got, want)
				} else {
					assert.True(t, got.Equal(doc), "%s: no expected value given: document must be unchanged", c.Comment)
				}
			}

			// Default options: identical, except that unknown ops are dropped
			// with a warning.
			got2, warns2, err2 := Apply(doc, c.Patch, nil)
			var pe *Error
			if errors.As(err, &pe) && errors.Is(err, ErrUnknownOp) {
				require.NotEmpty(t, warns2, "an unknown op is a warning by default")
				assert.Equal(t, pe.Index, warns2[0].Index)
				return
			}
			assert.Empty(t, warns2)
			assert.Equal(t, err == nil, err2 == nil, "default options change nothing else")
			assert.True(t, got2.Equal(got))
		})
	}
}

// TestJSONPatchSuiteDisabledScalar runs the one disabled case whose behaviour
// agview defines: a whole-document replace on a scalar document.
func TestJSONPatchSuiteDisabledScalar(t *testing.T) {
	t.Parallel()
	got, _, err := Apply(MustNew(`"foo"`), json.RawMessage(`[{"op":"replace","path":"","value":"bar"}]`), nil)
	require.NoError(t, err)
	assert.Equal(t, `"bar"`, got.String())
}

// moduleRoot returns the directory holding go.mod, above the package.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "go.mod not found above the package")
		dir = parent
	}
}

// sharedDir returns ../shared/<rel> beside the module root, or skips the test
// when that folder is absent (a user's clone has no ../shared).
func sharedDir(t testing.TB, rel string) string {
	t.Helper()
	dir := filepath.Join(moduleRoot(t), "..", "shared", rel)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("%s is absent: nothing to compare with", dir)
	}
	return dir
}

// readTree returns the files under dir, by slash-separated relative path.
func readTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	require.NoError(t, err)
	return files
}

// TestJSONPatchTestsCopyIsCurrent fails when testdata/json-patch-tests differs
// from the project's shared copy.
func TestJSONPatchTestsCopyIsCurrent(t *testing.T) {
	t.Parallel()
	shared := readTree(t, sharedDir(t, "testdata/json-patch-tests"))
	local := readTree(t, suiteDir)
	require.NotEmpty(t, shared)
	for name, b := range shared {
		l, ok := local[name]
		if assert.True(t, ok, "%s is missing from %s: copy it from ../shared", name, suiteDir) {
			assert.True(t, string(l) == string(b), "%s/%s differs from ../shared: copy it again", suiteDir, name)
		}
	}
	for name := range local {
		_, ok := shared[name]
		assert.True(t, ok, "%s/%s is not in ../shared: remove it", suiteDir, name)
	}
}
