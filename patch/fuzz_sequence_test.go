package patch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Fuzzing sequences of patches
//
// A hostile document is built by many small patches, each harmless alone:
// the depth bomb doubles the nesting with every delta while the document
// stays tiny. Fuzzing one patch at a time cannot find that, so these targets
// fuzz sequences, as a stream applies them, and check after every step what
// must hold of every document a patch can make: the stored sizes and heights
// are exact, the nesting limit holds, the encoding parses back to the same
// value, earlier documents are unchanged, and the result agrees with
// evanphx/json-patch/v5 where that is a fair oracle.

// maxOracleHeight and maxOracleSize bound the documents compared with
// evanphx: it re-parses the whole document per operation, and recursion in
// encoding/json is not what the comparison is about.
const (
	maxOracleHeight = 64
	maxOracleSize   = 1 << 14
)

// sequence applies patches to doc one after the other, as a stream of deltas
// does, checking each step; a failed patch leaves the document unchanged.
func sequence(t *testing.T, doc Document, patches [][]byte) {
	history := []Document{doc}
	encodings := []string{doc.String()}
	for i, p := range patches {
		if doc.Size() <= maxOracleSize && doc.node().height <= maxOracleHeight {
			compareWithEvanphx(t, doc, p)
		}
		next, _, err := Apply(doc, p, &Options{MaxDocumentBytes: 1 << 16})
		checkDocument(t, next)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("step %d: error %v is not a *patch.Error", i, err)
			}
			if next != doc {
				t.Fatalf("step %d: a failed patch must return its input document", i)
			}
			continue
		}
		doc = next
		history = append(history, doc)
		encodings = append(encodings, doc.String())
	}
	for i, h := range history {
		if got := string(appendNode(nil, h.node())); got != encodings[i] {
			t.Fatalf("document %d of the sequence changed: %s, was %s", i, got, encodings[i])
		}
	}
}

// checkDocument checks what holds of every document: heights and size
// exact, nesting within the limit, and an encoding that parses back to the
// same value.
func checkDocument(t *testing.T, d Document) {
	t.Helper()
	n := d.node()
	if n.height > MaxNesting {
		t.Fatalf("the document nests %d levels, over the limit of %d", n.height, MaxNesting)
	}
	checkHeights(t, n)
	enc := d.JSON()
	if len(enc) != d.Size() {
		t.Fatalf("Size %d, encoding has %d bytes", d.Size(), len(enc))
	}
	back, err := New(enc)
	if err != nil || back.String() != string(enc) || !back.Equal(d) {
		t.Fatalf("the encoding does not parse back to itself: %v", err)
	}
}

// FuzzApplySequence applies a sequence of patches, one per line of its
// second argument, to the document of its first (see sequence).
func FuzzApplySequence(f *testing.F) {
	_, cases := loadSuite(f)
	for i := 0; i+1 < len(cases); i += 2 {
		f.Add([]byte(cases[i].Doc), []byte(string(cases[i].Patch)+"\n"+string(cases[i+1].Patch)))
	}
	// The depth bomb: each delta copies the document into its innermost
	// array. Mutations that repeat a line with one more "/0" go on from here.
	var bomb []string
	for h := 1; h <= 8; h *= 2 {
		bomb = append(bomb, fmt.Sprintf(`[{"op":"copy","from":"","path":"%s/-"}]`, zeros(h-1)))
	}
	f.Add([]byte(`[]`), []byte(strings.Join(bomb, "\n")))
	f.Add([]byte(`{"a":{"b":[]}}`), []byte(`[{"op":"copy","from":"/a","path":"/a/b/-"}]
[{"op":"copy","from":"/a","path":"/a/b/0/b/-"}]
[{"op":"move","from":"/a/b","path":"/c"}]
[{"op":"copy","from":"","path":"/c/-"}]`))
	f.Fuzz(func(t *testing.T, docRaw, patchesRaw []byte) {
		doc, err := New(docRaw)
		if err != nil || doc.Size() > 1<<16 {
			return
		}
		lines := bytes.Split(patchesRaw, []byte("\n"))
		if len(lines) > 64 {
			return
		}
		sequence(t, doc, lines)
	})
}

