package event

import (
	"encoding/json"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/agview/agview/internal/wire"
)

// The history fast path decodes the two events that carry a conversation's
// history, RUN_STARTED with its input (RunAgentInput) and MESSAGES_SNAPSHOT,
// in one pass of internal/wire's scanner, where the reference path splits
// every object into a map and encoding/json checks each level again. It
// takes the common shapes only, as the flat fast path does (see fast.go):
// member names free of escapes and each at most once, strings valid UTF-8
// without surrogate escapes, no null, no member the reference does not ask
// for (it would warn, G20), and messages of a known role whose content is a
// string (an object for activity). It leaves to the reference path (returns
// ok false) rawEvent, metadata and subagentRunId on the event itself, the
// input's resume, content given as an array of parts (which the reference
// rebuilds), and anything else unusual. The strings and raw values of one
// message share one allocation, a copy of the input's bytes.

// histVal is where a scanned value lies: data[lo:hi], quotes included for a
// string.
type histVal struct {
	lo, hi    int
	esc, wide bool
}

// isString reports whether v is a string literal.
func (v *histVal) isString(data []byte) bool { return data[v.lo] == '"' }

// histScan is the state of one history fast decode.
type histScan struct {
	data []byte
	buf  []byte // the chunk short strings go to (see str)
	tcs  []histToolCall
	// slots hold the strings the events point to (optional members); a
	// full chunk is left to the events and a new one taken.
	slots []string
}

// scanVal scans the value at data[i] and returns where it lies.
func (h *histScan) scanVal(i, depth int) (histVal, bool) {
	if i >= len(h.data) {
		return histVal{}, false
	}
	if h.data[i] == '"' {
		s, ok := wire.ScanString(h.data, i)
		return histVal{lo: i, hi: s.End, esc: s.Escaped, wide: s.Wide}, ok
	}
	end, ok := wire.SkipValue(h.data, i, depth)
	return histVal{lo: i, hi: end}, ok
}

// object scans the object at data[i] == '{', calling fn with each member's
// name (free of escapes) and the index of its value; fn returns the index
// just past the value. object returns the index just past the object.
func (h *histScan) object(i int, fn func(key []byte, v int) (int, bool)) (int, bool) {
	data := h.data
	if i >= len(data) || data[i] != '{' {
		return 0, false
	}
	i = wire.SkipWS(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, false
		}
		ks, ok := wire.ScanString(data, i)
		if !ok || ks.Escaped {
			return 0, false
		}
		key := data[i+1 : ks.End-1]
		i = wire.SkipWS(data, ks.End)
		if i >= len(data) || data[i] != ':' {
			return 0, false
		}
		i = wire.SkipWS(data, i+1)
		if i >= len(data) {
			return 0, false
		}
		if i, ok = fn(key, i); !ok {
			return 0, false
		}
		i = wire.SkipWS(data, i)
		if i >= len(data) {
			return 0, false
		}
		if data[i] == '}' {
			return i + 1, true
		}
		if data[i] != ',' {
			return 0, false
		}
		i = wire.SkipWS(data, i+1)
	}
}

// array scans the array at data[i] == '[' whose elements are all objects,
// calling fn with the index of each; fn returns the index just past it.
func (h *histScan) array(i int, fn func(v int) (int, bool)) (int, bool) {
	data := h.data
	if i >= len(data) || data[i] != '[' {
		return 0, false
	}
	i = wire.SkipWS(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '{' {
			return 0, false
		}
		var ok bool
		if i, ok = fn(i); !ok {
			return 0, false
		}
		i = wire.SkipWS(data, i)
		if i >= len(data) {
			return 0, false
		}
		if data[i] == ']' {
			return i + 1, true
		}
		if data[i] != ',' {
			return 0, false
		}
		i = wire.SkipWS(data, i+1)
	}
}

// stringOK reports whether v is a string literal the fast path decodes:
// valid UTF-8 (the reference keeps invalid bytes as they are).
func (h *histScan) stringOK(v *histVal) bool {
	return v.isString(h.data) && (!v.wide || utf8.Valid(h.data[v.lo+1:v.hi-1]))
}

