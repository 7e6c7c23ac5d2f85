package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
)

func TestParseJSON(t *testing.T) {
	t.Parallel()
	n, err := parseJSON([]byte(`{"z":1,"a/b":{"c~d":[true,null,"s"]},"m":{}}`))
	require.NoError(t, err)
	require.Equal(t, byte('{'), n.kind)
	require.Len(t, n.kids, 3)
	assert.Equal(t, []string{"z", "a/b", "m"}, []string{n.kids[0].key, n.kids[1].key, n.kids[2].key}, "members keep document order")
	arr := n.kids[1].kids[0]
	assert.Equal(t, "/a~1b/c~0d", arr.pointer, "pointers are escaped per RFC 6901")
	require.Len(t, arr.kids, 3)
	assert.Equal(t, "/a~1b/c~0d/2", arr.kids[2].pointer)
	assert.True(t, arr.kids[2].elem)
	assert.Equal(t, []string{"true", "null", `"s"`}, []string{arr.kids[0].scalar, arr.kids[1].scalar, arr.kids[2].scalar})

	for _, bad := range []string{``, `{`, `{"a":}`, `[1,]`, `{} {}`, `{"a":1}x`, `}`} {
		_, err := parseJSON([]byte(bad))
		assert.Error(t, err, "%q must not parse", bad)
	}
	_, err = parseJSON([]byte(strings.Repeat("[", maxJSONDepth+2) + strings.Repeat("]", maxJSONDepth+2)))
	assert.ErrorContains(t, err, "nested deeper")
}

func TestFlatten(t *testing.T) {
	t.Parallel()
	n, err := parseJSON([]byte(`{"a":{"b":{"c":1},"e":[]},"s":"x\u001b"}`))
	require.NoError(t, err)
	text := func(open map[string]bool) string {
		var b strings.Builder
		for _, l := range flatten(n, open) {
			for _, r := range l.runs {
				b.WriteString(r.text)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	assert.Equal(t, `▾ {
  ▾ "a": {
    ▸ "b": {…} 1 key
      "e": []
    },
    "s": "x\u001b"
  }
`, text(nil), "containers deeper than the document's members start folded; strings stay escaped")
	assert.Equal(t, `▾ {
  ▾ "a": {
    ▾ "b": {
        "c": 1
      },
      "e": []
    },
    "s": "x\u001b"
  }
`, text(map[string]bool{"/a/b": true}), "an unfolded container shows its members")
	assert.Equal(t, `▾ {
  ▸ "a": {…} 2 keys
    "s": "x\u001b"
  }
`, text(map[string]bool{"/a": false}), "a folded container hides its members")
}

// TestStateKeys drives the state view's tree with keys.
func TestStateKeys(t *testing.T) {
	t.Parallel()
	v := fold(t, false, statusEvents()[0])
	m := model(t, 60, 20, v)
	m.Update(Frame{View: fold(t, false, statusEvents()[0],
		&event.StateSnapshot{Snapshot: []byte(`{"a":{"b":{"c":1}},"list":[1,2,3]}`)})})
	keys(m, "s")
	require.Equal(t, ModeState, m.Mode())
	assert.Equal(t, "", m.stateSel, "the document is selected first")
	keys(m, "down")
	assert.Equal(t, "/a", m.stateSel)
	keys(m, "down")
	assert.Equal(t, "/a/b", m.stateSel)
	assert.True(t, m.folded("/a/b"), "depth 2 starts folded")
	keys(m, "right")
	assert.False(t, m.folded("/a/b"), "→ unfolds")
	keys(m, "down")
	assert.Equal(t, "/a/b/c", m.stateSel, "into the unfolded object")
	keys(m, "left")
	assert.Equal(t, "/a/b", m.stateSel, "← on a value goes to its parent")
	keys(m, "left")
	assert.True(t, m.folded("/a/b"), "← on an unfolded container folds it")
	keys(m, "enter")
	assert.False(t, m.folded("/a/b"), "enter toggles")
	keys(m, "end")
	assert.Equal(t, "/list/2", m.stateSel, "end selects the last value")
	keys(m, "home")
	assert.Equal(t, "", m.stateSel, "home selects the document")
	keys(m, "enter")
	assert.Contains(t, screen(m), `"list": [`, "the document itself does not fold")
	keys(m, "pgdown")
	assert.Equal(t, "/list/2", m.stateSel)
	keys(m, "pgup")
	assert.Equal(t, "", m.stateSel)

	// The state changes: the selection and the folds, by pointer, stay.
	keys(m, "down", "down")
	m.Update(Frame{View: fold(t, false, statusEvents()[0],
		&event.StateSnapshot{Snapshot: []byte(`{"new":0,"a":{"b":{"c":2}}}`)})})
	assert.Equal(t, "/a/b", m.stateSel)
	assert.Contains(t, screen(m), `"c": 2`, "the unfolded object shows the new value")
	m.Update(Frame{View: fold(t, false, statusEvents()[0],
		&event.StateSnapshot{Snapshot: []byte(`[1]`)})})
	assert.Equal(t, "", m.stateSel, "a vanished selection falls back to the document")
}

// FuzzParseJSON checks the state tree parser: it never panics, and for a
// valid document the tree holds the same tokens in the same order.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `null`, `{"a":[1,{"b":"c"}],"d":true}`, `"x\u001b"`, `1e400`, `{"a":1,"a":2}`, `[[[]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := parseJSON(data)
		if !json.Valid(data) {
			if err == nil {
				t.Fatalf("parseJSON(%q) accepted invalid JSON", data)
			}
			return
		}
		if err != nil {
			if strings.Contains(err.Error(), "nested deeper") {
				return
			}
			t.Fatalf("parseJSON(%q): %v", data, err)
		}
		var b bytes.Buffer
		writeNode(&b, n)
		want, got := tokens(t, data), tokens(t, b.Bytes())
		if len(want) != len(got) {
			t.Fatalf("parseJSON(%q) rebuilt as %s: %d tokens, want %d", data, b.Bytes(), len(got), len(want))
		}
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("parseJSON(%q) rebuilt as %s: token %d is %v, want %v", data, b.Bytes(), i, got[i], want[i])
			}
		}
		for _, l := range flatten(n, nil) {
			for _, r := range l.runs {
				if strings.ContainsAny(r.text, "\x1b\x07") || ansi.Strip(r.text) != r.text {
					t.Fatalf("flatten(%q) shows a control character: %q", data, r.text)
				}
			}
		}
	})
}

