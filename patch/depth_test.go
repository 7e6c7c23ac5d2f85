package patch

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkHeights fails the test when a height stored anywhere in n (the
// nodes, and the B+tree and trie nodes of large arrays and objects) differs
// from the one measured from the members, and returns n's height.
func checkHeights(t testing.TB, n *node) int32 {
	t.Helper()
	h := int32(0)
	switch n.kind {
	case kindArray:
		if n.arr.tree != nil {
			checkVnode(t, n.arr.tree)
		}
		n.arr.each(func(e *node) bool { h = max(h, checkHeights(t, e)); return true })
	case kindObject:
		if n.obj.root != nil {
			checkHnode(t, n.obj.root)
		}
		n.obj.each(func(_ string, v *node) bool { h = max(h, checkHeights(t, v)); return true })
	default:
		require.Zero(t, n.height, "a scalar's height")
		return 0
	}
	require.Equal(t, h+1, n.height, "stored height of %s", describe(n))
	return h + 1
}

func checkVnode(t testing.TB, v *vnode) int32 {
	t.Helper()
	h := int32(0)
	for _, e := range v.leaf {
		h = max(h, e.height)
	}
	for _, k := range v.kids {
		h = max(h, checkVnode(t, k))
	}
	require.Equal(t, h, v.h, "B+tree node height")
	return h
}

func checkHnode(t testing.TB, n *hnode) int32 {
	t.Helper()
	h := int32(0)
	for _, e := range n.coll {
		h = max(h, e.val.height)
	}
	for _, s := range n.slots {
		if s.e != nil {
			h = max(h, s.e.val.height)
		} else {
			h = max(h, checkHnode(t, s.sub))
		}
	}
	require.Equal(t, h, n.h, "trie node height")
	return h
}

// nested returns n levels of arrays around v: nested(2, "1") is [[1]].
func nested(n int, v string) string {
	return strings.Repeat("[", n) + v + strings.Repeat("]", n)
}

// zeros returns the pointer /0/0/…/0 with n tokens.
func zeros(n int) string { return strings.Repeat("/0", n) }

// TestDepthBomb is the depth bomb of issue 13: each delta copies the whole
// document into its own innermost array, doubling the nesting while the
// document stays tiny. Before the nesting limit was applied to patch results,
// the 24th such delta made a document 16 million levels deep that
// encoding overflowed the goroutine stack on (a fatal error, not a panic).
// Now the delta that would pass MaxNesting fails with ErrTooDeep and leaves
// the document as it was, and every later one fails the same way.
func TestDepthBomb(t *testing.T) {
	t.Parallel()
	doc := MustNew(`[]`)
	height := 1
	applied := 0
	for i := range 40 {
		// The innermost array sits height-1 levels down.
		p := fmt.Sprintf(`[{"op":"copy","from":"","path":"%s/-"}]`, zeros(height-1))
		got, _, err := Apply(doc, json.RawMessage(p), nil)
		if 2*height > MaxNesting {
			require.ErrorIs(t, err, ErrTooDeep, "delta %d would nest %d levels", i, 2*height)
			var pe *Error
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, 0, pe.Index)
			assert.Equal(t, "copy", pe.Op)
			assert.Contains(t, pe.Reason, fmt.Sprintf("%d levels deep, over the limit of %d", 2*height, MaxNesting))
			assert.Equal(t, doc, got, "a failed delta leaves the document as it was")
			assert.Less(t, len(err.Error()), 1000, "the message quotes a %d-byte path cut short", len(pe.Path))
			continue
		}
		require.NoError(t, err, "delta %d", i)
		doc, height = got, 2*height
		applied++
		require.Equal(t, int32(height), doc.node().height)
	}
	assert.Equal(t, 13, applied, "1 → 8192 levels in 13 doublings; 16384 is over the limit")
	// Everything that walks the document still works, and agrees.
	enc := doc.JSON()
	assert.Equal(t, doc.Size(), len(enc))
	back, err := New(enc)
	require.NoError(t, err, "the parser reads back what a patch may build")
	assert.True(t, back.Equal(doc))
	assert.Equal(t, doc.String(), back.String())
}

