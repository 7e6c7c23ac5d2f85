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

// TestIndentDepth: levels up to IndentDepth are indented as Indent does,
// deeper ones compact; the whole document is there, and a document nested
// thousands deep costs about its own size, not the square of its depth.
func TestIndentDepth(t *testing.T) {
	o := jsonindent.Options{Indent: "  ", IndentDepth: 2}
	src := `{"a":{"b":{"c":[1,{"d":2}]},"e":[]},"f":1}`
	want := "{\n  \"a\": {\n    \"b\": {\"c\":[1,{\"d\":2}]},\n    \"e\": []\n  },\n  \"f\": 1\n}"
	for _, n := range []int{1, 3, len(src)} {
		got := indent(t, src, o, n)
		assert.Equal(t, want, got, "pieces of %d", n)
		var a, b any
		require.NoError(t, json.Unmarshal([]byte(src), &a))
		require.NoError(t, json.Unmarshal([]byte(got), &b))
		assert.Equal(t, a, b, "the same document")
	}
	// Within the depth, it is Indent's output.
	for _, src := range samples {
		o := jsonindent.Options{Indent: "  ", IndentDepth: 8}
		assert.Equal(t, reference(t, src, o), indent(t, src, o, 3), "%q", src)
	}

	for _, tc := range []struct {
		name string
		src  string
	}{
		{"nested arrays", strings.Repeat("[", 9_999) + strings.Repeat("]", 9_999)},
		{"nested objects", strings.Repeat(`{"k":`, 5_000) + "1" + strings.Repeat("}", 5_000)},
		// The worst case: a wide array of one-byte members just at the
		// depth, each on a line indented IndentDepth times.
		{"wide at the depth", strings.Repeat("[", 32) + strings.Repeat("1,", 10_000) + "1" + strings.Repeat("]", 32)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const depth = 32
			out := indent(t, tc.src, jsonindent.Options{Indent: "  ", IndentDepth: depth}, 4096)
			ratio := float64(len(out)) / float64(len(tc.src))
			t.Logf("%d bytes in, %d out: ×%.2f", len(tc.src), len(out), ratio)
			// Each member costs at least 2 bytes in ("1,") and at most a
			// line break and 2·depth spaces more out.
			assert.LessOrEqual(t, ratio, float64(2*depth+3)/2, "output at most (len(Indent)·IndentDepth+3)/2 times the input")
			var a, b bytes.Buffer
			require.NoError(t, json.Compact(&a, []byte(tc.src)))
			require.NoError(t, json.Compact(&b, []byte(out)))
			assert.Equal(t, a.String(), b.String(), "the whole document")
		})
	}
}

// TestSafe: strings keep their text, but what a terminal would interpret
// and bytes that are not UTF-8 are escaped; the result decodes as
// encoding/json decodes the input (which reads bad bytes as U+FFFD).
func TestSafe(t *testing.T) {
	src := "{\"k\u009b\":\"\x1b]52;c;x\x07 is not JSON\",\"s\":\"a\u009b31m b\u202ec \x7f d\xff\xfe e\xe2\x82 é☕ \u2028 \U000E0041 \\u001b\"}"
	// (the raw C0 controls are not valid JSON: they are escaped all the same)
	o := jsonindent.Options{Safe: true, IndentDepth: -1}
	want := `{"k\u009b":"\u001b]52;c;x\u0007 is not JSON",` +
		`"s":"a\u009b31m b\u202ec \u007f d\ufffd\ufffd e\ufffd\ufffd é☕ \u2028 \udb40\udc41 \u001b"}`
	for _, n := range []int{1, 2, 5, len(src)} {
		assert.Equal(t, want, indent(t, src, o, n), "pieces of %d", n)
	}
	// A character cut short at the end.
	assert.Equal(t, `"a\ufffd\ufffd`, indent(t, "\"a\xe2\x82", o, 1))
	// Valid text decodes to itself.
	valid := `{"s":"é☕ \u009b \u202e x"}`
	var a, b any
	require.NoError(t, json.Unmarshal([]byte(valid), &a))
	require.NoError(t, json.Unmarshal([]byte(indent(t, valid, jsonindent.Options{Safe: true, Indent: " "}, 1)), &b))
	assert.Equal(t, a, b)
}