func writeNode(b *bytes.Buffer, n *node) {
	switch n.kind {
	case 's':
		b.WriteString(n.scalar)
	case '{', '[':
		b.WriteByte(n.kind)
		for i, k := range n.kids {
			if i > 0 {
				b.WriteByte(',')
			}
			if n.kind == '{' {
				key, _ := json.Marshal(k.key)
				b.Write(key)
				b.WriteByte(':')
			}
			writeNode(b, k)
		}
		if n.kind == '{' {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	}
}

func tokens(t *testing.T, data []byte) []any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []any
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("tokens(%q): %v", data, err)
		}
		out = append(out, tok)
	}
}

// TestDiagnosticsKeys scrolls a long list of diagnostics.
func TestDiagnosticsKeys(t *testing.T) {
	t.Parallel()
	evs := []event.Event{&event.RunStarted{ThreadID: "th", RunID: "r1"}}
	for i := range 20 {
		evs = append(evs, &event.StepFinished{StepName: "step-" + string(rune('a'+i))})
	}
	m := model(t, 80, 12, fold(t, true, evs...))
	keys(m, "d")
	require.Equal(t, ModeDiagnostics, m.Mode())
	s := screen(m)
	assert.Contains(t, s, "20 violations · 0 warnings")
	assert.Contains(t, s, `"step-a"`, "the first diagnostic shows first")
	keys(m, "end")
	s = screen(m)
	assert.Contains(t, s, `"step-t"`, "end shows the last")
	assert.NotContains(t, s, `"step-a"`)
	keys(m, "home", "down", "down")
	assert.NotContains(t, screen(m), `"step-a"`, "down scrolls by a line")
	keys(m, "up", "up", "up")
	assert.Contains(t, screen(m), `"step-a"`, "up stops at the top")
	keys(m, "pgdown")
	assert.NotContains(t, screen(m), `"step-a"`, "pgdown scrolls a page")
	keys(m, "pgup")
	assert.Contains(t, screen(m), `"step-a"`)
	requireGeometry(t, m, 80, 12)
	keys(m, "d")
	assert.Equal(t, ModePanes, m.Mode(), "d again comes back")
}
