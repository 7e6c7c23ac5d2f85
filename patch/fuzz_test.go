package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fuzzSeeds are (document, patch) pairs every fuzz target starts from: the
// json-patch-tests suite and the cases that matter to agview.
func fuzzSeeds(f *testing.F) {
	_, cases := loadSuite(f)
	for _, c := range cases {
		f.Add([]byte(c.Doc), []byte(c.Patch))
	}
	for _, s := range [][2]string{
		{`{}`, `[{"op":"test","path":""}]`}, // crashes evanphx
		{`{"a":1}`, `[{"op":"increment","path":"/a","value":1},{"op":"add","path":"/b","value":2}]`},
		{`{"a":"x"}`, `[{"op":"copy","from":"","path":"/b"},{"op":"copy","from":"","path":"/c"},{"op":"copy","from":"","path":"/d"}]`},
		{`{"a":[1,2]}`, `[{"op":"move","from":"/a/0","path":"/a/-"},{"op":"test","path":"/a","value":[2,1]}]`},
		{`null`, `[{"op":"add","path":"","value":{"k":[]}},{"op":"add","path":"/k/0","value":{}}]`},
		{`{"":{"":1}}`, `[{"op":"remove","path":"//"}]`},
		{`[1,2,3]`, `[{"op":"remove","path":"/01"},{"op":"remove","path":"/-1"},{"op":"add","path":"/+1","value":0}]`},
		{`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16}`,
			`[{"op":"remove","path":"/k3"},{"op":"add","path":"/k3","value":3},{"op":"move","from":"/k0","path":"/k17"},{"op":"remove","path":"/k1"},{"op":"remove","path":"/k2"},{"op":"remove","path":"/k4"},{"op":"remove","path":"/k5"},{"op":"remove","path":"/k6"},{"op":"remove","path":"/k7"},{"op":"remove","path":"/k8"},{"op":"remove","path":"/k9"},{"op":"remove","path":"/k10"}]`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
}

// splitPatch returns the operations of a patch that is a JSON array, each
// as its own one-operation patch.
func splitPatch(p []byte) ([]json.RawMessage, bool) {
	n, err := parseValue(p)
	if err != nil || n.kind != kindArray {
		return nil, false
	}
	out := make([]json.RawMessage, n.arr.len())
	for i := range out {
		out[i] = append(append([]byte{'['}, appendNode(nil, n.arr.at(i))...), ']')
	}
	return out, true
}

// FuzzApply checks Apply's contract on any input: it never panics; it never
// changes its input; a failed patch returns the input document itself and an
// *Error naming an operation of the patch; a successful result's encoding
// parses back to the same value and has the length Size reports; and a patch
// behaves exactly like its operations applied one at a time, stopping at the
// failing one (atomicity).
func FuzzApply(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, docRaw, patchRaw []byte) {
		doc, err := New(docRaw)
		if err != nil {
			return
		}
		before := doc.String()
		opts := &Options{MaxDocumentBytes: 1 << 16}
		got, warns, err := Apply(doc, patchRaw, opts)
		if doc.String() != before {
			t.Fatalf("Apply changed its input: %s -> %s", before, doc.String())
		}
		ops, isArray := splitPatch(patchRaw)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *patch.Error", err)
			}
			if got != doc {
				t.Fatalf("a failed patch must return the input document")
			}
			if pe.Index < -1 || pe.Index >= len(ops) || (pe.Index == -1) == isArray {
				t.Fatalf("error index %d for a patch of %d operations (array: %v): %v", pe.Index, len(ops), isArray, err)
			}
		} else {
			enc := got.JSON()
			if len(enc) != got.Size() {
				t.Fatalf("Size %d, encoding has %d bytes: %s", got.Size(), len(enc), enc)
			}
			back, perr := New(enc)
			if perr != nil || back.String() != string(enc) || !back.Equal(got) {
				t.Fatalf("the encoding %s does not parse back to itself: %v", enc, perr)
			}
		}
		for _, w := range warns {
			if w.Index < 0 || w.Index >= len(ops) {
				t.Fatalf("warning index %d for a patch of %d operations", w.Index, len(ops))
			}
		}
		if !isArray {
			return
		}
		// One operation at a time.
		var pe *Error
		errors.As(err, &pe)
		cur := doc
		for i, op := range ops {
			next, _, stepErr := Apply(cur, op, opts)
			if pe != nil && i == pe.Index {
				var se *Error
				if !errors.As(stepErr, &se) || se.Index != 0 || !errors.Is(stepErr, pe.Err) {
					t.Fatalf("operation %d failed in the patch (%v) but alone gives %v", i, err, stepErr)
				}
				return
			}
			if stepErr != nil {
				// Only a malformed later operation, found before anything
				// applies, may hide the failure of an earlier one.
				if pe == nil || !errors.Is(err, ErrInvalidPatch) && !errors.Is(err, ErrInvalidPointer) {
					t.Fatalf("operation %d fails alone (%v) but the patch gave %v", i, stepErr, err)
				}
				return
			}
			cur = next
		}
		if err == nil && cur.String() != got.String() {
			t.Fatalf("one at a time gives %s, the patch gives %s", cur, got)
		}
	})
}

