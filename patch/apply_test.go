package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		doc   string
		patch string
		opts  *Options
		want  string // expected document (compact, exact member order) when no error
		warns []Warning
		// On failure:
		err    error  // sentinel
		index  int    // Error.Index
		op     string // Error.Op
		path   string // Error.Path
		reason string // substring of Error.Reason
	}{
		// Conformance vectors (PROTOCOL.md G2, G8).
		{name: "G8 missing parent", doc: `{"a":1}`, patch: `[{"op":"replace","path":"/missing/deep","value":2}]`,
			err: ErrPathNotFound, index: 0, op: "replace", path: "/missing/deep", reason: `"/missing" does not exist`},
		{name: "G8 failed test is atomic", doc: `{"version":1,"items":[]}`,
			patch: `[{"op":"add","path":"/items/-","value":"x"},{"op":"test","path":"/version","value":2}]`,
			err:   ErrTestFailed, index: 1, op: "test", path: "/version", reason: `value at "/version" is 1, want 2`},
		{name: "G2 unknown op removed", doc: `{"a":1}`,
			patch: `[{"op":"increment","path":"/a","value":1},{"op":"add","path":"/b","value":2}]`,
			want:  `{"a":1,"b":2}`,
			warns: []Warning{{Index: 0, Op: "increment", Path: "/a", Message: `unknown operation "increment" removed; the rest of the patch applies`}}},
		{name: "unknown op rejected when strict", doc: `{"a":1}`, opts: &Options{RejectUnknownOps: true},
			patch: `[{"op":"add","path":"/b","value":2},{"op":"increment","path":"/a"}]`,
			err:   ErrUnknownOp, index: 1, op: "increment", path: "/a"},
		{name: "unknown op then failure keeps warning", doc: `{}`,
			patch: `[{"op":"spam"},{"op":"remove","path":"/x"}]`,
			warns: []Warning{{Index: 0, Op: "spam", Message: `unknown operation "spam" removed; the rest of the patch applies`}},
			err:   ErrPathNotFound, index: 1, op: "remove", path: "/x"},
		{name: "nulls are data", doc: `{"a":null,"b":{"c":null}}`,
			patch: `[{"op":"add","path":"/d","value":null},{"op":"replace","path":"/b/c","value":3}]`,
			want:  `{"a":null,"b":{"c":3},"d":null}`},

		// test (RFC 6902 4.6).
		{name: "evanphx crash input: test without value", doc: `{}`, patch: `[{"op":"test","path":""}]`,
			err: ErrInvalidPatch, index: 0, op: "test", reason: `needs "value"`},
		{name: "test without value on false", doc: `[false]`, patch: `[{"op":"test","path":"/0"}]`,
			err: ErrInvalidPatch, index: 0, op: "test", path: "/0"},
		{name: "test whole document", doc: `{"a":[1,{"b":2}]}`,
			patch: `[{"op":"test","path":"","value":{"a":[1.0,{"b":2e0}]}}]`, want: `{"a":[1,{"b":2}]}`},
		{name: "test whole document differs", doc: `{"a":1}`, patch: `[{"op":"test","path":"","value":{"a":1,"b":2}}]`,
			err: ErrTestFailed, reason: `value at "" is {"a":1}, want {"a":1,"b":2}`},
		{name: "test null on missing member fails", doc: `{}`, patch: `[{"op":"test","path":"/a","value":null}]`,
			err: ErrPathNotFound, path: "/a", op: "test"},
		{name: "test null on null", doc: `{"a":null}`, patch: `[{"op":"test","path":"/a","value":null}]`, want: `{"a":null}`},
		{name: "test numbers by value", doc: `{"a":100}`, patch: `[{"op":"test","path":"/a","value":1e2}]`, want: `{"a":100}`},
		{name: "test -0 equals 0", doc: `[0]`, patch: `[{"op":"test","path":"/0","value":-0.0}]`, want: `[0]`},
		{name: "test number is not string", doc: `{"a":1}`, patch: `[{"op":"test","path":"/a","value":"1"}]`,
			err: ErrTestFailed},
		{name: "test object member order ignored", doc: `{"o":{"x":1,"y":2}}`,
			patch: `[{"op":"test","path":"/o","value":{"y":2,"x":1}}]`, want: `{"o":{"x":1,"y":2}}`},
		{name: "test array order matters", doc: `{"a":[1,2]}`, patch: `[{"op":"test","path":"/a","value":[2,1]}]`,
			err: ErrTestFailed},
		{name: "test escaped strings", doc: `{"s":"é\n"}`, patch: `[{"op":"test","path":"/s","value":"\u00e9\u000a"}]`,
			want: `{"s":"é\n"}`},
		{name: "test long value described by size", doc: `{"s":"` + strings.Repeat("x", 100) + `"}`,
			patch: `[{"op":"test","path":"/s","value":"y"}]`, err: ErrTestFailed, reason: `is a JSON string of 102 bytes, want "y"`},

		// Pointers (RFC 6901).
		{name: "leading zero index", doc: `{"a":[1,2]}`, patch: `[{"op":"test","path":"/a/01","value":2}]`,
			err: ErrInvalidPointer, op: "test", path: "/a/01", reason: "leading zero"},
		{name: "double zero index", doc: `[1]`, patch: `[{"op":"remove","path":"/00"}]`, err: ErrInvalidPointer},
		{name: "negative index", doc: `[1,2]`, patch: `[{"op":"remove","path":"/-1"}]`, err: ErrInvalidPointer},
		{name: "plus sign index", doc: `[1,2]`, patch: `[{"op":"replace","path":"/+1","value":0}]`, err: ErrInvalidPointer},
		{name: "exponent index", doc: `[1,2]`, patch: `[{"op":"add","path":"/1e0","value":0}]`, err: ErrInvalidPointer},
		{name: "leading zero is a fine member name", doc: `{"01":1}`, patch: `[{"op":"replace","path":"/01","value":2}]`,
			want: `{"01":2}`},
		{name: "no leading slash", doc: `{"a":1}`, patch: `[{"op":"add","path":"a","value":1}]`,
			err: ErrInvalidPointer, reason: `start with "/"`},
		{name: "bad tilde escape", doc: `{"a":1}`, patch: `[{"op":"add","path":"/a~2","value":1}]`, err: ErrInvalidPointer},
		{name: "trailing tilde", doc: `{"a":1}`, patch: `[{"op":"add","path":"/a~","value":1}]`, err: ErrInvalidPointer},
		{name: "tilde escapes", doc: `{"a/b":1,"m~n":2}`,
			patch: `[{"op":"replace","path":"/a~1b","value":3},{"op":"remove","path":"/m~0n"},{"op":"add","path":"/~01","value":4}]`,
			want:  `{"a/b":3,"~1":4}`},
		{name: "empty member name", doc: `{"":1,"a":{"":{"b":2}}}`,
			patch: `[{"op":"replace","path":"/","value":5},{"op":"replace","path":"/a//b","value":6}]`,
			want:  `{"":5,"a":{"":{"b":6}}}`},
		{name: "empty token on array", doc: `[1]`, patch: `[{"op":"add","path":"/","value":2}]`,
			err: ErrInvalidPointer, reason: "empty reference token"},
		{name: "dash only for add", doc: `[1]`, patch: `[{"op":"replace","path":"/-","value":2}]`, err: ErrPathNotFound},
		{name: "dash in the middle", doc: `[[1]]`, patch: `[{"op":"add","path":"/-/0","value":2}]`, err: ErrPathNotFound},
		{name: "huge index", doc: `[1]`, patch: `[{"op":"add","path":"/99999999999999999999999","value":2}]`,
			err: ErrPathNotFound, reason: "out of range"},
		{name: "index past end", doc: `[1]`, patch: `[{"op":"add","path":"/2","value":2}]`, err: ErrPathNotFound},
		{name: "descend into scalar", doc: `{"a":1}`, patch: `[{"op":"add","path":"/a/b","value":2}]`,
			err: ErrPathNotFound, reason: "cannot add a member to a number"},
		{name: "descend through scalar", doc: `{"a":"s"}`, patch: `[{"op":"add","path":"/a/b/c","value":2}]`,
			err: ErrPathNotFound, reason: `"/a/b" does not exist: "/a" is a string`},

		// add, remove, replace.
		{name: "add keeps member order", doc: `{"b":1,"a":2}`,
			patch: `[{"op":"add","path":"/b","value":3},{"op":"add","path":"/c","value":4}]`, want: `{"b":3,"a":2,"c":4}`},
		{name: "add inserts into array", doc: `[1,3]`,
			patch: `[{"op":"add","path":"/1","value":2},{"op":"add","path":"/3","value":4},{"op":"add","path":"/0","value":0}]`,
			want:  `[0,1,2,3,4]`},
		{name: "add whole document", doc: `{"a":1}`, patch: `[{"op":"add","path":"","value":[1]}]`, want: `[1]`},
		{name: "remove whole document gives null", doc: `{"a":1}`, patch: `[{"op":"remove","path":""}]`, want: `null`},
		{name: "remove missing member", doc: `{"a":1}`, patch: `[{"op":"remove","path":"/b"}]`,
			err: ErrPathNotFound, reason: `"/b": no such member`},
		{name: "replace missing member", doc: `{"a":1}`, patch: `[{"op":"replace","path":"/b","value":1}]`, err: ErrPathNotFound},
		{name: "replace whole document with scalar", doc: `{"a":1}`, patch: `[{"op":"replace","path":"","value":"s"}]`, want: `"s"`},
		{name: "patch a null document", doc: `null`,
			patch: `[{"op":"add","path":"","value":{}},{"op":"add","path":"/a","value":1}]`, want: `{"a":1}`},
		{name: "add to null fails", doc: `null`, patch: `[{"op":"add","path":"/a","value":1}]`, err: ErrPathNotFound},
		{name: "extra members ignored", doc: `{}`, patch: `[{"op":"add","path":"/a","value":1,"from":7,"extra":[]}]`,
			want: `{"a":1}`},
		{name: "empty patch", doc: `{"a":1}`, patch: `[]`, want: `{"a":1}`},

		// move, copy.
		{name: "move member", doc: `{"a":{"b":1},"c":2}`, patch: `[{"op":"move","from":"/a/b","path":"/d"}]`,
			want: `{"a":{},"c":2,"d":1}`},
		{name: "move array element", doc: `[1,2,3]`, patch: `[{"op":"move","from":"/0","path":"/-"}]`, want: `[2,3,1]`},
		{name: "move onto itself puts the member last", doc: `{"a":1,"b":2}`, patch: `[{"op":"move","from":"/a","path":"/a"}]`,
			want: `{"b":2,"a":1}`},
		{name: "move array element onto itself", doc: `[1,2]`, patch: `[{"op":"move","from":"/0","path":"/0"}]`, want: `[1,2]`},
		{name: "move the whole document onto itself", doc: `{"a":1}`, patch: `[{"op":"move","from":"","path":""}]`,
			err: ErrInvalidPatch, reason: "cannot move the whole document"},
		{name: "move into own child", doc: `{"a":{"b":1}}`, patch: `[{"op":"move","from":"/a","path":"/a/b/c"}]`,
			err: ErrInvalidPatch, reason: "into its own child"},
		{name: "move whole document", doc: `{"a":1}`, patch: `[{"op":"move","from":"","path":"/b"}]`, err: ErrInvalidPatch},
		{name: "move missing from", doc: `{"a":1}`, patch: `[{"op":"move","from":"/x","path":"/y"}]`,
			err: ErrPathNotFound, reason: `from: "/x" does not exist`},
		{name: "move without from", doc: `{"a":1}`, patch: `[{"op":"move","path":"/y"}]`, err: ErrInvalidPatch, reason: `needs "from"`},
		{name: "copy shares value", doc: `{"a":{"b":[1]}}`,
			patch: `[{"op":"copy","from":"/a","path":"/c"},{"op":"add","path":"/c/b/-","value":2}]`,
			want:  `{"a":{"b":[1]},"c":{"b":[1,2]}}`},
		{name: "copy whole document", doc: `{"a":1}`, patch: `[{"op":"copy","from":"","path":"/b"}]`,
			want: `{"a":1,"b":{"a":1}}`},
		{name: "copy bad from pointer", doc: `{"a":1}`, patch: `[{"op":"copy","from":"a","path":"/b"}]`,
			err: ErrInvalidPointer, reason: `from "a"`},

		// Malformed patches.
		{name: "patch not an array", doc: `{}`, patch: `{"op":"add"}`, err: ErrInvalidPatch, index: -1, reason: "want an array"},
		{name: "patch null", doc: `{}`, patch: `null`, err: ErrInvalidPatch, index: -1},
		{name: "operation not an object", doc: `{}`, patch: `[{"op":"add","path":"/a","value":1},7]`,
			err: ErrInvalidPatch, index: 1, reason: "is a JSON number, want an object"},
		// G8: an operation whose op is missing or not a string is removed as
		// an unknown one is (G2), and the rest applies.
		{name: "op missing: removed, the rest applies", doc: `{}`,
			patch: `[{"path":"/a","value":1},{"op":"add","path":"/b","value":2}]`, want: `{"b":2}`,
			warns: []Warning{{Index: 0, Path: "/a",
				Message: `the operation has no "op"; the operation is removed and the rest of the patch applies`}}},
		{name: "op not a string: removed, the rest applies", doc: `{}`,
			patch: `[{"op":"add","path":"/b","value":2},{"op":1,"path":"/a"},{"op":null}]`, want: `{"b":2}`,
			warns: []Warning{
				{Index: 1, Path: "/a", Message: `"op" is a JSON number, want a string; the operation is removed and the rest of the patch applies`},
				{Index: 2, Message: `"op" is a JSON null, want a string; the operation is removed and the rest of the patch applies`}}},
		{name: "op missing, RFC 6902 strict", doc: `{}`, patch: `[{"path":"/a"}]`, opts: &Options{RejectUnknownOps: true},
			err: ErrUnknownOp, path: "/a", reason: `no "op"`},
		{name: "op not a string, RFC 6902 strict", doc: `{}`, patch: `[{"op":["add"],"path":"/a"}]`, opts: &Options{RejectUnknownOps: true},
			err: ErrUnknownOp, path: "/a", reason: `"op" is a JSON array`},
		{name: "op missing and a malformed operation: the malformed one fails the patch", doc: `{}`,
			patch: `[{"path":"/a"},{"op":"add","path":"/b"}]`, err: ErrInvalidPatch, index: 1, op: "add", path: "/b",
			warns: []Warning{{Index: 0, Path: "/a",
				Message: `the operation has no "op"; the operation is removed and the rest of the patch applies`}}},
		{name: "path missing", doc: `{}`, patch: `[{"op":"add","value":1}]`, err: ErrInvalidPatch, op: "add", reason: `no "path"`},
		{name: "path null", doc: `{}`, patch: `[{"op":"add","path":null,"value":1}]`, err: ErrInvalidPatch, op: "add"},
		{name: "malformed op wins over earlier failing op", doc: `{}`,
			patch: `[{"op":"remove","path":"/x"},{"op":"add","path":"/a"}]`, err: ErrInvalidPatch, index: 1, op: "add", path: "/a"},
		{name: "duplicate op member: last wins", doc: `{"a":1}`, patch: `[{"op":"add","op":"remove","path":"/a"}]`, want: `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := MustNew(tt.doc)
			before := doc.String()
			got, warns, err := Apply(doc, json.RawMessage(tt.patch), tt.opts)
			assert.Equal(t, before, doc.String(), "the input document is never modified")
			assert.Equal(t, tt.warns, warns)
			if tt.err == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got.String())
				assert.Equal(t, len(got.String()), got.Size(), "Size is the length of the encoding")
				return
			}
			require.Error(t, err, "want %v", tt.err)
			assert.ErrorIs(t, err, tt.err)
			var pe *Error
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.index, pe.Index, "Index")
			wantOp, wantPath := opAndPath(t, tt.patch, tt.index)
			assert.Equal(t, wantOp, pe.Op, "Op echoes the failing operation's \"op\"")
			assert.Equal(t, wantPath, pe.Path, "Path echoes the failing operation's \"path\"")
			if tt.op != "" || tt.path != "" {
				assert.Equal(t, tt.op, pe.Op, "Op")
				assert.Equal(t, tt.path, pe.Path, "Path")
			}
			assert.Contains(t, pe.Reason, tt.reason)
			assert.Equal(t, doc, got, "a failed patch returns the very same document")
		})
	}
}

// opAndPath returns the string "op" and "path" of operation i of patch, ""
// where absent or not strings (or when i is -1).
func opAndPath(t *testing.T, patch string, i int) (op, path string) {
	t.Helper()
	if i < 0 {
		return "", ""
	}
	var ops []any
	require.NoError(t, json.Unmarshal([]byte(patch), &ops))
	m, _ := ops[i].(map[string]any)
	op, _ = m["op"].(string)
	path, _ = m["path"].(string)
	return op, path
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"operation", &Error{Index: 1, Op: "test", Path: "/version", Reason: `value at "/version" is 1, want 2`, Err: ErrTestFailed},
			`patch: operation 1 (test "/version"): test failed: value at "/version" is 1, want 2`},
		{"no op", &Error{Index: 0, Path: "/a", Reason: `the operation has no "op"`, Err: ErrInvalidPatch},
			`patch: operation 0 (at "/a"): invalid patch: the operation has no "op"`},
		{"whole patch", &Error{Index: -1, Reason: "the patch is a JSON object, want an array of operations", Err: ErrInvalidPatch},
			`patch: invalid patch: the patch is a JSON object, want an array of operations`},
		{"no sentinel", &Error{Index: 2, Op: "add", Path: "", Reason: "why"}, `patch: operation 2 (add ""): why`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.err.Error())
		})
	}
	w := Warning{Index: 0, Op: "spam", Path: "/a", Message: "removed"}
	assert.Equal(t, `patch: operation 0 (spam "/a"): removed`, w.String())
	w = Warning{Index: 3, Path: "/a", Message: `the operation has no "op"; removed`}
	assert.Equal(t, `patch: operation 3 (at "/a"): the operation has no "op"; removed`, w.String())
}

func TestApplySyntaxError(t *testing.T) {
	t.Parallel()
	_, _, err := Apply(EmptyObject(), json.RawMessage(`[{"op":"add",]`), nil)
	var se *SyntaxError
	require.ErrorAs(t, err, &se, "the syntax error is kept")
	assert.Equal(t, 13, se.Offset)
	assert.ErrorIs(t, err, ErrInvalidPatch)
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, -1, pe.Index)
	assert.Equal(t, `patch: invalid patch: invalid JSON at byte offset 13: unexpected character ']' in object, want a member name`, err.Error())
}

// TestCopyBomb: a short patch that doubles a 1 KiB document with each copy
// must stop with ErrTooLarge once the document passes the limit, without
// building anything of that size.
func TestCopyBomb(t *testing.T) {
	t.Parallel()
	doc := MustNew(`{"a":"` + strings.Repeat("x", 1016) + `"}`)
	require.Equal(t, 1024, doc.Size())
	var ops []string
	for i := range 40 {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"","path":"/c%d"}`, i))
	}
	bomb := json.RawMessage("[" + strings.Join(ops, ",") + "]")

	tests := []struct {
		name  string
		limit int
		index int // the operation that fails
	}{
		{"default 16 MiB", 0, 13},
		{"1 MiB", 1 << 20, 9},
		{"2 KiB", 2048, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, err := Apply(doc, bomb, &Options{MaxDocumentBytes: tt.limit})
			require.ErrorIs(t, err, ErrTooLarge)
			var pe *Error
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.index, pe.Index, "%v", err)
			assert.Equal(t, "copy", pe.Op)
			assert.Equal(t, doc, got)
		})
	}

	t.Run("no limit", func(t *testing.T) {
		t.Parallel()
		got, _, err := Apply(doc, json.RawMessage("["+strings.Join(ops[:30], ",")+"]"), &Options{MaxDocumentBytes: -1})
		require.NoError(t, err, "without a limit the copies share structure and stay cheap")
		if strconv.IntSize < 64 {
			t.Skip("a size over a TiB needs a 64-bit int")
		}
		assert.Greater(t, int64(got.Size()), int64(1)<<40, "the encoding would be over a TiB")
	})

	t.Run("shrinking an oversized document is allowed", func(t *testing.T) {
		t.Parallel()
		_, _, err := Apply(doc, json.RawMessage(`[{"op":"replace","path":"/a","value":"short"}]`), &Options{MaxDocumentBytes: 100})
		require.NoError(t, err)
		_, _, err = Apply(doc, json.RawMessage(`[{"op":"add","path":"/b","value":1}]`), &Options{MaxDocumentBytes: 100})
		require.ErrorIs(t, err, ErrTooLarge)
	})
}

