package patch

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randGen builds random documents and patches that mostly address locations
// that exist, so that the engines are compared on real work rather than on
// early errors. Member names come from a small set so that objects grow past
// the trie threshold and shrink back, and include names that need "~"
// escapes.
type randGen struct {
	r *rand.Rand
}

var randNames = func() []string {
	names := []string{"a/b", "m~n", "é", "-", "0", "01"}
	for i := range 44 {
		names = append(names, "k"+strconv.Itoa(i))
	}
	return names
}()

func (g randGen) scalar() string {
	switch g.r.IntN(7) {
	case 0:
		return "null"
	case 1:
		return "true"
	case 2:
		return "false"
	case 3:
		return strconv.Itoa(g.r.IntN(100) - 50)
	case 4:
		return []string{"1.5", "1e3", "-0", "2.50"}[g.r.IntN(4)]
	case 5:
		return strconv.Quote(randNames[g.r.IntN(len(randNames))])
	default:
		return `"x\n\u00e9"`
	}
}

func (g randGen) value(depth int) string {
	if depth <= 0 || g.r.IntN(3) == 0 {
		return g.scalar()
	}
	var b strings.Builder
	if g.r.IntN(2) == 0 {
		b.WriteByte('[')
		n, elemDepth := g.r.IntN(6), depth-1
		if g.r.IntN(6) == 0 {
			n, elemDepth = 50+g.r.IntN(40), 0 // around the tree threshold, of scalars
		}
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(g.value(elemDepth))
		}
		b.WriteByte(']')
		return b.String()
	}
	b.WriteByte('{')
	n := g.r.IntN(6)
	if g.r.IntN(4) == 0 {
		n = 12 + g.r.IntN(16) // around the trie threshold
	}
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(randNames[g.r.IntN(len(randNames))]))
		b.WriteByte(':')
		b.WriteString(g.value(depth - 1))
	}
	b.WriteByte('}')
	return b.String()
}

// locations lists the pointers of every value in n.
func locations(n *node, prefix []string, out *[][]string) {
	*out = append(*out, prefix)
	switch n.kind {
	case kindArray:
		for i := range n.arr.len() {
			locations(n.arr.at(i), append(prefix[:len(prefix):len(prefix)], strconv.Itoa(i)), out)
		}
	case kindObject:
		n.obj.eachInOrder(func(k string, v *node) { // deterministic, unlike each
			locations(v, append(prefix[:len(prefix):len(prefix)], k), out)
		})
	}
}

// target picks a location in doc: usually an existing one, sometimes a new
// member or an index at or past the end.
func (g randGen) target(doc *node, forAdd bool) []string {
	var locs [][]string
	locations(doc, nil, &locs)
	loc := locs[g.r.IntN(len(locs))]
	if len(loc) == 0 && len(locs) > 1 && g.r.IntN(8) != 0 {
		loc = locs[1+g.r.IntN(len(locs)-1)]
	}
	if !forAdd && g.r.IntN(6) != 0 {
		return loc
	}
	parent, _ := resolve(doc, loc)
	if parent == nil {
		return loc
	}
	switch parent.kind {
	case kindArray:
		switch g.r.IntN(3) {
		case 0:
			return append(loc[:len(loc):len(loc)], "-")
		case 1:
			return append(loc[:len(loc):len(loc)], strconv.Itoa(parent.arr.len()))
		default:
			return append(loc[:len(loc):len(loc)], strconv.Itoa(g.r.IntN(parent.arr.len()+2)))
		}
	case kindObject:
		return append(loc[:len(loc):len(loc)], randNames[g.r.IntN(len(randNames))])
	}
	return loc
}

