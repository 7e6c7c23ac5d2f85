package model

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`q"b\`, `"q\"b\\"`},
		{"a\nb\tc\r\b\f", `"a\nb\tc\r\b\f"`},
		{"\x00\x1f", `"\u0000\u001f"`},
		{"<&> \u2028 é 👋", `"<&> ` + "\u2028" + ` é 👋"`},
		{"bad \xff byte", "\"bad \xff byte\""}, // kept (G19)
		{"lone \xed\xa0\x80", `"lone \ud800"`}, // a lone surrogate as its escape
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			got := string(AppendString(nil, tc.in))
			assert.Equal(t, tc.want, got)
			var back string
			require.NoError(t, json.Unmarshal([]byte(got), &back), "valid JSON")
			if utf8.ValidString(tc.in) {
				assert.Equal(t, tc.in, back, "round trip")
			}
		})
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("hello \"world\"\n")
	f.Add("\xff\xfe<>&\u2028")
	f.Fuzz(func(t *testing.T, s string) {
		b := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("AppendString(%q) = %s is not valid JSON: %v", s, b, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("round trip of %q gave %q", s, back)
		}
	})
}

func TestMeta(t *testing.T) {
	var m Meta
	assert.Nil(t, m.JSON(), "absent")
	assert.Nil(t, m.Merge(nil))
	m1 := m.Merge(json.RawMessage(`{"a":1,"b":{"x":[1]}}`))
	m2 := m1.Merge(json.RawMessage(`{"b":null,"c":"z"}`))
	assert.JSONEq(t, `{"a":1,"b":{"x":[1]}}`, string(m1.JSON()), "merging does not change the original")
	assert.JSONEq(t, `{"a":1,"b":null,"c":"z"}`, string(m2.JSON()))
	assert.Equal(t, `{"a":1,"b":null,"c":"z"}`, string(m2.JSON()), "insertion order kept")
	assert.Nil(t, MetaOf(json.RawMessage(`[1]`)), "not an object")
	assert.Equal(t, `{}`, string(MetaOf(json.RawMessage(`{}`)).JSON()))
}

func TestStateInvCache(t *testing.T) {
	s := NewView(State{Cold: &Cold{Rest: &Rest{}}}).Data()
	private := func() *Rest { return s.Cold.Rest }
	var nodes []*Inv
	for i := range 3 * hotInvs {
		n := NewInv(InvData{Info: &InvInfo{ID: string(rune('a' + i))}})
		s.AppendInv(n)
		s.SetInvs(private, n)
		nodes = append(nodes, n)
	}
	old := *s
	copies := 0
	rest := func() *Rest {
		if copies == 0 {
			c, r := *s.Cold, *s.Cold.Rest
			c.Rest = &r
			s.Cold = &c
		}
		copies++
		return s.Cold.Rest
	}
	for i := range nodes {
		n := NewInv(*nodes[i].Data())
		n.Data().Status = InvErrored
		s.SetInvs(rest, n)
	}
	assert.NotZero(t, copies, "nodes leaving the hot groups are written back to a private rest of the cold part")
	for i := range nodes {
		assert.Equal(t, InvErrored, s.Inv(i).Data().Status, "node %d is the latest", i)
		assert.Same(t, nodes[i], old.Inv(i), "the older state still sees node %d as it was", i)
	}
	var seen int
	s.EachInv(func(n *Inv) bool {
		assert.Equal(t, InvErrored, n.Data().Status)
		seen++
		return true
	})
	assert.Equal(t, len(nodes), seen)
}