// TestNestingLimit checks that the limit is exact for every operation that
// can deepen a document, whatever the kind of the parent (small and large
// arrays and objects), and that a document exactly at the limit encodes,
// parses back and compares.
func TestNestingLimit(t *testing.T) {
	t.Parallel()
	const base = MaxNesting - 10 // the depth of the innermost array of the document
	bigArray := `[` + strings.Repeat(`0,`, 100) + nested(1, "") + `]`
	bigObject := `{` + strings.Repeat(`"k":0,`, 0)
	for i := range 30 {
		bigObject += fmt.Sprintf(`"k%d":%d,`, i, i)
	}
	bigObject += `"x":[]}`
	tests := []struct {
		name   string
		inner  string // the innermost value of the document, at depth base
		path   string // where the value goes, relative to that value
		op     string
		height int // the height of the value added
	}{
		{"add to a small array", `[]`, `/-`, "add", 0},
		{"add to a large array", bigArray, `/0`, "add", 0},
		{"add to a small object", `{}`, `/k`, "add", 0},
		{"add to a large object", bigObject, `/new`, "add", 0},
		{"replace in a large array", bigArray, `/100`, "replace", 0},
		{"replace in a large object", bigObject, `/k3`, "replace", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := MustNew(nested(base-1, tt.inner))
			checkHeights(t, doc.node())
			depth := base // the value goes below the innermost value
			room := MaxNesting - depth
			path := zeros(base-1) + tt.path
			// A value that exactly fills the room applies; one level more fails.
			fits := fmt.Sprintf(`[{"op":%q,"path":%q,"value":%s}]`, tt.op, path, nested(room, "1"))
			got, _, err := Apply(doc, json.RawMessage(fits), nil)
			require.NoError(t, err)
			assert.Equal(t, int32(MaxNesting), got.node().height)
			checkHeights(t, got.node())
			back, err := New(got.JSON())
			require.NoError(t, err, "a document at the limit parses back")
			assert.True(t, back.Equal(got))

			over := fmt.Sprintf(`[{"op":%q,"path":%q,"value":%s}]`, tt.op, path, nested(room+1, "1"))
			got, _, err = Apply(doc, json.RawMessage(over), nil)
			require.ErrorIs(t, err, ErrTooDeep)
			assert.Equal(t, doc, got)
		})
	}

	t.Run("move and copy", func(t *testing.T) {
		t.Parallel()
		// /a is a levels deep; /b/…/b holds an empty object b levels down:
		// /a/0 put into that object fills the document to MaxNesting.
		const a = MaxNesting / 2
		const b = MaxNesting - 1 - a
		doc := MustNew(`{"a":` + nested(a, "") + `,"b":` + nested(b, "{}") + `}`)
		deepest := zeros(b) // to the {} inside /b
		for _, op := range []string{"copy", "move"} {
			fits := fmt.Sprintf(`[{"op":%q,"from":"/a/0","path":"/b%s/x"}]`, op, deepest)
			got, _, err := Apply(doc, json.RawMessage(fits), nil)
			require.NoError(t, err, op)
			assert.Equal(t, int32(MaxNesting), got.node().height, op)
			checkHeights(t, got.node())
			over := fmt.Sprintf(`[{"op":%q,"from":"/a","path":"/b%s/x"}]`, op, deepest)
			got, _, err = Apply(doc, json.RawMessage(over), nil)
			require.ErrorIs(t, err, ErrTooDeep, op)
			assert.Equal(t, doc, got)
		}
	})

	t.Run("heights shrink", func(t *testing.T) {
		t.Parallel()
		// Removing the deep member lowers the height exactly, in small and
		// large containers alike, so the room it left can be used again.
		for _, shape := range []string{`{"deep":%s}`, `{"deep":%s,` + strings.Repeat(`"k":1,`, 0) + manyMembers(20) + `}`,
			`[%s]`, `[%s,` + strings.Repeat(`1,`, 99) + `1]`} {
			doc := MustNew(fmt.Sprintf(shape, nested(MaxNesting-1, "")))
			require.Equal(t, int32(MaxNesting), doc.node().height)
			_, _, err := Apply(doc, json.RawMessage(`[{"op":"copy","from":"","path":"`+firstPath(doc)+`"}]`), nil)
			require.ErrorIs(t, err, ErrTooDeep)
			removed, _, err := Apply(doc, json.RawMessage(`[{"op":"remove","path":"`+firstPath(doc)+`"}]`), nil)
			require.NoError(t, err)
			assert.Equal(t, int32(1), removed.node().height, shape)
			checkHeights(t, removed.node())
			again, _, err := Apply(removed, json.RawMessage(`[{"op":"copy","from":"","path":"`+firstPath(doc)+`"}]`), nil)
			require.NoError(t, err, "the room the removed member left is free again")
			checkHeights(t, again.node())
		}
	})
}

