package patch_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agview/agview/patch"
)

// A run starts with the empty object; a STATE_SNAPSHOT replaces it and each
// STATE_DELTA patches it.
func Example() {
	state := patch.EmptyObject()
	fmt.Println(state)

	snapshot := json.RawMessage(`{"findings": {}, "log": []}`)
	state, err := patch.New(snapshot)
	if err != nil {
		panic(err)
	}

	delta := json.RawMessage(`[
		{"op": "add", "path": "/findings/sub-1", "value": ["tides"]},
		{"op": "add", "path": "/log/-", "value": "sub-1 reported"}
	]`)
	next, _, err := patch.Apply(state, delta, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(state)
	fmt.Println(next)
	// Output:
	// {}
	// {"findings":{},"log":[]}
	// {"findings":{"sub-1":["tides"]},"log":["sub-1 reported"]}
}

// A delta that cannot apply is skipped whole (PROTOCOL.md G8): Apply returns
// the state unchanged and a *patch.Error naming the failing operation.
func ExampleApply_failure() {
	state := patch.MustNew(`{"version": 1, "items": []}`)
	delta := json.RawMessage(`[
		{"op": "add", "path": "/items/-", "value": "x"},
		{"op": "test", "path": "/version", "value": 2}
	]`)
	next, _, err := patch.Apply(state, delta, nil)

	var pe *patch.Error
	if errors.As(err, &pe) {
		fmt.Printf("operation %d (%s %s) failed: %s\n", pe.Index, pe.Op, pe.Path, pe.Reason)
		fmt.Println("test failed:", errors.Is(err, patch.ErrTestFailed))
	}
	fmt.Println(next)
	// Output:
	// operation 1 (test /version) failed: value at "/version" is 1, want 2
	// test failed: true
	// {"version":1,"items":[]}
}

// An operation with an unknown "op" is removed with a warning and the rest of
// the patch applies, as the reference client does (PROTOCOL.md G2).
func ExampleApply_unknownOp() {
	state := patch.MustNew(`{"a": 1}`)
	delta := json.RawMessage(`[
		{"op": "increment", "path": "/a", "value": 1},
		{"op": "add", "path": "/b", "value": 2}
	]`)
	next, warnings, err := patch.Apply(state, delta, nil)
	if err != nil {
		panic(err)
	}
	for _, w := range warnings {
		fmt.Println(w)
	}
	fmt.Println(next)

	// RFC 6902 proper refuses the patch instead.
	_, _, err = patch.Apply(state, delta, &patch.Options{RejectUnknownOps: true})
	fmt.Println(err)
	// Output:
	// patch: operation 0 (increment "/a"): unknown operation "increment" removed; the rest of the patch applies
	// {"a":1,"b":2}
	// patch: operation 0 (increment "/a"): unknown operation: "increment" is not an RFC 6902 operation
}

// A short patch that doubles the document with each copy stops with
// ErrTooLarge once the document passes Options.MaxDocumentBytes.
func ExampleOptions() {
	state := patch.MustNew(`{"a": "0123456789"}`)
	bomb := json.RawMessage(`[
		{"op": "copy", "from": "", "path": "/b"},
		{"op": "copy", "from": "", "path": "/c"},
		{"op": "copy", "from": "", "path": "/d"}
	]`)
	_, _, err := patch.Apply(state, bomb, &patch.Options{MaxDocumentBytes: 64})
	fmt.Println(errors.Is(err, patch.ErrTooLarge))
	fmt.Println(err)
	// Output:
	// true
	// patch: operation 1 (copy "/c"): document too large: the document would grow to 87 bytes, over the limit of 64
}

// New parses any JSON value; JSON and MarshalJSON give the compact encoding
// with members in insertion order and numbers as written.
func ExampleNew() {
	d, err := patch.New(json.RawMessage(` { "z": 1.50, "a": [true, null] } `))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(d.JSON()), d.Size(), d.IsObject())

	_, err = patch.New(json.RawMessage(`{"a": }`))
	var se *patch.SyntaxError
	fmt.Println(errors.As(err, &se), se.Offset)
	// Output:
	// {"z":1.50,"a":[true,null]} 26 true
	// true 6
}

// The zero Document is JSON null, a legal state (STATE_SNAPSHOT may set it).
func ExampleDocument() {
	var d patch.Document
	b, _ := json.Marshal(struct {
		State patch.Document `json:"state"`
	}{d})
	fmt.Println(string(b), d.IsNull())
	fmt.Println(patch.EmptyObject().Equal(patch.MustNew(`{ }`)))
	// Output:
	// {"state":null} true
	// true
}
