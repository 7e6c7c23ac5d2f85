package patch

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string // compact encoding
	}{
		{"null", `null`, `null`},
		{"true", ` true `, `true`},
		{"false", "\n\tfalse\r", `false`},
		{"integer", `-12`, `-12`},
		{"number literal kept", `1.50E+3`, `1.50E+3`},
		{"huge number kept", `123456789012345678901234567890e400`, `123456789012345678901234567890e400`},
		{"string", `"hi"`, `"hi"`},
		{"escapes decoded and re-encoded", `"\u0041\/\"\\\b\f\n\r\t\u0001"`, `"A/\"\\\b\f\n\r\t\u0001"`},
		{"no HTML escaping", `"<a&b>"`, `"<a&b>"`},
		{"unicode kept", `"é🙂\u2028"`, "\"é🙂\u2028\""},
		{"surrogate pair", `"\ud83d\ude42"`, `"🙂"`},
		// G19: strings stay exact, never U+FFFD.
		{"lone high surrogate kept", `"\ud83dx"`, `"\ud83dx"`},
		{"lone low surrogate kept", `"\ude42"`, `"\ude42"`},
		{"high then non-low escape", `"\ud83d\u0041"`, `"\ud83dA"`},
		{"low then high", `"\ude00\ud83d"`, `"\ude00\ud83d"`},
		{"pair", `"\ud83d\ude00"`, `"😀"`},
		{"invalid UTF-8 kept", "\"a\xffb\"", "\"a\xffb\""},
		{"lone surrogates keep member names apart", `{"k\ud800":1,"k\udbff":2,"k\ufffd":3}`, `{"k\ud800":1,"k\udbff":2,"k` + "\ufffd" + `":3}`},
		{"compacted", ` { "a" : [ 1 , { } , [ ] ] , "b" : { "c" : null } } `, `{"a":[1,{},[]],"b":{"c":null}}`},
		{"member order kept", `{"z":1,"a":2,"m":3}`, `{"z":1,"a":2,"m":3}`},
		{"duplicate member: first place, last value", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := New(json.RawMessage(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(d.JSON()))
			assert.Equal(t, len(tt.want), d.Size(), "Size")
			again, err := New(d.JSON())
			require.NoError(t, err, "the encoding parses")
			assert.Equal(t, tt.want, again.String(), "encoding is stable")
			assert.True(t, again.Equal(d))
		})
	}
}

func TestNewLargeObject(t *testing.T) {
	t.Parallel()
	// Enough members for the trie, with a duplicate and re-ordered names.
	var b strings.Builder
	var want strings.Builder
	b.WriteString("{")
	want.WriteString("{")
	for i := range 200 {
		if i > 0 {
			b.WriteString(",")
			want.WriteString(",")
		}
		k := fmt.Sprintf("%03d", (i*7)%200)
		fmt.Fprintf(&b, `"%s":%d`, k, i)
		v := i
		if i == 3 {
			v = 999
		}
		fmt.Fprintf(&want, `"%s":%d`, k, v)
	}
	b.WriteString(`,"021":999}`) // the name of member 3
	want.WriteString("}")
	d, err := New(json.RawMessage(b.String()))
	require.NoError(t, err)
	assert.Equal(t, want.String(), d.String())
	assert.Equal(t, want.Len(), d.Size())
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		offset int
		msg    string
	}{
		{"empty", ``, 0, "unexpected end of input"},
		{"blank", `   `, 3, "unexpected end of input"},
		{"two values", `1 2`, 2, "after the top-level value"},
		{"leading zero", `01`, 1, "after the top-level value"},
		{"bare minus", `-`, 1, "want a digit"},
		{"dot without digits", `1.`, 2, "after '.'"},
		{"empty exponent", `1e+`, 3, "in the exponent"},
		{"plus sign", `+1`, 0, "want a value"},
		{"bad literal", `tru`, 0, "want true"},
		{"unterminated string", `"abc`, 4, "end of input in string"},
		{"raw newline in string", "\"a\nb\"", 2, "control character"},
		{"bad escape", `"\x"`, 2, "invalid escape"},
		{"short unicode escape", `"\u12"`, 3, "end of input"},
		{"bad hex", `"\u12g4"`, 5, "invalid hex digit"},
		{"trailing comma in array", `[1,]`, 3, "want a value"},
		{"trailing comma in object", `{"a":1,}`, 7, "want a member name"},
		{"missing colon", `{"a" 1}`, 5, "want ':'"},
		{"unquoted name", `{a:1}`, 1, "want a member name"},
		{"unclosed array", `[1`, 2, "want ',' or ']'"},
		{"unclosed object", `{"a":1`, 6, "want ',' or '}'"},
		{"single quotes", `'a'`, 0, "want a value"},
		{"NaN", `NaN`, 0, "want a value"},
		{"too deep", strings.Repeat("[", maxNesting+1), maxNesting, "nest deeper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := New(json.RawMessage(tt.in))
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.offset, se.Offset, "offset: %v", err)
			assert.Contains(t, se.Msg, tt.msg)
			assert.Contains(t, err.Error(), fmt.Sprintf("offset %d", tt.offset))
			assert.True(t, d.IsNull(), "the zero Document on error")
		})
	}
	_, err := New(json.RawMessage(strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting)))
	assert.NoError(t, err, "exactly the maximum nesting is fine")
}