func manyMembers(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"m%d":%d`, i, i)
	}
	return b.String()
}

// firstPath is the pointer of the deep member of the documents of "heights
// shrink": /deep in an object, /0 in an array.
func firstPath(d Document) string {
	if d.IsObject() {
		return "/deep"
	}
	return "/0"
}

// TestParsedHeights checks the stored heights of parsed documents, including
// large objects with a repeated member name whose last value is shallower.
func TestParsedHeights(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`1`, `[]`, `{}`, `[[]]`, `[1,[2,[3]],{"a":{"b":[]}}]`,
		`{` + manyMembers(40) + `,"m3":[[[[1]]]]}`,
		`{` + manyMembers(40) + `,"deep":[[[[1]]]],"deep":1}`,
		`{"deep":[[[[1]]]],` + manyMembers(40) + `,"deep":1}`,
		`[` + strings.Repeat(`[1],`, 200) + `[[[2]]]]`,
	} {
		d := MustNew(raw)
		checkHeights(t, d.node())
	}
}

// TestMaxNestingEncodesWrapped (G21; issue 34 N4): a document at MaxNesting
// levels, wrapped in MaxWrapping levels (the deepest container an encoder
// puts around a document: a view's messages[i].content), is JSON that
// encoding/json reads and writes; one level more is not, so the limit is
// exactly as high as it can be.
func TestMaxNestingEncodesWrapped(t *testing.T) {
	t.Parallel()
	require.Equal(t, 10000, MaxNesting+MaxWrapping, "encoding/json's limit")
	doc := MustNew(nested(MaxNesting-1, "{}"))
	require.Equal(t, int32(MaxNesting), doc.node().height)
	wrap := func(levels int, inner string) string {
		return strings.Repeat(`{"w":`, levels) + inner + strings.Repeat(`}`, levels)
	}
	atLimit := wrap(MaxWrapping, string(doc.JSON()))
	assert.True(t, json.Valid([]byte(atLimit)))
	var x any
	require.NoError(t, json.Unmarshal([]byte(atLimit), &x))
	_, err := json.Marshal(map[string]any{"messages": []any{map[string]any{"content": doc}}})
	require.NoError(t, err, "json.Marshal of the document three levels down")
	assert.False(t, json.Valid([]byte(wrap(MaxWrapping+1, string(doc.JSON())))), "one level more is over encoding/json's limit")

	_, err = New(json.RawMessage(nested(MaxNesting+1, "")))
	require.Error(t, err, "New refuses a document deeper than MaxNesting")
	_, err = New(json.RawMessage(nested(MaxNesting, "")))
	require.NoError(t, err)
}
