package persist

import (
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func checkText(t require.TestingT, x Text, want string) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	require.Equal(t, len(want), x.Len(), "Len")
	assert.Equal(t, want == "", x.IsEmpty(), "IsEmpty")
	assert.Equal(t, want, x.String(), "String")
	assert.Equal(t, want, x.String(), "String (memoised)")
}

func TestTextBasics(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		start  string
		chunks []string
		want   string
	}{
		{"zero", "", nil, ""},
		{"empty appends", "", []string{"", ""}, ""},
		{"TextOf", "héllo", nil, "héllo"},
		{"stream", "", []string{"The ", "quick ", "", "brown ", "fox"}, "The quick brown fox"},
		{"TextOf then stream", "a", []string{"b", "c"}, "abc"},
		{"multibyte split", "", []string{"\xe2", "\x82", "\xac"}, "€"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x := TextOf(tc.start)
			for _, c := range tc.chunks {
				x = x.Append(c)
			}
			checkText(t, x, tc.want)
		})
	}
}

func TestTextAppendEmptyReturnsReceiver(t *testing.T) {
	t.Parallel()
	x := TextOf("a")
	assert.Equal(t, x, x.Append(""), "Append(\"\") returns its receiver")
	assert.Equal(t, Text{}, Text{}.Append(""))
	assert.Equal(t, Text{}, TextOf(""), "TextOf(\"\") is the zero Text")
}

// TestTextStreamReusesBuffer checks the amortisation: each value of a stream
// extends one buffer in place instead of copying the prefix.
func TestTextStreamReusesBuffer(t *testing.T) {
	t.Parallel()
	var x Text
	copies := 0
	var prev *byte
	var want strings.Builder
	for i := range 2000 {
		d := string(rune('a' + i%26))
		x = x.Append(d)
		want.WriteString(d)
		s := x.String()
		require.Equal(t, want.String(), s)
		p := unsafe.StringData(s)
		if p != prev {
			copies++
			prev = p
		}
	}
	// Doubling: a new buffer at 1, 33, 68, 136, ... bytes (7 for 2000 bytes).
	assert.LessOrEqual(t, copies, 13, "String on every value of a 2000-byte stream copied %d times", copies)
	assert.GreaterOrEqual(t, copies, 2, "the buffer must have grown at least once")
}

// TestTextOneDelta checks that a text of one delta, a short message's, is
// one allocation of its own length, finished: compacting it costs nothing,
// and a second delta still appends.
func TestTextOneDelta(t *testing.T) {
	delta := strings.Repeat("x", 80)
	var x Text
	allocs := testing.AllocsPerRun(100, func() { x = Text{}.Append(delta) })
	assert.Equal(t, 1.0, allocs, "one allocation, the bytes")
	assert.Equal(t, delta, x.String())
	assert.NotSame(t, unsafe.StringData(delta), unsafe.StringData(x.String()), "a copy: a delta may alias wire bytes")
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = x.Compact() }))
	assert.Equal(t, x, x.Compact(), "already finished")
	assert.Equal(t, delta+"yz", x.Append("y").Append("z").String())
	assert.Equal(t, delta, x.String(), "appending leaves the finished text alone")
}

// TestTextBranchesDoNotAlias appends twice to the same joined value and joins
// both: the second must not overwrite the bytes the first claimed.
func TestTextBranchesDoNotAlias(t *testing.T) {
	t.Parallel()
	base := TextOf("x").Append("y")
	require.Equal(t, "xy", base.String())
	// Both branches fit in the spare capacity of base's buffer.
	a := base.Append("A")
	b := base.Append("B")
	assert.Equal(t, "xyA", a.String())
	assert.Equal(t, "xyB", b.String())
	assert.Equal(t, "xyA", a.String(), "joining b changed a")
	assert.Equal(t, "xy", base.String())
	c := a.Append("1")
	d := b.Append("2")
	assert.Equal(t, "xyB2", d.String())
	assert.Equal(t, "xyA1", c.String())
	assert.Equal(t, "xyB", b.String())
	assert.Equal(t, "xyA", a.String())
}

func TestTextModel(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		versions := []Text{{}}
		models := []string{""}
		pick := func() int { return rapid.IntRange(0, len(versions)-1).Draw(t, "version") }
		t.Repeat(map[string]func(*rapid.T){
			"Append": func(t *rapid.T) {
				i, s := pick(), rapid.StringN(0, 5, -1).Draw(t, "chunk")
				versions = append(versions, versions[i].Append(s))
				models = append(models, models[i]+s)
			},
			"TextOf": func(t *rapid.T) {
				s := rapid.String().Draw(t, "s")
				versions = append(versions, TextOf(s))
				models = append(models, s)
			},
			"String": func(t *rapid.T) {
				i := pick()
				assert.Equal(t, models[i], versions[i].String(), "version %d", i)
			},
		})
		for i := range versions {
			checkText(t, versions[i], models[i])
		}
	})
}

// TestTextConcurrent joins overlapping branches of one stream from many
// goroutines at once; run under -race.
func TestTextConcurrent(t *testing.T) {
	t.Parallel()
	var stream []Text
	var models []string
	x, m := TextOf("start:"), "start:"
	for i := range 300 {
		c := strings.Repeat(string(rune('a'+i%26)), 1+i%4)
		x, m = x.Append(c), m+c
		stream, models = append(stream, x), append(models, m)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range stream {
				j := i
				if w%2 == 1 {
					j = len(stream) - 1 - i
				}
				if got := stream[j].String(); got != models[j] {
					t.Errorf("worker %d: value %d = %q, want %q", w, j, got, models[j])
					return
				}
				// A private branch extends a shared joined value.
				b := stream[j].Append("|w")
				if got, want := b.String(), models[j]+"|w"; got != want {
					t.Errorf("worker %d: branch %d = %q, want %q", w, j, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	for i := range stream {
		require.Equal(t, models[i], stream[i].String(), "value %d after the race", i)
	}
}

// TestTextOfSharesItsString checks that TextOf does not copy, and that
// appending to such a text never writes into the string's memory.
func TestTextOfSharesItsString(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("abc", 10)
	x := TextOf(s)
	assert.Same(t, unsafe.StringData(s), unsafe.StringData(x.String()), "TextOf copied its string")
	y := x.Append("!")
	assert.Equal(t, s+"!", y.String())
	assert.Equal(t, strings.Repeat("abc", 10), s, "appending wrote into the string")
	assert.NotSame(t, unsafe.StringData(s), unsafe.StringData(y.String()), "Append to a TextOf value must copy")
}

// TestTextLargeAppend appends deltas much larger than the text so far.
func TestTextLargeAppend(t *testing.T) {
	t.Parallel()
	var x Text
	var want strings.Builder
	for i := range 12 {
		d := strings.Repeat(string(rune('a'+i)), 1<<i*100)
		x = x.Append(d)
		want.WriteString(d)
		require.Equal(t, want.Len(), x.Len())
	}
	assert.Equal(t, want.String(), x.String())
}
