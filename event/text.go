package event

import (
	"encoding/json"
	"strings"
)

// Text returns the message's text, so that a front end can print a message
// without decoding its content: the content itself when it is a JSON string
// (developer, system, assistant, reasoning, and most user and tool
// messages); the text parts joined by newlines when it is an array of
// content parts (a user or tool message with images or files: the other
// parts have no text); "" for an activity message's object, an absent
// content (an assistant message that only calls tools) or content that is
// not valid JSON.
func (m *Message) Text() string {
	c := m.Content
	for len(c) > 0 && (c[0] == ' ' || c[0] == '\t' || c[0] == '\n' || c[0] == '\r') {
		c = c[1:]
	}
	if len(c) == 0 {
		return ""
	}
	switch c[0] {
	case '"':
		var s string
		if json.Unmarshal(c, &s) != nil {
			return ""
		}
		return s
	case '[':
		var parts []json.RawMessage
		if json.Unmarshal(c, &parts) != nil {
			return ""
		}
		var b strings.Builder
		n := 0
		for _, raw := range parts {
			// Each part on its own: one part of another shape (a media part
			// with a member named text that is not a string) leaves the
			// text parts their text.
			var p struct {
				Type string  `json:"type"`
				Text *string `json:"text"`
			}
			if json.Unmarshal(raw, &p) != nil || p.Type != "text" || p.Text == nil {
				continue
			}
			if n > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(*p.Text)
			n++
		}
		return b.String()
	}
	return ""
}
