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