// str decodes the string literal v; ok is false for a surrogate escape,
// which the reference path decodes. Short strings share a chunk of
// strChunk bytes with their neighbours (so that a string an event's reader
// keeps, an id say, keeps at most a chunk alive, never a message's
// content); a longer one takes its own allocation.
func (h *histScan) str(v *histVal) (string, bool) {
	body := h.data[v.lo+1 : v.hi-1]
	if len(body) == 0 {
		return "", true
	}
	if len(body) > strChunk/8 {
		if !v.esc {
			return string(body), true
		}
		b, ok := wire.AppendUnescaped(make([]byte, 0, len(body)), body)
		if !ok {
			return "", false
		}
		return unsafe.String(unsafe.SliceData(b), len(b)), true
	}
	if cap(h.buf)-len(h.buf) < len(body) {
		h.buf = make([]byte, 0, strChunk)
	}
	start := len(h.buf)
	if !v.esc {
		h.buf = append(h.buf, body...)
	} else {
		var ok bool
		if h.buf, ok = wire.AppendUnescaped(h.buf, body); !ok {
			return "", false
		}
	}
	if len(h.buf) == start {
		return "", true
	}
	// The chunk is never written below its length (it had room for the
	// whole body, and unescaping only shortens): the string may share it.
	return unsafe.String(&h.buf[start], len(h.buf)-start), true
}

// strChunk is the size of the allocations short strings share.
const strChunk = 4096

// optStr is str for an optional member: nil when absent.
func (h *histScan) optStr(has bool, v *histVal) (*string, bool) {
	if !has {
		return nil, true
	}
	s, ok := h.str(v)
	if len(h.slots) == cap(h.slots) {
		h.slots = make([]string, 0, slotChunk)
	}
	h.slots = append(h.slots, s)
	return &h.slots[len(h.slots)-1], ok
}

// slotChunk is how many optional strings (a message's name, tag, …) share
// one allocation.
const slotChunk = 32

// raw returns a copy of the value v, in its own allocation.
func (h *histScan) raw(v *histVal) json.RawMessage {
	return append(make(json.RawMessage, 0, v.hi-v.lo), h.data[v.lo:v.hi]...)
}

// Members of a message, by index.
const (
	mID = iota
	mRole
	mContent
	mName
	mToolCalls
	mToolCallID
	mError
	mActivityType
	mEncrypted
	mTag
	mMetadata
	mCount
)

var messageMembers = [mCount]string{"id", "role", "content", "name", "toolCalls", "toolCallId", "error", "activityType", "encryptedValue", "subagentRunId", "metadata"}

// stringMembers are the message members that hold a string.
const stringMembers = 1<<mID | 1<<mName | 1<<mToolCallID | 1<<mError | 1<<mActivityType | 1<<mEncrypted | 1<<mTag

// roleShape is what a role allows and requires.
type roleShape struct {
	allowed, required uint16
	content           byte // the first byte content must have: '"' or '{'
	parts             bool // content may be an array of content parts too
}

const msgCommon = 1<<mID | 1<<mRole | 1<<mTag | 1<<mMetadata

var roleShapes = map[string]roleShape{
	string(RoleDeveloper): {msgCommon | 1<<mContent | 1<<mName | 1<<mEncrypted, 1<<mID | 1<<mContent, '"', false},
	string(RoleSystem):    {msgCommon | 1<<mContent | 1<<mName | 1<<mEncrypted, 1<<mID | 1<<mContent, '"', false},
	string(RoleAssistant): {msgCommon | 1<<mContent | 1<<mName | 1<<mToolCalls | 1<<mEncrypted, 1 << mID, '"', false},
	string(RoleUser):      {msgCommon | 1<<mContent | 1<<mName | 1<<mEncrypted, 1<<mID | 1<<mContent, '"', true},
	string(RoleTool):      {msgCommon | 1<<mContent | 1<<mToolCallID | 1<<mError | 1<<mEncrypted, 1<<mID | 1<<mContent | 1<<mToolCallID, '"', true},
	string(RoleActivity):  {msgCommon | 1<<mActivityType | 1<<mContent, 1<<mID | 1<<mActivityType | 1<<mContent, '{', false},
	string(RoleReasoning): {msgCommon | 1<<mContent | 1<<mEncrypted, 1<<mID | 1<<mContent, '"', false},
}

