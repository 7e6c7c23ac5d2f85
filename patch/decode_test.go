package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The reference decoder: how the package decoded patches before decodePatch
// read them straight from the bytes. It parses the whole patch into a tree,
// then reads each operation object out of it. decodePatch must give exactly
// the same operations, warnings and errors; this is the specification it is
// checked against (TestDecodeMatchesReference, FuzzDecode).

// decodedOp is an operation with its pointers.
type decodedOp struct {
	operation
	pointers
}

func refDecodePatch(raw json.RawMessage, opts *Options) ([]decodedOp, []Warning, error) {
	root, err := parseValueAbove(raw, 2)
	if err != nil {
		return nil, nil, &Error{Index: -1, Reason: err.Error(), Err: causeError{ErrInvalidPatch, err}}
	}
	if root.kind != kindArray {
		return nil, nil, &Error{Index: -1, Err: ErrInvalidPatch,
			Reason: fmt.Sprintf("the patch is a JSON %s, want an array of operations", root.kindName())}
	}
	var warns []Warning
	list := make([]decodedOp, 0, root.arr.len())
	for i := range root.arr.len() {
		op, err := refDecodeOperation(i, root.arr.at(i))
		if err == nil {
			list = append(list, op)
			continue
		}
		if err.err != ErrUnknownOp || (opts != nil && opts.RejectUnknownOps) {
			return nil, warns, op.fail(err)
		}
		msg := fmt.Sprintf("unknown operation %q removed; the rest of the patch applies", op.op)
		if op.op == "" {
			msg = err.reason + "; the operation is removed and the rest of the patch applies"
		}
		warns = append(warns, Warning{Index: i, Op: op.op, Path: op.operation.path, Message: msg})
	}
	return list, warns, nil
}

func refStringMember(o *object, name string) (s string, present bool, err *failure) {
	v, ok := o.get(name)
	if !ok {
		return "", false, nil
	}
	if v.kind != kindString {
		return "", true, failf(ErrInvalidPatch, "%q is a JSON %s, want a string", name, v.kindName())
	}
	return v.text, true, nil
}

func refDecodeOperation(i int, n *node) (decodedOp, *failure) {
	op := decodedOp{operation: operation{index: i}}
	if n.kind != kindObject {
		return op, failf(ErrInvalidPatch, "the operation is a JSON %s, want an object", n.kindName())
	}
	o := n.obj
	path, hasPath, pathErr := refStringMember(o, "path")
	op.operation.path = path
	kind, hasOp, err := refStringMember(o, "op")
	if err != nil {
		return op, failf(ErrUnknownOp, "%s", err.reason)
	}
	if !hasOp {
		return op, failf(ErrUnknownOp, "the operation has no \"op\"")
	}
	op.op = kind
	switch kind {
	case "add", "remove", "replace", "move", "copy", "test":
	default:
		return op, failf(ErrUnknownOp, "%q is not an RFC 6902 operation", kind)
	}
	if pathErr != nil {
		return op, pathErr
	}
	if !hasPath {
		return op, failf(ErrInvalidPatch, "the operation has no \"path\"")
	}
	toks, bad := refParsePointer(path)
	if bad != "" {
		return op, failf(ErrInvalidPointer, "path %q: %s", path, bad)
	}
	op.pointers.path = toks
	switch kind {
	case "move", "copy":
		from, hasFrom, err := refStringMember(o, "from")
		if err != nil {
			return op, err
		}
		if !hasFrom {
			return op, failf(ErrInvalidPatch, "a %s operation needs \"from\"", kind)
		}
		ftoks, bad := refParsePointer(from)
		if bad != "" {
			return op, failf(ErrInvalidPointer, "from %q: %s", from, bad)
		}
		op.pointers.from = ftoks
		if kind == "move" && len(ftoks) == 0 {
			return op, failf(ErrInvalidPatch, "cannot move the whole document")
		}
		if kind == "move" && len(ftoks) < len(toks) && slices.Equal(ftoks, toks[:len(ftoks)]) {
			return op, failf(ErrInvalidPatch, "cannot move %q into its own child %q", from, path)
		}
	case "add", "replace", "test":
		v, ok := o.get("value")
		if !ok {
			return op, failf(ErrInvalidPatch, "a %s operation needs \"value\"", kind)
		}
		op.value = v
	}
	return op, nil
}

