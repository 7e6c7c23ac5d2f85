package jsonindent_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/jsonindent"
)

// indent runs src through a Writer in pieces of n bytes.
func indent(t testing.TB, src string, o jsonindent.Options, n int) string {
	var out bytes.Buffer
	w := jsonindent.NewWriter(&out, o)
	for i := 0; i < len(src); i += n {
		_, err := w.WriteString(src[i:min(i+n, len(src))])
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return out.String()
}

// reference is what encoding/json writes: Indent, after the HTML escaping
// Marshal applies when asked.
func reference(t testing.TB, src string, o jsonindent.Options) string {
	b := []byte(src)
	if o.EscapeHTML {
		var esc bytes.Buffer
		json.HTMLEscape(&esc, b)
		b = esc.Bytes()
	}
	var out bytes.Buffer
	require.NoError(t, json.Indent(&out, b, o.Prefix, o.Indent))
	// Indent keeps trailing whitespace; the Writer drops all whitespace
	// outside strings.
	return strings.TrimRight(out.String(), " \t\r\n")
}

var samples = []string{
	`{}`, `[]`, `1`, `"x"`, `null`,
	`{"a":[1,2,{"b":[]},{}],"c":"d:,[]{}\"\\"}`,
	`[[[[["deep"]]]],{"k":{"k":{"k":1}}}]`,
	` { "spaced" : [ 1 , 2 ] } `,
	`{"html":"<a href=\"x\">&amp;</a>","sep":"line\u2028para\u2029end","raw":"` + "\u2028\u2029<>&" + `é"}`,
}

func TestMatchesEncodingJSON(t *testing.T) {
	for _, o := range []jsonindent.Options{
		{Indent: "  "},
		{Prefix: ">", Indent: "\t"},
		{Indent: "  ", EscapeHTML: true},
	} {
		for _, src := range samples {
			want := reference(t, src, o)
			for _, n := range []int{1, 2, 3, 7, len(src)} {
				assert.Equal(t, want, indent(t, src, o, n), "%q in pieces of %d, %+v", src, n, o)
			}
		}
	}
}

func TestBounds(t *testing.T) {
	tests := []struct {
		name string
		src  string
		o    jsonindent.Options
		want string
	}{
		{"depth", `{"a":{"b":{"c":1}},"l":[[1,[2]],[],{}]}`, jsonindent.Options{Indent: " ", MaxDepth: 2},
			"{\n \"a\": {\n  \"b\": {… 1 key}\n },\n \"l\": [\n  [… 2 items],\n  [],\n  {}\n ]\n}"},
		{"depth one", `[[["x"]],{"a":1,"b":[2]}]`, jsonindent.Options{Indent: " ", MaxDepth: 1},
			"[\n [… 1 item],\n {… 2 keys}\n]"},
		{"items", `[1,2,3,4,5,[6,7,8,9]]`, jsonindent.Options{Indent: " ", MaxItems: 3},
			"[\n 1,\n 2,\n 3\n … 3 more\n]"},
		{"items nested", `{"a":[1,2,3],"b":"x,y","c":{"d":1}}`, jsonindent.Options{Indent: " ", MaxItems: 2},
			"{\n \"a\": [\n  1,\n  2\n  … 1 more\n ],\n \"b\": \"x,y\"\n … 1 more\n}"},
		{"strings do not count", `[["[,]","{"],"]"]`, jsonindent.Options{Indent: " ", MaxDepth: 1},
			"[\n [… 2 items],\n \"]\"\n]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, n := range []int{1, 5, len(tt.src)} {
				assert.Equal(t, tt.want, indent(t, tt.src, tt.o, n), "pieces of %d", n)
			}
		})
	}
}

// TestDeepDocument: a document nested far deeper than any stack would allow
// a recursive writer, with and without a depth bound.
func TestDeepDocument(t *testing.T) {
	const depth = 1_000_000
	src := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	got := indent(t, src, jsonindent.Options{Indent: "  ", MaxDepth: 3}, 4096)
	assert.Equal(t, "[\n  [\n    [\n      [… 1 item]\n    ]\n  ]\n]", got)
	var out countingWriter
	w := jsonindent.NewWriter(&out, jsonindent.Options{})
	_, err := w.WriteString(src)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	assert.Equal(t, int64(4*depth-2), out.n, "unbounded: every bracket, a newline between two")
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func FuzzMatchesEncodingJSON(f *testing.F) {
	for _, s := range samples {
		f.Add(s, 3, true)
	}
	f.Fuzz(func(t *testing.T, src string, n int, esc bool) {
		if !json.Valid([]byte(src)) {
			return
		}
		n = 1 + (n&0xff)%64
		o := jsonindent.Options{Indent: "  ", EscapeHTML: esc}
		if got, want := indent(t, src, o, n), reference(t, src, o); got != want {
			t.Fatalf("%q in pieces of %d: got %q, want %q", src, n, got, want)
		}
		// With bounds, every container shown is closed: the output, its
		// collapsed parts and "… N more" lines aside, nests as the input.
		o.MaxDepth, o.MaxItems = 2, 2
		b := indent(t, src, o, n)
		opens := strings.Count(b, "[") + strings.Count(b, "{")
		closes := strings.Count(b, "]") + strings.Count(b, "}")
		if !strings.ContainsAny(src, `"`) {
			assert.Equal(t, opens, closes, "balanced: %q", b)
		}
	})
}
