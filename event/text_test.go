package event

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMessageText(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"string", `"hello\nworld"`, "hello\nworld"},
		{"escapes", `"caf\u00e9 \"q\""`, `café "q"`},
		{"absent", ``, ""},
		{"text parts", `[{"type":"text","text":"look at"},{"type":"binary","mimeType":"image/png","data":"AA=="},{"type":"text","text":"this"}]`, "look at\nthis"},
		{"no text part", `[{"type":"binary","mimeType":"image/png","url":"https://x"}]`, ""},
		{"activity object", `{"steps":["a"]}`, ""},
		{"invalid", `"unterminated`, ""},
		{"leading space", ` "x"`, "x"},
		{"a part of another shape", `[{"type":"text","text":"kept"},{"type":"binary","text":5},null,7,{"type":["text"]},{"type":"text","text":"too"}]`, "kept\ntoo"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := Message{ID: "m", Role: RoleUser, Content: json.RawMessage(tc.content)}
			assert.Equal(t, tc.want, m.Text())
		})
	}
}

func ExampleMessage_Text() {
	m := Message{ID: "u1", Role: RoleUser, Content: json.RawMessage(`[{"type":"text","text":"What is in this picture?"},{"type":"binary","mimeType":"image/png","url":"https://example.com/cat.png"}]`)}
	fmt.Println(m.Text())
	// Output: What is in this picture?
}