// evanphxApply applies a patch with evanphx/json-patch/v5 configured as
// agview would use it: negative indices off, no HTML escaping. It reports a
// panic as an error.
func evanphxApply(doc, patchRaw []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("evanphx panicked: %v", r)
		}
	}()
	p, err := jsonpatch.DecodePatch(patchRaw)
	if err != nil {
		return nil, err
	}
	o := jsonpatch.NewApplyOptions()
	o.SupportNegativeIndices = false
	o.EscapeHTML = false
	return p.ApplyWithOptions(doc, o)
}

// evanphxDiffers reports, for a patch that is a JSON array, whether it uses
// something on which evanphx is known to differ from RFC 6902 and so from
// this package:
//   - test: evanphx compares numbers by their literal (1 ≠ 1.0), lets a test
//     for null pass on a missing location, and panics on a whole-document test
//     without "value";
//   - the whole-document pointer "" in path or from (evanphx refuses scalar
//     replacements and removes the member "" instead of the document);
//   - an empty reference token (evanphx resolves "/a//b" as "/a/b");
//   - array index tokens that strconv.Atoi accepts but RFC 6901 refuses
//     ("01", "+1", "-0");
//   - malformed pointers (evanphx ignores everything before the first "/"
//     and leaves unknown "~" escapes alone);
//   - a move into the moved value's own child, which RFC 6902 forbids and
//     evanphx performs on whatever the path names after the removal.
func evanphxDiffers(patchRaw []byte) bool {
	root, err := parseValue(patchRaw)
	if err != nil || root.kind != kindArray {
		return true // evanphx reads null as an empty patch
	}
	for i := range root.arr.len() {
		op := root.arr.at(i)
		if op.kind != kindObject {
			continue
		}
		kind, _ := op.obj.get("op")
		if kind != nil && kind.kind == kindString && kind.text == "test" {
			return true
		}
		var ptrs [][]string
		for _, name := range []string{"path", "from"} {
			v, ok := op.obj.get(name)
			if !ok || v.kind != kindString {
				continue
			}
			toks, bad := parsePointer(v.text)
			if bad != "" || v.text == "" {
				return true
			}
			for _, tok := range toks {
				if tok == "" {
					return true
				}
				if n, err := strconv.Atoi(tok); err == nil && strconv.Itoa(n) != tok {
					return true
				}
			}
			ptrs = append(ptrs, toks)
		}
		if len(ptrs) == 2 && kind != nil && kind.text == "move" && len(ptrs[1]) < len(ptrs[0]) && slices.Equal(ptrs[1], ptrs[0][:len(ptrs[1])]) {
			return true
		}
	}
	return false
}

// compareWithEvanphx applies patchRaw to doc with both engines and fails the
// test when they disagree where evanphx is known to be right: both must fail,
// or both succeed with the same document, member order included.
func compareWithEvanphx(t testing.TB, doc Document, patchRaw []byte) {
	t.Helper()
	if !doc.IsObject() && doc.node().kind != kindArray {
		return // evanphx patches only objects and arrays
	}
	got, _, err := Apply(doc, patchRaw, &Options{RejectUnknownOps: true, MaxDocumentBytes: -1})
	ref, refErr := evanphxApply(doc.JSON(), patchRaw)
	if evanphxDiffers(patchRaw) {
		return
	}
	switch {
	case err != nil && refErr != nil:
	case err != nil:
		t.Fatalf("doc %s patch %s: agview fails (%v), evanphx gives %s", doc, patchRaw, err, ref)
	case refErr != nil:
		t.Fatalf("doc %s patch %s: agview gives %s, evanphx fails (%v)", doc, patchRaw, got, refErr)
	default:
		want, perr := New(ref)
		if perr != nil {
			t.Fatalf("evanphx output %s is not JSON: %v", ref, perr)
		}
		if got.String() != want.String() {
			t.Fatalf("doc %s patch %s: agview gives %s, evanphx %s", doc, patchRaw, got, want)
		}
	}
}

