package persist_test

import (
	"fmt"

	"github.com/agview/agview/internal/persist"
)

func ExampleVector() {
	v1 := persist.VectorOf("a", "b")
	v2 := v1.Append("c")
	v3 := v1.Set(0, "z")
	fmt.Println(v1.Slice(), v2.Slice(), v3.Slice())
	// Output: [a b] [a b c] [z b]
}

func ExampleMap() {
	var m persist.Map[int]
	m1 := m.Set("x", 1).Set("y", 2)
	m2 := m1.Delete("x")
	x, ok := m2.Get("x")
	fmt.Println(m1.Len(), m2.Len(), x, ok)
	// Output: 2 1 0 false
}

func ExampleText() {
	var t persist.Text
	for _, delta := range []string{"Hel", "lo, ", "world"} {
		t = t.Append(delta)
	}
	fmt.Println(t.String(), t.Len())
	// Output: Hello, world 12
}

func ExampleSeq() {
	// A message list: the tool result goes right after the assistant
	// message that holds the call.
	var msgs persist.Seq
	msgs = msgs.Append("user-1").Append("assistant-1").Append("user-2")
	msgs = msgs.InsertAfter("assistant-1", "tool-1")
	for id := range msgs.All() {
		fmt.Println(id)
	}
	next, _ := msgs.Next("assistant-1")
	fmt.Println("after assistant-1:", next)
	// Output:
	// user-1
	// assistant-1
	// tool-1
	// user-2
	// after assistant-1: tool-1
}