// histToolCall is a scanned tool call.
type histToolCall struct {
	id, name, args, enc, meta histVal
	hasEnc, hasMeta           bool
}

// toolCalls scans an assistant message's toolCalls into h.tcs.
func (h *histScan) toolCalls(i, depth int) (int, bool) {
	return h.array(i, func(v int) (int, bool) {
		var tc histToolCall
		var has uint8
		end, ok := h.object(v, func(key []byte, j int) (int, bool) {
			var bit uint8
			var at *histVal
			switch string(key) {
			case "id":
				bit, at = 1, &tc.id
			case "type":
				bit = 2
			case "function":
				bit = 4
			case "encryptedValue":
				bit, at = 8, &tc.enc
			case "metadata":
				bit, at = 16, &tc.meta
			default:
				return 0, false
			}
			if has&bit != 0 {
				return 0, false
			}
			has |= bit
			switch bit {
			case 2:
				const fn = `"function"`
				if len(h.data)-j < len(fn) || string(h.data[j:j+len(fn)]) != fn {
					return 0, false
				}
				return j + len(fn), true
			case 4:
				var fhas uint8
				return h.object(j, func(key []byte, k int) (int, bool) {
					var bit uint8
					var at *histVal
					switch string(key) {
					case "name":
						bit, at = 1, &tc.name
					case "arguments":
						bit, at = 2, &tc.args
					default:
						return 0, false
					}
					if fhas&bit != 0 {
						return 0, false
					}
					fhas |= bit
					var ok bool
					if *at, ok = h.scanVal(k, depth+3); !ok || !h.stringOK(at) {
						return 0, false
					}
					return at.hi, true
				})
			}
			var ok bool
			if *at, ok = h.scanVal(j, depth+2); !ok {
				return 0, false
			}
			if bit == 16 {
				ok = h.data[at.lo] == '{'
			} else {
				ok = h.stringOK(at)
			}
			return at.hi, ok
		})
		// id, type and function are required; the function's name and
		// arguments too, checked by its own scan: a function lacking
		// one leaves tc.name or tc.args empty (hi == 0).
		if !ok || has&7 != 7 || tc.name.hi == 0 || tc.args.hi == 0 {
			return 0, false
		}
		tc.hasEnc, tc.hasMeta = has&8 != 0, has&16 != 0
		h.tcs = append(h.tcs, tc)
		return end, true
	})
}

// message decodes the message at data[i] == '{', depth levels deep.
func (h *histScan) message(i, depth int, out *[]Message) (int, bool) {
	var vals [mCount]histVal
	var has uint16
	h.tcs = h.tcs[:0]
	end, ok := h.object(i, func(key []byte, v int) (int, bool) {
		k := -1
		for j := range messageMembers {
			if string(key) == messageMembers[j] {
				k = j
				break
			}
		}
		if k < 0 || has&(1<<k) != 0 {
			return 0, false
		}
		has |= 1 << k
		if k == mToolCalls {
			end, ok := h.toolCalls(v, depth+1)
			vals[k] = histVal{lo: v, hi: end}
			return end, ok
		}
		var ok bool
		vals[k], ok = h.scanVal(v, depth+1)
		if !ok {
			return 0, false
		}
		if stringMembers&(1<<k) != 0 && !h.stringOK(&vals[k]) {
			return 0, false
		}
		return vals[k].hi, true
	})
	if !ok || has&(1<<mRole) == 0 || !vals[mRole].isString(h.data) || vals[mRole].esc {
		return 0, false
	}
	role := h.data[vals[mRole].lo+1 : vals[mRole].hi-1]
	shape, known := roleShapes[string(role)]
	if !known || has&^shape.allowed != 0 || has&shape.required != shape.required {
		return 0, false
	}
	parts := false
	if has&(1<<mContent) != 0 && h.data[vals[mContent].lo] != shape.content {
		if parts = shape.parts && h.data[vals[mContent].lo] == '['; !parts {
			return 0, false
		}
	}
	if has&(1<<mMetadata) != 0 && h.data[vals[mMetadata].lo] != '{' {
		return 0, false
	}

	m := Message{Role: Role(knownRoleOf(role))}
	if m.ID, ok = h.str(&vals[mID]); !ok {
		return 0, false
	}
	if parts {
		if m.Content, ok = h.contentParts(vals[mContent].lo, depth+1); !ok {
			return 0, false
		}
	} else if has&(1<<mContent) != 0 {
		m.Content = h.raw(&vals[mContent])
	}
	if has&(1<<mMetadata) != 0 {
		m.Metadata = h.raw(&vals[mMetadata])
	}
	for _, f := range [...]struct {
		k  int
		to **string
	}{{mName, &m.Name}, {mToolCallID, &m.ToolCallID}, {mError, &m.Error}, {mActivityType, &m.ActivityType}, {mEncrypted, &m.EncryptedValue}, {mTag, &m.Subagent}} {
		if *f.to, ok = h.optStr(has&(1<<f.k) != 0, &vals[f.k]); !ok {
			return 0, false
		}
	}
	if has&(1<<mToolCalls) != 0 {
		m.ToolCalls = make([]ToolCall, len(h.tcs))
		for j := range h.tcs {
			tc, out := &h.tcs[j], &m.ToolCalls[j]
			out.Type = "function"
			if out.ID, ok = h.str(&tc.id); !ok {
				return 0, false
			}
			if out.Function.Name, ok = h.str(&tc.name); !ok {
				return 0, false
			}
			if out.Function.Arguments, ok = h.str(&tc.args); !ok {
				return 0, false
			}
			if out.EncryptedValue, ok = h.optStr(tc.hasEnc, &tc.enc); !ok {
				return 0, false
			}
			if tc.hasMeta {
				out.Metadata = h.raw(&tc.meta)
			}
		}
	}
	*out = append(*out, m)
	return end, true
}