// FuzzApplyDifferential compares Apply with evanphx/json-patch/v5 (see
// compareWithEvanphx and evanphxDiffers).
func FuzzApplyDifferential(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, docRaw, patchRaw []byte) {
		doc, err := New(docRaw)
		if err != nil || doc.Size() > 1<<16 {
			return
		}
		compareWithEvanphx(t, doc, patchRaw)
	})
}

// pointerRE is RFC 6901's grammar for a JSON pointer.
var pointerRE = regexp.MustCompile(`^(/([^~/]|~[01])*)*$`)

// indexRE is RFC 6901's array-index: "0" or digits without a leading zero.
var indexRE = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// FuzzPointer checks pointer parsing against RFC 6901's grammar: a pointer
// is accepted exactly when it matches, and formats back to itself; an array
// index token is accepted exactly when it is an array-index below the length
// (or "-" for add, the length itself too).
func FuzzPointer(f *testing.F) {
	for _, s := range []string{"", "/", "//", "/a/b", "/a~0b~1c", "/~2", "/~", "a", "/0", "/01", "/-", "/-1", "/+1", "/1e0",
		"/999999999999999999", "/9999999999999999999999", "/ü/\x00"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		toks, bad := parsePointer(s)
		if (bad == "") != pointerRE.MatchString(s) {
			t.Fatalf("parsePointer(%q) = %q, %q disagrees with RFC 6901", s, toks, bad)
		}
		if bad == "" && formatPointer(toks) != s {
			t.Fatalf("formatPointer(parsePointer(%q)) = %q", s, formatPointer(toks))
		}
		if n < 0 {
			n = -n
		}
		n %= 1 << 20
		for _, tok := range toks {
			for _, end := range []bool{false, true} {
				i, err := arrayIndex(tok, n, end)
				limit := n
				if end {
					limit++
				}
				want := indexRE.MatchString(tok) && len(tok) <= 7 && mustAtoi(tok) < limit || end && tok == "-"
				if (err == nil) != want {
					t.Fatalf("arrayIndex(%q, %d, %v) = %d, %v; want ok=%v", tok, n, end, i, err, want)
				}
				if err == nil && tok != "-" && strconv.Itoa(i) != tok {
					t.Fatalf("arrayIndex(%q) = %d", tok, i)
				}
			}
		}
	})
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// FuzzNew compares the parser with encoding/json: the same inputs are valid,
// and they decode to the same value (numbers as literals, repeated names
// taking the last value, invalid UTF-8 repaired); the encoding is compact and
// stable.
func FuzzNew(f *testing.F) {
	for _, s := range []string{`null`, `{"a":[1,2.5e3,"x"]}`, `"\ud800"`, "\"\xff\"", `{"a":1,"a":2}`, ` [ ] `, `01`, `1.`,
		`"\u0000\u001f\\"`, `{"a":{"b":{"c":[[[]]]}}}`, `-0.0E-0`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := New(b)
		if (err == nil) != json.Valid(b) {
			t.Fatalf("New(%q): %v, but json.Valid = %v", b, err, json.Valid(b))
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(b) {
				t.Fatalf("New(%q): bad error %v", b, err)
			}
			return
		}
		enc := d.JSON()
		var compact bytes.Buffer
		if err := json.Compact(&compact, enc); err != nil || compact.String() != string(enc) {
			t.Fatalf("encoding %q is not compact JSON: %v", enc, err)
		}
		want, got := decodeAny(t, b), decodeAny(t, enc)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("New(%q) encodes as %q: %#v, want %#v", b, enc, got, want)
		}
		if d.Size() != len(enc) {
			t.Fatalf("Size %d, encoding has %d bytes", d.Size(), len(enc))
		}
	})
}

func decodeAny(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("encoding/json cannot decode %q: %v", b, err)
	}
	return v
}

// TestEvanphxKnownCrash documents why agview validates before (or instead
// of) evanphx: evanphx panics on a whole-document test without "value";
// Apply reports an error.
func TestEvanphxKnownCrash(t *testing.T) {
	t.Parallel()
	_, refErr := evanphxApply([]byte(`{}`), []byte(`[{"op":"test","path":""}]`))
	require.ErrorContains(t, refErr, "panicked", "evanphx v5.9.11 crashes here; if it stops crashing, update this note")
	_, _, err := Apply(EmptyObject(), json.RawMessage(`[{"op":"test","path":""}]`), nil)
	assert.ErrorIs(t, err, ErrInvalidPatch)
}
