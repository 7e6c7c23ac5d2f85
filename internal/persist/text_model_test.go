package persist

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestTextModelCompact is TestTextModel with Compact among the operations:
// values appended to after being compacted, compacted values of texts that
// other values go on extending in place, and compacted branches. Every
// value must keep its string whatever is done to the others afterwards.
func TestTextModelCompact(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		versions := []Text{{}}
		models := []string{""}
		seen := []string{""} // String() as first read, right after creation
		pick := func() int { return rapid.IntRange(0, len(versions)-1).Draw(t, "version") }
		add := func(x Text, m string) {
			versions, models, seen = append(versions, x), append(models, m), append(seen, x.String())
		}
		t.Repeat(map[string]func(*rapid.T){
			"Append": func(t *rapid.T) {
				i, s := pick(), rapid.StringN(0, 40, -1).Draw(t, "chunk")
				add(versions[i].Append(s), models[i]+s)
			},
			"AppendLast": func(t *rapid.T) { // streams: mostly extend the newest value
				i, s := len(versions)-1, rapid.StringN(1, 8, -1).Draw(t, "chunk")
				add(versions[i].Append(s), models[i]+s)
			},
			"Compact": func(t *rapid.T) {
				i := pick()
				c := versions[i].Compact()
				if c.Len() != len(models[i]) || c.IsEmpty() != (models[i] == "") {
					t.Fatalf("Compact of version %d: Len %d IsEmpty %v, want %d", i, c.Len(), c.IsEmpty(), len(models[i]))
				}
				add(c, models[i])
			},
			"TextOf": func(t *rapid.T) {
				s := rapid.StringN(0, 40, -1).Draw(t, "s")
				add(TextOf(s), s)
			},
			"Check": func(t *rapid.T) {
				i := pick()
				if got := versions[i].String(); got != models[i] {
					t.Fatalf("version %d = %q, want %q", i, got, models[i])
				}
			},
		})
		for i := range versions {
			if seen[i] != models[i] {
				t.Fatalf("version %d read %q when made, want %q", i, seen[i], models[i])
			}
			checkText(t, versions[i], models[i])
		}
	})
}

// TestTextCompactSharesOnlyClaimedBytes: a text compacted in place views its
// stream's buffer; the stream value it came from, and other values of the
// same buffer, go on appending into the room after it. The compacted text
// must not see any of that, nor a string read from it before.
func TestTextCompactSharesOnlyClaimedBytes(t *testing.T) {
	t.Parallel()
	x := TextOf(strings.Repeat("x", 30)).Append("yy")
	for x.buf() != nil && len(x.buf().b)-x.Len() > max(16, x.Len()/8) {
		x = x.Append("z")
	}
	want := x.String()
	c := x.Compact()
	require.Nil(t, c.buf())
	s := c.String()
	require.Equal(t, want, s)
	// The original value claims the room after it, in place.
	y := x.Append("123")
	require.Equal(t, want+"123", y.String())
	// A second successor of x cannot claim the same room: it copies.
	z := x.Append("456")
	require.Equal(t, want+"456", z.String())
	require.Equal(t, want, c.String())
	require.Equal(t, want, s)
	// Appending to the compacted text copies it and leaves everyone alone.
	w := c.Append("789")
	require.Equal(t, want+"789", w.String())
	require.Equal(t, want+"123", y.String())
	require.Equal(t, want, c.String())
}

// TestTextConcurrentCompact compacts and extends values of one stream from
// many goroutines at once (run under -race): each goroutine branches off
// shared values, compacts both them and its branches, and appends to the
// compacted texts; no published value may change.
func TestTextConcurrentCompact(t *testing.T) {
	t.Parallel()
	var stream []Text
	var models []string
	var x Text
	m := ""
	for i := range 400 {
		c := strings.Repeat(string(rune('a'+i%26)), 1+i%7)
		x, m = x.Append(c), m+c
		stream, models = append(stream, x), append(models, m)
	}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for i := range stream {
				j := (i*7 + w*13) % len(stream)
				c := stream[j].Compact()
				b := stream[j].Append("|w")
				bc := b.Compact()
				cc := c.Append("+")
				for _, chk := range []struct {
					got, want string
				}{
					{c.String(), models[j]},
					{b.String(), models[j] + "|w"},
					{bc.String(), models[j] + "|w"},
					{cc.String(), models[j] + "+"},
					{stream[j].String(), models[j]},
				} {
					if chk.got != chk.want {
						t.Errorf("worker %d, value %d: %q, want %q", w, j, chk.got, chk.want)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	for i := range stream {
		require.Equal(t, models[i], stream[i].String(), "value %d after the race", i)
	}
}