// contentParts decodes the content parts at data[i] == '[', depth levels
// deep, and returns them encoded, as the reference rebuilds them: text
// parts only (a media part, whose source the reference rebuilds as well,
// and a part of unknown type, which it removes with a warning, report
// false).
func (h *histScan) contentParts(i, depth int) (json.RawMessage, bool) {
	w := &encoder{}
	w.b = append(w.b, '[')
	_, ok := h.array(i, func(e int) (int, bool) {
		var vals [4]histVal // type, text, id, metadata
		var has uint8
		end, ok := h.object(e, func(key []byte, v int) (int, bool) {
			k := -1
			switch string(key) {
			case "type":
				k = 0
			case "text":
				k = 1
			case "id":
				k = 2
			case "metadata":
				k = 3
			}
			if k < 0 || has&(1<<k) != 0 {
				return 0, false
			}
			has |= 1 << k
			var ok bool
			if vals[k], ok = h.scanVal(v, depth+2); !ok {
				return 0, false
			}
			if k == 3 {
				ok = h.data[v] == '{'
			} else {
				ok = h.stringOK(&vals[k])
			}
			return vals[k].hi, ok
		})
		if !ok || has&3 != 3 || string(h.data[vals[0].lo:vals[0].hi]) != `"text"` {
			return 0, false
		}
		p := ContentPart{Type: "text"}
		text, ok := h.str(&vals[1])
		if !ok {
			return 0, false
		}
		p.Text = &text
		if has&4 != 0 {
			id, ok := h.str(&vals[2])
			if !ok {
				return 0, false
			}
			p.ID = &id
		}
		if has&8 != 0 {
			p.Metadata = h.data[vals[3].lo:vals[3].hi]
		}
		if len(w.b) > 1 {
			w.b = append(w.b, ',')
		}
		w.contentPart(&p)
		return end, w.err == nil
	})
	if !ok {
		return nil, false
	}
	return append(w.b, ']'), true
}

// knownRoleOf returns the Role constant named by r, so that the message
// does not keep the input's bytes.
func knownRoleOf(r []byte) Role {
	for _, k := range [...]Role{RoleDeveloper, RoleSystem, RoleAssistant, RoleUser, RoleTool, RoleActivity, RoleReasoning} {
		if string(r) == string(k) {
			return k
		}
	}
	return ""
}

// messages decodes the array of messages at data[i], depth levels deep;
// the result is never nil.
func (h *histScan) messages(i, depth int) ([]Message, int, bool) {
	out := []Message{}
	end, ok := h.array(i, func(v int) (int, bool) {
		return h.message(v, depth+1, &out)
	})
	return out, end, ok
}