func TestZeroAndEmpty(t *testing.T) {
	t.Parallel()
	var zero Document
	assert.Equal(t, "null", string(zero.JSON()))
	assert.True(t, zero.IsNull())
	assert.False(t, zero.IsObject())
	assert.Equal(t, 4, zero.Size())
	assert.True(t, zero.Equal(MustNew("null")))

	e := EmptyObject()
	assert.Equal(t, "{}", string(e.JSON()))
	assert.True(t, e.IsObject())
	assert.False(t, e.IsNull())
	assert.Equal(t, 2, e.Size())

	got, _, err := Apply(zero, json.RawMessage(`[{"op":"replace","path":"","value":{"a":1}}]`), nil)
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, got.String())
	assert.True(t, zero.IsNull(), "the zero Document stays null")
}

func TestJSONIsACopy(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{"a":"b"}`)
	d, err := New(raw)
	require.NoError(t, err)
	raw[6] = 'X' // the caller's buffer is not retained
	out := d.JSON()
	out[6] = 'Y' // nor is the returned slice the document's own
	b, _ := d.MarshalJSON()
	b[6] = 'Z'
	assert.Equal(t, `{"a":"b"}`, d.String())
	assert.Equal(t, `xx{"a":"b"}`, string(d.AppendJSON([]byte("xx"))))
}

func TestMarshalUnmarshalJSON(t *testing.T) {
	t.Parallel()
	type view struct {
		State  Document  `json:"state"`
		Other  *Document `json:"other"`
		Absent Document  `json:"absent"`
	}
	in := view{State: MustNew(`{"b":[1,2],"a":null}`)}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.Equal(t, `{"state":{"b":[1,2],"a":null},"other":null,"absent":null}`, string(b))

	var out view
	require.NoError(t, json.Unmarshal([]byte(`{"state":{"x":[true]},"other":"s","absent":null}`), &out))
	assert.Equal(t, `{"x":[true]}`, out.State.String())
	require.NotNil(t, out.Other)
	assert.Equal(t, `"s"`, out.Other.String())
	assert.True(t, out.Absent.IsNull())

	var d Document
	assert.Error(t, d.UnmarshalJSON([]byte(`{`)))
}

func TestEqual(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`1`, `1e0`, true},
		{`0`, `-0`, true},
		{`1e400`, `2e400`, true}, // both +Inf, as in JavaScript
		{`1e400`, `-1e400`, false},
		{`0.1`, `0.10000000000000001`, true}, // the same double
		{`1`, `2`, false},
		{`1`, `"1"`, false},
		{`true`, `false`, false},
		{`null`, `null`, true},
		{`null`, `false`, false},
		{`"a\u0062"`, `"ab"`, true},
		{`[]`, `{}`, false},
		{`[1,[2]]`, `[1,[2]]`, true},
		{`[1,2]`, `[1]`, false},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":1,"c":2}`, `{"a":1,"b":2}`, false},
		{`{"a":{"x":[1]}}`, `{"a":{"x":[1.0]}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.a+"="+tt.b, func(t *testing.T) {
			t.Parallel()
			a, b := MustNew(tt.a), MustNew(tt.b)
			assert.Equal(t, tt.want, a.Equal(b))
			assert.Equal(t, tt.want, b.Equal(a), "symmetric")
		})
	}
}

func TestMustNewPanics(t *testing.T) {
	t.Parallel()
	assert.PanicsWithValue(t, `patch.MustNew("{"): invalid JSON at byte offset 1: unexpected end of input in object, want a member name`,
		func() { MustNew("{") })
}

// TestConcurrentJSON reads a fresh document's memoised encoding from many
// goroutines at once (run with -race).
func TestConcurrentJSON(t *testing.T) {
	t.Parallel()
	d, _, err := Apply(MustNew(`{"a":[1,2,3]}`), json.RawMessage(`[{"op":"add","path":"/b","value":{"c":"d"}}]`), nil)
	require.NoError(t, err)
	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Go(func() {
			results[i] = string(d.JSON())
		})
	}
	wg.Wait()
	for _, r := range results {
		assert.Equal(t, `{"a":[1,2,3],"b":{"c":"d"}}`, r)
	}
}

// TestNewManyNames parses a document with many repeated member names, some
// escaped or non-ASCII, past the point where the parser starts interning.
func TestNewManyNames(t *testing.T) {
	t.Parallel()
	var in, want strings.Builder
	in.WriteString("[")
	want.WriteString("[")
	for i := range 100 {
		if i > 0 {
			in.WriteString(",")
			want.WriteString(",")
		}
		fmt.Fprintf(&in, `{"id":%d, "a\"b":1, "\u00e9":2, "é":3, "x\u0041":4, "xA":5, "%d":6}`, i, i%7)
		fmt.Fprintf(&want, `{"id":%d,"a\"b":1,"é":3,"xA":5,"%d":6}`, i, i%7)
	}
	in.WriteString("]")
	want.WriteString("]")
	d, err := New(json.RawMessage(in.String()))
	require.NoError(t, err)
	assert.Equal(t, want.String(), d.String())
}