func refParsePointer(s string) ([]string, string) {
	if s == "" {
		return nil, ""
	}
	if s[0] != '/' {
		return nil, "a JSON pointer must be empty or start with \"/\""
	}
	toks := strings.Split(s[1:], "/")
	for i, t := range toks {
		if !strings.Contains(t, "~") {
			continue
		}
		u, ok := unescapeToken(t)
		if !ok {
			return nil, "\"~\" must be followed by \"0\" or \"1\" in a JSON pointer"
		}
		toks[i] = u
	}
	return toks, ""
}

// decodePatch reads the whole patch with the decoder, as Apply does, and
// returns its operations.
func decodePatch(raw []byte, opts *Options) ([]decodedOp, []Warning, error) {
	d := newDecoder(raw, opts)
	var list []decodedOp
	for {
		op, ptrs, ok := d.next(nil) // no shared token storage: each operation keeps its own
		if !ok {
			break
		}
		list = append(list, decodedOp{op, ptrs})
	}
	if d.err != nil {
		return nil, d.warns, d.err
	}
	return list, d.warns, nil
}

// decodeDiff describes how the decoder and the reference decoder disagree on
// raw, or returns "".
func decodeDiff(raw []byte, opts *Options) string {
	list, warns, err := decodePatch(raw, opts)
	wantList, wantWarns, wantErr := refDecodePatch(raw, opts)
	if d := errorDiff(err, wantErr); d != "" {
		return d
	}
	if !slices.Equal(warns, wantWarns) || (warns == nil) != (wantWarns == nil) {
		return fmt.Sprintf("warnings %+v, want %+v", warns, wantWarns)
	}
	if len(list) != len(wantList) {
		return fmt.Sprintf("%d operations, want %d", len(list), len(wantList))
	}
	for i, op := range list {
		want := wantList[i]
		switch {
		case op.index != want.index || op.op != want.op || op.operation.path != want.operation.path:
			return fmt.Sprintf("operation %d is %d %q %q, want %d %q %q",
				i, op.index, op.op, op.operation.path, want.index, want.op, want.operation.path)
		case !slices.Equal(op.pointers.path, want.pointers.path) || !slices.Equal(op.from, want.from):
			return fmt.Sprintf("operation %d has tokens %q from %q, want %q from %q",
				i, op.pointers.path, op.from, want.pointers.path, want.from)
		case (op.value == nil) != (want.value == nil):
			return fmt.Sprintf("operation %d has value %v, want %v", i, op.value != nil, want.value != nil)
		case op.value != nil && (string(appendNode(nil, op.value)) != string(appendNode(nil, want.value)) ||
			op.value.size != want.value.size || op.value.kind != want.value.kind):
			return fmt.Sprintf("operation %d has value %s, want %s", i, appendNode(nil, op.value), appendNode(nil, want.value))
		}
	}
	return ""
}

// errorDiff compares two errors of decodePatch field by field, syntax errors
// included.
func errorDiff(err, want error) string {
	if (err == nil) != (want == nil) {
		return fmt.Sprintf("error %v, want %v", err, want)
	}
	if err == nil {
		return ""
	}
	var got, exp *Error
	if !errors.As(err, &got) || !errors.As(want, &exp) {
		return fmt.Sprintf("error %T, want %T", err, want)
	}
	if got.Index != exp.Index || got.Op != exp.Op || got.Path != exp.Path || got.Reason != exp.Reason ||
		got.Error() != exp.Error() {
		return fmt.Sprintf("error %#v, want %#v", got, exp)
	}
	for _, s := range []error{ErrInvalidPatch, ErrUnknownOp, ErrInvalidPointer, ErrPathNotFound, ErrTestFailed, ErrTooLarge} {
		if errors.Is(err, s) != errors.Is(want, s) {
			return fmt.Sprintf("error %v matches %v: %v, want %v", err, s, errors.Is(err, s), errors.Is(want, s))
		}
	}
	var gs, es *SyntaxError
	if errors.As(err, &gs) != errors.As(want, &es) || gs != nil && *gs != *es {
		return fmt.Sprintf("syntax error %v, want %v", gs, es)
	}
	return ""
}