// input decodes the RunAgentInput at data[i] == '{', depth levels deep.
func (h *histScan) input(i, depth int) (*RunAgentInput, int, bool) {
	in := &RunAgentInput{}
	var has uint16
	var strs [4]histVal // threadId, runId, parentRunId, protocolVersion
	end, ok := h.object(i, func(key []byte, v int) (int, bool) {
		var bit uint16
		switch string(key) {
		case "threadId":
			bit = 1
		case "runId":
			bit = 2
		case "parentRunId":
			bit = 4
		case "protocolVersion":
			bit = 8
		case "state":
			bit = 16
		case "messages":
			bit = 32
		case "tools":
			bit = 64
		case "context":
			bit = 128
		case "forwardedProps":
			bit = 256
		default:
			return 0, false // resume, or a member the reference warns about
		}
		if has&bit != 0 {
			return 0, false
		}
		has |= bit
		switch bit {
		case 1, 2, 4, 8:
			k := bits.TrailingZeros16(bit)
			var ok bool
			if strs[k], ok = h.scanVal(v, depth+1); !ok || !h.stringOK(&strs[k]) {
				return 0, false
			}
			return strs[k].hi, true
		case 16, 256:
			val, ok := h.scanVal(v, depth+1)
			if !ok || h.data[v] == 'n' { // null: a legacy null the reference warns about
				return 0, false
			}
			if bit == 16 {
				in.State = h.raw(&val)
			} else {
				in.ForwardedProps = h.raw(&val)
			}
			return val.hi, true
		case 32:
			var end int
			var ok bool
			in.Messages, end, ok = h.messages(v, depth+1)
			return end, ok
		case 64:
			return h.array(v, func(e int) (int, bool) { return h.tool(e, depth+2, in) })
		default: // 128
			return h.array(v, func(e int) (int, bool) { return h.context(e, in) })
		}
	})
	if !ok || has&(1|2|32) != 1|2|32 {
		return nil, 0, false
	}
	if in.ThreadID, ok = h.str(&strs[0]); !ok {
		return nil, 0, false
	}
	if in.RunID, ok = h.str(&strs[1]); !ok {
		return nil, 0, false
	}
	for k, to := range [...]**string{2: &in.ParentRunID, 3: &in.ProtocolVersion} {
		if to == nil || has&(1<<k) == 0 {
			continue
		}
		s, ok := h.str(&strs[k])
		if !ok {
			return nil, 0, false
		}
		*to = &s
	}
	return in, end, true
}

// tool decodes a Tool of the input's tools.
func (h *histScan) tool(i, depth int, in *RunAgentInput) (int, bool) {
	var vals [4]histVal // name, description, parameters, metadata
	var has uint8
	end, ok := h.object(i, func(key []byte, v int) (int, bool) {
		k := -1
		switch string(key) {
		case "name":
			k = 0
		case "description":
			k = 1
		case "parameters":
			k = 2
		case "metadata":
			k = 3
		}
		if k < 0 || has&(1<<k) != 0 {
			return 0, false
		}
		has |= 1 << k
		var ok bool
		if vals[k], ok = h.scanVal(v, depth+1); !ok {
			return 0, false
		}
		switch c := h.data[v]; k {
		case 0, 1:
			ok = h.stringOK(&vals[k])
		case 2:
			ok = c != 'n' // null: a legacy null the reference warns about
		case 3:
			ok = c == '{'
		}
		return vals[k].hi, ok
	})
	if !ok || has&3 != 3 {
		return 0, false
	}
	var t Tool
	if t.Name, ok = h.str(&vals[0]); !ok {
		return 0, false
	}
	if t.Description, ok = h.str(&vals[1]); !ok {
		return 0, false
	}
	if has&4 != 0 {
		t.Parameters = h.raw(&vals[2])
	}
	if has&8 != 0 {
		t.Metadata = h.raw(&vals[3])
	}
	in.Tools = append(in.Tools, t)
	return end, true
}

