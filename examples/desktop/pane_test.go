package main

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestShorten(t *testing.T) {
	long := strings.Repeat("é", maxShown) // two bytes each: the cut falls inside a rune
	for _, c := range []struct {
		name, in, prefix, suffix string
	}{
		{"short", "abc", "abc", "abc"},
		{"at the limit", strings.Repeat("a", maxShown), strings.Repeat("a", maxShown), "a"},
		{"long", strings.Repeat("a", maxShown+1), strings.Repeat("a", maxShown) + "…", "(401 bytes)"},
		{"multibyte", long, "éé", "(800 bytes)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := shorten(c.in)
			assert.True(t, utf8.ValidString(got), "never cuts a rune: %q", got)
			assert.True(t, strings.HasPrefix(got, c.prefix))
			assert.True(t, strings.HasSuffix(got, c.suffix), "%q ends with %q", got, c.suffix)
		})
	}
}

func TestJSONText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"plain text"`, "plain text"},
		{`"line\nbreak"`, "line\nbreak"},
		{`{ "a": [1, 2] }`, `{"a":[1,2]}`},
		{`[{"type":"text","text":"x"}]`, `[{"type":"text","text":"x"}]`},
		{`not json`, "not json"},
	} {
		assert.Equal(t, c.want, jsonText(json.RawMessage(c.in)), "jsonText(%s)", c.in)
	}
}

func TestStateTree(t *testing.T) {
	st := stateTree{open: map[string]bool{}}
	st.set(json.RawMessage(`{"b":{"x":1},"a":[true,null],"c":"s"}`))
	var lines []string
	for _, r := range st.rows {
		s, _ := summary(r.value)
		lines = append(lines, r.path+" "+s)
	}
	assert.Equal(t, []string{" {3}", "/a [2]", "/b {1}", "/c \"s\""}, lines, "open one level, keys sorted")

	st.open["/a"] = true
	st.flatten()
	assert.Len(t, st.rows, 6, "/a opened: its two elements")

	st.set(json.RawMessage(`{"a":`))
	assert.Error(t, st.err)
	assert.Empty(t, st.rows)
}
