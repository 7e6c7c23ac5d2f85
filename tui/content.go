package tui

import (
	"bytes"
	"encoding/json"
	"strings"
)

// contentText returns the text of a message's or tool result's content, as
// the wire carries it: a JSON string is its text; an array of content parts
// joins the text parts and names the others ("[image]"); anything else is
// shown as compact JSON. The result is cleaned (see clean).
func contentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			return clean(s)
		}
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err == nil {
			var out []string
			for _, p := range parts {
				switch {
				case p.Type == "text":
					out = append(out, clean(p.Text))
				case p.Type != "":
					out = append(out, "["+oneLine(p.Type)+"]")
				}
			}
			if len(out) > 0 {
				return strings.Join(out, "\n")
			}
		}
	}
	return compactJSON(raw)
}

// compactJSON returns raw as one line of compact JSON (cleaned), or raw
// itself, cleaned, when it is not valid JSON (streamed tool arguments are
// incomplete until the call ends).
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err == nil {
		return oneLine(b.String())
	}
	return oneLine(string(raw))
}