// context decodes a Context of the input's context.
func (h *histScan) context(i int, in *RunAgentInput) (int, bool) {
	var vals [2]histVal // description, value
	var has uint8
	end, ok := h.object(i, func(key []byte, v int) (int, bool) {
		k := -1
		switch string(key) {
		case "description":
			k = 0
		case "value":
			k = 1
		}
		if k < 0 || has&(1<<k) != 0 || h.data[v] != '"' {
			return 0, false
		}
		has |= 1 << k
		var ok bool
		vals[k], ok = h.scanVal(v, 0)
		return vals[k].hi, ok && h.stringOK(&vals[k])
	})
	if !ok || has != 3 {
		return 0, false
	}
	var c Context
	if c.Description, ok = h.str(&vals[0]); !ok {
		return 0, false
	}
	if c.Value, ok = h.str(&vals[1]); !ok {
		return 0, false
	}
	in.Context = append(in.Context, c)
	return end, true
}

// decodeHistoryFast decodes RUN_STARTED (with or without its input) and
// MESSAGES_SNAPSHOT on the history fast path, if it can.
func decodeHistoryFast(data []byte, typ string) (Event, bool) {
	snapshot := typ == string(TypeMessagesSnapshot)
	if !snapshot && typ != string(TypeRunStarted) {
		return nil, false
	}
	h := &histScan{data: data}
	i := len(`{"type":""`) + len(typ)
	var has uint8
	var strs [4]histVal // threadId, runId, protocolVersion, parentRunId
	var ts int64
	var input *RunAgentInput
	var msgs []Message
	i = wire.SkipWS(data, i)
	for i < len(data) && data[i] == ',' {
		i = wire.SkipWS(data, i+1)
		if i >= len(data) || data[i] != '"' {
			return nil, false
		}
		ks, ok := wire.ScanString(data, i)
		if !ok || ks.Escaped {
			return nil, false
		}
		key := data[i+1 : ks.End-1]
		i = wire.SkipWS(data, ks.End)
		if i >= len(data) || data[i] != ':' {
			return nil, false
		}
		i = wire.SkipWS(data, i+1)
		if i >= len(data) {
			return nil, false
		}
		bit, k := uint8(0), -1
		switch string(key) {
		case "timestamp":
			bit = 1
		case "threadId":
			bit, k = 2, 0
		case "runId":
			bit, k = 4, 1
		case "protocolVersion":
			bit, k = 8, 2
		case "parentRunId":
			bit, k = 16, 3
		case "input":
			bit = 32
		case "messages":
			bit = 64
		}
		if bit == 0 || has&bit != 0 || snapshot != (bit == 64) && bit != 1 {
			return nil, false
		}
		has |= bit
		switch {
		case bit == 1:
			end, plain, ok := wire.ScanNumber(data, i)
			if !ok || !plain || end-i > 17 {
				return nil, false
			}
			n, err := strconv.ParseInt(string(data[i:end]), 10, 64)
			if err != nil || n > maxSafeInt || n < -maxSafeInt {
				return nil, false
			}
			ts, i = n, end
		case k >= 0:
			if strs[k], ok = h.scanVal(i, 1); !ok || !h.stringOK(&strs[k]) {
				return nil, false
			}
			i = strs[k].hi
		case bit == 32:
			if input, i, ok = h.input(i, 1); !ok {
				return nil, false
			}
		default:
			if msgs, i, ok = h.messages(i, 1); !ok {
				return nil, false
			}
		}
		i = wire.SkipWS(data, i)
	}
	if i >= len(data) || data[i] != '}' || wire.SkipWS(data, i+1) != len(data) {
		return nil, false
	}
	if snapshot {
		if has&64 == 0 {
			return nil, false
		}
		b := &box[MessagesSnapshot, struct{}]{}
		b.e.Messages = msgs
		return stamped(b, has&1 != 0, ts), true
	}
	if has&6 != 6 {
		return nil, false
	}
	b := &box[RunStarted, struct{}]{}
	var ok bool
	if b.e.ThreadID, ok = h.str(&strs[0]); !ok {
		return nil, false
	}
	if b.e.RunID, ok = h.str(&strs[1]); !ok {
		return nil, false
	}
	if b.e.ProtocolVersion, ok = h.optStr(has&8 != 0, &strs[2]); !ok {
		return nil, false
	}
	if b.e.ParentRunID, ok = h.optStr(has&16 != 0, &strs[3]); !ok {
		return nil, false
	}
	b.e.Input = input
	return stamped(b, has&1 != 0, ts), true
}