// byteSource is a rand.Source reading the fuzzer's bytes: the choices of a
// generated sequence are the input, so the fuzzer's mutations change them
// one by one. Once they are used up it goes on with a fixed generator (a
// source stuck at one value would make rand.IntN loop forever).
type byteSource struct {
	b    []byte
	rest rand.PCG
}

func (s *byteSource) Uint64() uint64 {
	if len(s.b) == 0 {
		return s.rest.Uint64()
	}
	var buf [8]byte
	n := copy(buf[:], s.b)
	s.b = s.b[n:]
	return binary.LittleEndian.Uint64(buf[:])
}

// FuzzPatchSequence generates a sequence of patches from its input, each
// aimed at locations the current document has (randGen), copies of the whole
// document into its tallest part included (the step of the depth bomb, which
// a dozen such steps in a row make), and applies them (see sequence).
func FuzzPatchSequence(f *testing.F) {
	f.Add([]byte(`[[]]`), []byte{})
	f.Add([]byte(`{"a":[1,{"b":[]}]}`), []byte{4, 0, 0, 0, 0, 0, 0, 0, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte(`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16}`),
		[]byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18"))
	f.Fuzz(func(t *testing.T, docRaw, choices []byte) {
		doc, err := New(docRaw)
		if err != nil || doc.Size() > 1<<12 || doc.node().height > 16 {
			return
		}
		src := &byteSource{b: choices}
		g := randGen{r: rand.New(src)}
		var patches [][]byte
		for len(src.b) > 0 && len(patches) < 48 {
			patches = append(patches, []byte(g.sequencePatch(doc.node())))
			next, _, err := Apply(doc, patches[len(patches)-1], &Options{MaxDocumentBytes: 1 << 16})
			if err == nil {
				doc = next
			}
		}
		start, _ := New(docRaw)
		sequence(t, start, patches)
	})
}

// sequencePatch is patch with one more move: copying the whole document into
// a location of itself (the depth bomb's step), which doubles its nesting.
func (g randGen) sequencePatch(doc *node) string {
	if g.r.IntN(4) == 0 {
		return fmt.Sprintf(`[{"op":"copy","from":"","path":%q}]`, formatPointer(g.deepTarget(doc)))
	}
	return g.patch(doc)
}

// deepTarget picks an add location inside the tallest array or object of
// doc, following the tallest member at every level.
func (g randGen) deepTarget(doc *node) []string {
	var toks []string
	n := doc
	for n.height > 1 {
		var next *node
		var tok string
		switch n.kind {
		case kindArray:
			for i := range n.arr.len() {
				if e := n.arr.at(i); next == nil || e.height > next.height {
					next, tok = e, fmt.Sprint(i)
				}
			}
		case kindObject:
			n.obj.eachInOrder(func(k string, v *node) {
				if next == nil || v.height > next.height {
					next, tok = v, k
				}
			})
		}
		toks, n = append(toks, tok), next
	}
	switch n.kind {
	case kindArray:
		return append(toks, "-")
	case kindObject:
		return append(toks, randNames[g.r.IntN(len(randNames))])
	}
	return toks // a scalar document: the copy replaces it
}

// TestDepthBombSequence runs the depth bomb through the sequence checks.
func TestDepthBombSequence(t *testing.T) {
	t.Parallel()
	var patches [][]byte
	for h := 1; h < 1<<15; h *= 2 {
		patches = append(patches, fmt.Appendf(nil, `[{"op":"copy","from":"","path":"%s/-"}]`, zeros(h-1)))
	}
	sequence(t, MustNew(`[]`), patches)
}