func (g randGen) patch(doc *node) string {
	var ops []string
	for range 1 + g.r.IntN(4) {
		var op string
		switch g.r.IntN(5) {
		case 0:
			op = fmt.Sprintf(`{"op":"add","path":%q,"value":%s}`, formatPointer(g.target(doc, true)), g.value(2))
		case 1:
			op = fmt.Sprintf(`{"op":"remove","path":%q}`, formatPointer(g.target(doc, false)))
		case 2:
			op = fmt.Sprintf(`{"op":"replace","path":%q,"value":%s}`, formatPointer(g.target(doc, false)), g.value(2))
		case 3:
			op = fmt.Sprintf(`{"op":"move","from":%q,"path":%q}`, formatPointer(g.target(doc, false)), formatPointer(g.target(doc, true)))
		default:
			op = fmt.Sprintf(`{"op":"copy","from":%q,"path":%q}`, formatPointer(g.target(doc, false)), formatPointer(g.target(doc, true)))
		}
		ops = append(ops, op)
	}
	return "[" + strings.Join(ops, ",") + "]"
}

// TestDifferentialRandom evolves random documents through random patches and
// compares every step with evanphx/json-patch/v5 (member order included),
// and checks after each step that every earlier document still encodes as it
// did (nothing shared was written).
func TestDifferentialRandom(t *testing.T) {
	t.Parallel()
	steps := 30
	docs := 60
	if testing.Short() {
		docs = 50
	}
	applied, failed := 0, 0
	for seed := range docs {
		g := randGen{r: rand.New(rand.NewPCG(uint64(seed), 7))}
		raw := g.value(3)
		if g.r.IntN(2) == 0 {
			raw = `{"root":` + raw + `}`
		}
		doc := MustNew(raw)
		history := []Document{doc}
		encodings := []string{doc.String()}
		for step := range steps {
			p := g.patch(doc.node())
			compareWithEvanphx(t, doc, []byte(p))
			next, _, err := Apply(doc, json.RawMessage(p), nil)
			if err != nil {
				failed++
				continue
			}
			applied++
			doc = next
			history = append(history, doc)
			encodings = append(encodings, doc.String())
			if step == steps-1 {
				for i, h := range history {
					require.Equal(t, encodings[i], string(appendNode(nil, h.node())), "seed %d: document %d changed", seed, i)
				}
			}
		}
	}
	t.Logf("%d patches applied, %d failed", applied, failed)
	assert.Greater(t, applied, failed/2, "the generator must mostly produce patches that apply")
}

// TestRandomTests checks the test operation against the value actually at a
// location, written differently (member order reversed, numbers re-spelt),
// and against a different value.
func TestRandomTests(t *testing.T) {
	t.Parallel()
	for seed := range 100 {
		g := randGen{r: rand.New(rand.NewPCG(uint64(seed), 11))}
		doc := MustNew(g.value(4))
		var locs [][]string
		locations(doc.node(), nil, &locs)
		for _, loc := range locs {
			v, f := resolve(doc.node(), loc)
			require.Nil(t, f)
			same := respell(v)
			p := fmt.Sprintf(`[{"op":"test","path":%q,"value":%s}]`, formatPointer(loc), same)
			_, _, err := Apply(doc, json.RawMessage(p), nil)
			require.NoError(t, err, "seed %d: %s on %s", seed, p, doc)

			other := `{"unlikely":[]}`
			if v.kind == kindObject {
				other = `"unlikely"`
			}
			p = fmt.Sprintf(`[{"op":"test","path":%q,"value":%s}]`, formatPointer(loc), other)
			_, _, err = Apply(doc, json.RawMessage(p), nil)
			require.ErrorIs(t, err, ErrTestFailed, "seed %d: %s on %s", seed, p, doc)
		}
	}
}

// respell encodes n with object members in reverse order and numbers
// written as floats with an exponent.
func respell(n *node) string {
	switch n.kind {
	case kindNumber:
		f, _ := strconv.ParseFloat(n.text, 64)
		return strconv.FormatFloat(f, 'e', -1, 64)
	case kindArray:
		parts := make([]string, n.arr.len())
		for i := range parts {
			parts[i] = respell(n.arr.at(i))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case kindObject:
		var parts []string
		n.obj.eachInOrder(func(k string, v *node) {
			parts = append([]string{strconv.Quote(k) + ":" + respell(v)}, parts...)
		})
		return "{" + strings.Join(parts, ",") + "}"
	}
	return string(appendNode(nil, n))
}
