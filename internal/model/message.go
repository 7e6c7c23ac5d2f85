package model

import (
	"bytes"
	"encoding/json"

	"github.com/agview/agview/internal/jsonstr"

	"github.com/agview/agview/event"
)

// Message returns m as an AG-UI message. The result owns all its memory.
func (m *Msg) Message() event.Message {
	i := m.Info()
	out := event.Message{
		ID:             m.ID,
		Role:           m.Role(),
		Name:           cloneStr(i.Name),
		ToolCallID:     cloneStr(i.ToolCallID),
		Error:          cloneStr(i.Error()),
		ActivityType:   cloneStr(i.ActivityType()),
		EncryptedValue: cloneStr(i.EncryptedValue()),
		Subagent:       cloneStr(i.Tag),
		Metadata:       i.Meta().JSON(),
	}
	switch {
	case m.HasText:
		out.Content = AppendString(nil, m.Text.String())
	case m.HasDoc:
		out.Content = i.Doc().JSON()
	case i.Raw() != nil:
		out.Content = bytes.Clone(i.Raw())
	}
	if m.HasCalls {
		calls := m.Calls()
		out.ToolCalls = make([]event.ToolCall, 0, calls.Len())
		for _, c := range calls.All() {
			out.ToolCalls = append(out.ToolCalls, c.ToolCall())
		}
	}
	return out
}

// ToolCall returns c as an AG-UI tool call. The result owns all its memory.
func (c *Call) ToolCall() event.ToolCall {
	return event.ToolCall{
		ID:             c.ID,
		Type:           "function",
		Function:       event.FunctionCall{Name: c.Name, Arguments: jsonstr.Join(c.Args.String())},
		EncryptedValue: cloneStr(c.Info.EncryptedValue),
		Metadata:       c.Info.Meta.JSON(),
	}
}

func cloneStr(s *string) *string {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// MetaOf reads a metadata object. It returns nil when raw is absent or not a
// JSON object (decoding has already refused the latter).
func MetaOf(raw json.RawMessage) Meta {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	m := Meta{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		m = m.set(k, bytes.Clone(v))
	}
	return m
}

// Merge returns m with the members of the metadata object raw merged in
// shallowly, last write winning per key (the reference's mergeMetadata). It
// returns m itself when raw is absent. m is not modified.
func (m Meta) Merge(raw json.RawMessage) Meta {
	add := MetaOf(raw)
	if add == nil {
		return m
	}
	if m == nil {
		return add
	}
	out := append(Meta(nil), m...)
	for _, e := range add {
		out = out.set(e.Key, e.Val)
	}
	return out
}

// set returns m with key k set to v; m must be private to the caller.
func (m Meta) set(k string, v json.RawMessage) Meta {
	for i := range m {
		if m[i].Key == k {
			m[i].Val = v
			return m
		}
	}
	return append(m, MetaEntry{Key: k, Val: v})
}

// JSON returns m as a JSON object, or nil when m is absent.
func (m Meta) JSON() json.RawMessage {
	if m == nil {
		return nil
	}
	b := []byte{'{'}
	for i, e := range m {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, e.Key)
		b = append(b, ':')
		b = append(b, e.Val...)
	}
	return append(b, '}')
}

// AppendString appends s as a JSON string the way JavaScript's JSON.stringify
// writes it: only '"', '\\' and control characters are escaped; invalid UTF-8
// becomes U+FFFD, as encoding/json does.
func AppendString(b []byte, s string) []byte { return jsonstr.Append(b, s, jsonstr.JS) }