// TestApplyNeverMutates applies many patches to the same old document, and
// to documents derived from it, and checks every document keeps its value:
// the persistent structures share nodes but never write to them.
func TestApplyNeverMutates(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"list":[0,1,2],"obj":{`)
	for i := range 40 { // large enough to use the trie
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":{"v":%d}`, i, i)
	}
	b.WriteString(`}}`)
	base := MustNew(b.String())
	baseJSON := base.String()

	patches := []string{
		`[{"op":"add","path":"/list/-","value":3}]`,
		`[{"op":"add","path":"/list/1","value":9}]`,
		`[{"op":"remove","path":"/list/0"}]`,
		`[{"op":"replace","path":"/obj/k3/v","value":"x"}]`,
		`[{"op":"add","path":"/obj/new","value":1}]`,
		`[{"op":"remove","path":"/obj/k0"}]`,
		`[{"op":"move","from":"/obj/k1","path":"/moved"}]`,
		`[{"op":"copy","from":"/obj","path":"/obj2"},{"op":"remove","path":"/obj2/k5"}]`,
	}
	type result struct {
		doc  Document
		json string
	}
	var results []result
	for _, p := range patches {
		for range 2 { // applying twice to the same document gives the same result
			got, _, err := Apply(base, json.RawMessage(p), nil)
			require.NoError(t, err, p)
			results = append(results, result{got, got.String()})
			// Patch the result further; neither base nor got may change.
			_, _, err = Apply(got, json.RawMessage(`[{"op":"add","path":"/list/0","value":"z"},{"op":"remove","path":"/obj/k2"}]`), nil)
			require.NoError(t, err)
		}
	}
	assert.Equal(t, baseJSON, base.String())
	assert.Equal(t, baseJSON, string(appendNode(nil, base.node())), "re-encoding the tree gives the same bytes")
	for i, r := range results {
		assert.Equal(t, r.json, string(appendNode(nil, r.doc.node())), "result %d changed", i)
	}
	for i := 0; i < len(results); i += 2 {
		assert.Equal(t, results[i].json, results[i+1].json, "same patch, same document, same result")
	}
}

func TestWarningsAndErrorsAreMatchable(t *testing.T) {
	t.Parallel()
	_, _, err := Apply(MustNew(`{}`), json.RawMessage(`[{"op":"remove","path":"/a"}]`), nil)
	wrapped := fmt.Errorf("state delta at event 7: %w", err)
	var pe *Error
	require.ErrorAs(t, wrapped, &pe)
	assert.True(t, errors.Is(wrapped, ErrPathNotFound))
	assert.False(t, errors.Is(wrapped, ErrTestFailed))
}