// decodeCases are patches that probe every branch of operation decoding.
var decodeCases = []string{
	// Well-formed.
	`[]`, ` [ ] `, `[{"op":"add","path":"/a","value":1}]`,
	`[{"op":"replace","path":"/items/k000003/active","value":false},{"op":"replace","path":"/counters/c7","value":1}]`,
	`[{"op":"add","path":"/subagents/sa000005","value":{"name":"researcher","status":"running","depth":1,"progress":0,"notes":[]}}]`,
	`[{"path":"/a","value":{"x":[1,2,{"y":null}]},"op":"test"}]`,
	`[{"op":"move","from":"/a/b","path":"/c"},{"op":"copy","from":"","path":"/d"},{"op":"remove","path":""}]`,
	` [ { "op" : "remove" , "path" : "/a~0b/c~1d/~01" } ] `,
	`[{"op":"add","path":"/","value":""},{"op":"add","path":"//","value":"\u00e9\ud83d\ude42"}]`,
	`[{"op":"add","path":"/-","value":-0.5e+3},{"op":"test","path":"/7","value":99},{"op":"test","path":"/7","value":100}]`,
	// Member names and values with escapes, invalid UTF-8, repeats.
	`[{"\u006fp":"add","p\u0061th":"/a","v\u0061lue":1}]`,
	`[{"op":"\u0061dd","path":"\/a\/b","value":1}]`,
	"[{\"op\":\"add\",\"path\":\"/a\xff\",\"value\":1}]",
	"[{\"op\":\"ad\xffd\",\"path\":\"/a\"}]",
	"[{\"o\xffp\":\"add\",\"path\":\"/a\",\"value\":1}]",
	`[{"op":"add","path":"/a","value":1,"value":2}]`,
	`[{"op":"remove","op":"add","path":"/a","value":1}]`,
	`[{"op":"add","path":1,"path":"/a","value":1}]`,
	`[{"op":"add","path":"/a","path":1,"value":1}]`,
	`[{"op":1,"op":"add","path":"/a","value":1}]`,
	`[{"op":"move","from":"/a","from":"/b","path":"/c"}]`,
	`[{"op":"add","path":"/a","value":1,"extra":{"deep":[1,{"op":"x"}]},"from":7}]`,
	`[{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"op":"add","path":"/a","value":1,"op":"remove"}]`,
	// Invalid operations, each check in turn.
	`[1]`, `[null]`, `["add"]`, `[[]]`, `[{}]`,
	`[{"path":"/a"}]`, `[{"op":null,"path":"/a"}]`, `[{"op":["add"],"path":1}]`,
	`[{"op":"increment","path":"/a"}]`, `[{"op":"increment","path":2}]`, `[{"op":"ADD","path":"/a","value":1}]`,
	`[{"op":"add","value":1}]`, `[{"op":"add","path":{},"value":1}]`, `[{"op":"add","path":"a","value":1}]`,
	`[{"op":"add","path":"/a~2","value":1}]`, `[{"op":"add","path":"/a~","value":1}]`,
	`[{"op":"add","path":"/a"}]`, `[{"op":"replace","path":"/a"}]`, `[{"op":"test","path":""}]`,
	`[{"op":"move","path":"/a"}]`, `[{"op":"copy","path":"/a","from":true}]`, `[{"op":"copy","path":"/a","from":"b"}]`,
	`[{"op":"move","path":"/a","from":"/~"}]`, `[{"op":"move","path":"/a","from":""}]`,
	`[{"op":"move","path":"/a/b/c","from":"/a/b"}]`, `[{"op":"move","path":"/a/b","from":"/a/b"}]`,
	`[{"op":"move","path":"/a","from":"/a/b"}]`, `[{"op":"move","path":"/a~1b/c","from":"/a~1b"}]`,
	// Unknown operations: warnings, then maybe a failure.
	`[{"op":"x","path":"/a"},{"op":"add","path":"/b","value":1},{"op":"y"}]`,
	`[{"op":"x","path":"/a"},{"op":"add","path":"/b"},{"op":"y"}]`,
	`[{"op":"x","path":"/a"},{"op":"add","path":"/b"},{`,
	`[{"op":"x"},{"op":"add","path":"/b"},{"op":"y"},7]`,
	// A syntax error after a bad operation wins.
	`[{"op":"add"},{"op":"add","path":"/a","value":tru}]`,
	`[{"op":"add"},{"op":"add","path":"/a","value":1}`,
	`[{"op":"add"},{"op":"add","path":"/a","value":1}] x`,
	`[1, {"op":"add","path":"/a","value":"\x"}]`,
	// Syntax errors inside operation objects.
	`[{`, `[{"op"`, `[{"op":`, `[{"op":"add"`, `[{"op":"add",}]`, `[{"op" "add"}]`, `[{op:"add"}]`,
	`[{"op":"add","path":"/a","value":1]`, `[{"op":"add","path":"/a","value":1}`, `[{"op":"add","path":"/a","value":1},]`,
	`[{"op":"a` + "\x01" + `dd"}]`, `[{"op":"add","path":"/\ud800"}]`, `[{"op":"add","path":"/\u12"}]`,
	`[{"op":"add","path":"/a","value":1}}]`, `[{"op":"add","path":"/a","value":01}]`,
	// Not an array.
	``, ` `, `{}`, `{"op":"add"}`, `null`, `"[]"`, `1`, `{`, `{"a":}`, `[`, `[1`, `]`, `x`, `[] []`,
	// Nesting at the limit, counted from the patch array.
	`[{"op":"add","path":"/a","value":` + strings.Repeat("[", maxNesting-2) + strings.Repeat("]", maxNesting-2) + `}]`,
	`[{"op":"add","path":"/a","value":` + strings.Repeat("[", maxNesting-1) + strings.Repeat("]", maxNesting-1) + `}]`,
	`[{"op":"x","path":"/a"},{"op":"add","path":"/a","value":` + strings.Repeat("[", maxNesting-1) + `}]`,
	strings.Repeat("[", maxNesting+1),
}

// TestDecodeMatchesReference checks decodePatch against the reference
// decoder on every probe case, the json-patch-tests suite and the fuzz
// seeds, with and without RejectUnknownOps.
func TestDecodeMatchesReference(t *testing.T) {
	t.Parallel()
	patches := slices.Clone(decodeCases)
	_, cases := loadSuite(t)
	for _, c := range cases {
		patches = append(patches, string(c.Patch))
	}
	for _, d := range stateDeltas(50, 200) {
		patches = append(patches, string(d))
	}
	for _, p := range patches {
		for _, opts := range []*Options{nil, {RejectUnknownOps: true}} {
			assert.Empty(t, decodeDiff([]byte(p), opts), "patch %.200q, options %+v", p, opts)
		}
	}
}

// FuzzDecode checks decodePatch against the reference decoder on any input.
func FuzzDecode(f *testing.F) {
	for _, p := range decodeCases {
		f.Add([]byte(p), false)
	}
	f.Fuzz(func(t *testing.T, raw []byte, reject bool) {
		if d := decodeDiff(raw, &Options{RejectUnknownOps: reject}); d != "" {
			t.Fatalf("patch %q: %s", raw, d)
		}
	})
}

// TestApplyDoesNotRetainPatch overwrites the patch after Apply: the result,
// its member names (which come from the patch's paths), the error and the
// warnings must not change, because decodePatch reads the patch in place.
func TestApplyDoesNotRetainPatch(t *testing.T) {
	t.Parallel()
	doc := MustNew(`{"a":{"b":1},"list":[1]}`)
	tests := []struct {
		name  string
		patch string
	}{
		{"new members", `[{"op":"add","path":"/a/new~1key","value":{"x":"text"}},{"op":"add","path":"/n2","value":"s"},{"op":"move","from":"/a/b","path":"/moved"}]`},
		{"error", `[{"op":"bogus","path":"/w"},{"op":"remove","path":"/a/missing"}]`},
		{"unknown op", `[{"op":"bogus","path":"/w"},{"op":"add","path":"/list/-","value":"v"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw := []byte(tt.patch)
			got, warns, err := Apply(doc, raw, nil)
			enc, msg := got.String(), fmt.Sprint(err)
			for i := range raw {
				if raw[i] >= 'a' && raw[i] <= 'z' {
					raw[i] = 'Z'
				}
			}
			again, wantWarns, _ := Apply(doc, json.RawMessage(tt.patch), nil)
			require.Equal(t, again.String(), enc, "the result is stable")
			assert.Equal(t, enc, got.String(), "the document changed with the patch's bytes")
			assert.Equal(t, msg, fmt.Sprint(err), "the error changed with the patch's bytes")
			assert.Equal(t, wantWarns, warns, "the warnings changed with the patch's bytes")
			if err == nil {
				// Member names built from the patch still find their values.
				assert.True(t, got.Equal(again))
			}
		})
	}
}
