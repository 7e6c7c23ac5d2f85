package event

import (
	"bytes"
	"encoding/json"
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
// ok false) rawEvent, metadata and subagentRunId on the event itself,
// content parts other than text (the reference rebuilds
// content parts: this path rebuilds text parts with the same encoder), and
// anything else unusual. What the event holds is copied from the input:
// short strings in shared chunks, each raw value (a message's content, its
// metadata) in its own allocation.

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

// items scans the object or array opening at data[i] == open and closing
// with closer, calling item at the first byte of each member or element;
// item returns the index just past it. items returns the index just past
// the closer.
func (h *histScan) items(i int, open, closer byte, item func(j int) (int, bool)) (int, bool) {
	data := h.data
	if i >= len(data) || data[i] != open {
		return 0, false
	}
	i = wire.SkipWS(data, i+1)
	if i < len(data) && data[i] == closer {
		return i + 1, true
	}
	for {
		var ok bool
		if i >= len(data) {
			return 0, false
		}
		if i, ok = item(i); !ok {
			return 0, false
		}
		i = wire.SkipWS(data, i)
		if i >= len(data) {
			return 0, false
		}
		if data[i] == closer {
			return i + 1, true
		}
		if data[i] != ',' {
			return 0, false
		}
		i = wire.SkipWS(data, i+1)
	}
}

// object scans the object at data[i] == '{', calling fn with each member's
// name (free of escapes) and the index of its value; fn returns the index
// just past the value. object returns the index just past the object.
func (h *histScan) object(i int, fn func(key []byte, v int) (int, bool)) (int, bool) {
	data := h.data
	return h.items(i, '{', '}', func(j int) (int, bool) {
		if data[j] != '"' {
			return 0, false
		}
		ks, ok := wire.ScanString(data, j)
		if !ok || ks.Escaped {
			return 0, false
		}
		key := data[j+1 : ks.End-1]
		j = wire.SkipWS(data, ks.End)
		if j >= len(data) || data[j] != ':' {
			return 0, false
		}
		v := wire.SkipWS(data, j+1)
		if v >= len(data) {
			return 0, false
		}
		return fn(key, v)
	})
}

// array scans the array at data[i] == '[' whose elements are all objects,
// calling fn with the index of each; fn returns the index just past it.
func (h *histScan) array(i int, fn func(v int) (int, bool)) (int, bool) {
	return h.items(i, '[', ']', func(j int) (int, bool) {
		if h.data[j] != '{' {
			return 0, false
		}
		return fn(j)
	})
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
		// No more than what is left of the input, which holds every
		// string still to come.
		h.buf = make([]byte, 0, min(strChunk, len(h.data)-v.lo))
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

// optRaw is raw for an optional member: nil when absent.
func (h *histScan) optRaw(has bool, v *histVal) json.RawMessage {
	if !has {
		return nil
	}
	return h.raw(v)
}

// raw returns a copy of the value v, in its own allocation.
func (h *histScan) raw(v *histVal) json.RawMessage {
	return append(make(json.RawMessage, 0, v.hi-v.lo), h.data[v.lo:v.hi]...)
}

// memberKind is what the value of an object's member must be.
type memberKind uint8

const (
	kStr memberKind = iota // a string of valid UTF-8
	kObj                   // an object
	kArr                   // an array, read after the scan
	kVal                   // any value but null (which the reference refuses, or warns about as a legacy null)
)

// objShape lists the members an object may have and the kind of each.
type objShape struct {
	names []string
	kinds []memberKind
}

// members scans the object at data[i] == '{', depth levels deep, whose
// members must be among shape's names, each at most once and of its kind,
// recording where member k's value lies in vals[k]; bit k of has is set
// when member k is present. It returns the index just past the object.
func (h *histScan) members(i, depth int, shape *objShape, vals []histVal) (has uint16, end int, ok bool) {
	end, ok = h.object(i, func(key []byte, v int) (int, bool) {
		k := -1
		for j, name := range shape.names {
			if string(key) == name {
				k = j
				break
			}
		}
		if k < 0 || has&(1<<k) != 0 {
			return 0, false // unknown (G20: the reference warns), or a duplicate
		}
		has |= 1 << k
		var ok bool
		if vals[k], ok = h.scanVal(v, depth+1); !ok {
			return 0, false
		}
		switch c := h.data[v]; shape.kinds[k] {
		case kStr:
			ok = h.stringOK(&vals[k])
		case kObj:
			ok = c == '{'
		case kArr:
			ok = c == '['
		default:
			ok = c != 'n'
		}
		return vals[k].hi, ok
	})
	return has, end, ok
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

var messageShape = &objShape{
	names: []string{"id", "role", "content", "name", "toolCalls", "toolCallId", "error", "activityType", "encryptedValue", "subagentRunId", "metadata"},
	kinds: []memberKind{kStr, kStr, kVal, kStr, kArr, kStr, kStr, kStr, kStr, kStr, kObj},
}

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

// The members of a tool call (id, type, function, encryptedValue, metadata)
// and of its function (name, arguments).
var (
	toolCallShape = &objShape{
		names: []string{"id", "type", "function", "encryptedValue", "metadata"},
		kinds: []memberKind{kStr, kStr, kObj, kStr, kObj},
	}
	functionShape = &objShape{names: []string{"name", "arguments"}, kinds: []memberKind{kStr, kStr}}
)

// toolCalls decodes an assistant message's toolCalls at data[i] == '[',
// depth levels deep; the result is never nil.
func (h *histScan) toolCalls(i, depth int) ([]ToolCall, bool) {
	out := []ToolCall{}
	_, ok := h.array(i, func(e int) (int, bool) {
		var vals [5]histVal
		has, end, ok := h.members(e, depth+1, toolCallShape, vals[:])
		if !ok || has&7 != 7 || string(h.data[vals[1].lo:vals[1].hi]) != `"function"` {
			return 0, false
		}
		var fn [2]histVal
		if fhas, _, ok := h.members(vals[2].lo, depth+2, functionShape, fn[:]); !ok || fhas != 3 {
			return 0, false
		}
		tc := ToolCall{Type: "function"}
		var ok1, ok2, ok3, ok4 bool
		tc.ID, ok1 = h.str(&vals[0])
		tc.Function.Name, ok2 = h.str(&fn[0])
		tc.Function.Arguments, ok3 = h.str(&fn[1])
		tc.EncryptedValue, ok4 = h.optStr(has&8 != 0, &vals[3])
		tc.Metadata = h.optRaw(has&16 != 0, &vals[4])
		out = append(out, tc)
		return end, ok1 && ok2 && ok3 && ok4
	})
	return out, ok
}

// message decodes the message at data[i] == '{', depth levels deep.
func (h *histScan) message(i, depth int, out *[]Message) (int, bool) {
	var vals [mCount]histVal
	has, end, ok := h.members(i, depth, messageShape, vals[:])
	if !ok || has&(1<<mRole) == 0 || vals[mRole].esc {
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
	m := Message{Role: knownRoleOf(role)}
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
	m.Metadata = h.optRaw(has&(1<<mMetadata) != 0, &vals[mMetadata])
	for _, f := range [...]struct {
		k  int
		to **string
	}{{mName, &m.Name}, {mToolCallID, &m.ToolCallID}, {mError, &m.Error}, {mActivityType, &m.ActivityType}, {mEncrypted, &m.EncryptedValue}, {mTag, &m.Subagent}} {
		if *f.to, ok = h.optStr(has&(1<<f.k) != 0, &vals[f.k]); !ok {
			return 0, false
		}
	}
	if has&(1<<mToolCalls) != 0 {
		if m.ToolCalls, ok = h.toolCalls(vals[mToolCalls].lo, depth+1); !ok {
			return 0, false
		}
	}
	*out = append(*out, m)
	return end, true
}

// partShape lists the members of a text content part.
var partShape = &objShape{names: []string{"type", "text", "id", "metadata"}, kinds: []memberKind{kStr, kStr, kStr, kObj}}

// contentParts decodes the content parts at data[i] == '[', depth levels
// deep, and returns them encoded, as the reference rebuilds them: text
// parts only (a media part, whose source the reference rebuilds as well,
// and a part of unknown type, which it removes with a warning, report
// false).
func (h *histScan) contentParts(i, depth int) (json.RawMessage, bool) {
	w := &encoder{}
	w.b = append(w.b, '[')
	_, ok := h.array(i, func(e int) (int, bool) {
		var vals [4]histVal
		has, end, ok := h.members(e, depth+1, partShape, vals[:])
		if !ok || has&3 != 3 || string(h.data[vals[0].lo:vals[0].hi]) != `"text"` {
			return 0, false
		}
		p := ContentPart{Type: "text"}
		text, ok := h.str(&vals[1])
		if !ok {
			return 0, false
		}
		p.Text = &text
		if p.ID, ok = h.optStr(has&4 != 0, &vals[2]); !ok {
			return 0, false
		}
		if has&8 != 0 {
			p.Metadata = h.data[vals[3].lo:vals[3].hi] // the encoder copies it
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
	// Room for as many messages as "role" keys lie ahead (every message
	// has one; a key is never inside a string, where its quotes would be
	// escaped), but no more than one per 32 bytes, so that crafted input
	// reserves no more than a few times its size: growing the slice would
	// copy the messages decoded so far again and again, which in a history
	// of thousands costs as much as decoding them.
	rest := h.data[i:]
	out := make([]Message, 0, min(bytes.Count(rest, roleKey), len(rest)/32))
	end, ok := h.array(i, func(v int) (int, bool) {
		return h.message(v, depth+1, &out)
	})
	return out, end, ok
}

// roleKey is a message's role key as JSON writes it.
var roleKey = []byte(`"role"`)

// Members of a RunAgentInput, by index, and of its tools and context.
const (
	inThreadID = iota
	inRunID
	inParentRunID
	inProtocolVersion
	inState
	inMessages
	inTools
	inContext
	inForwardedProps
	inResume
	inCount
)

var (
	inputShape = &objShape{
		names: []string{"threadId", "runId", "parentRunId", "protocolVersion", "state", "messages", "tools", "context", "forwardedProps", "resume"},
		kinds: []memberKind{kStr, kStr, kStr, kStr, kVal, kArr, kArr, kArr, kVal, kArr},
	}
	toolShape = &objShape{
		names: []string{"name", "description", "parameters", "metadata"},
		kinds: []memberKind{kStr, kStr, kVal, kObj},
	}
	contextShape = &objShape{names: []string{"description", "value"}, kinds: []memberKind{kStr, kStr}}
	resumeShape  = &objShape{
		names: []string{"interruptId", "status", "payload", "metadata"},
		kinds: []memberKind{kStr, kStr, kVal, kObj},
	}
)

// input decodes the RunAgentInput at data[i] == '{', depth levels deep.
func (h *histScan) input(i, depth int) (*RunAgentInput, int, bool) {
	var vals [inCount]histVal
	has, end, ok := h.members(i, depth, inputShape, vals[:])
	const required = 1<<inThreadID | 1<<inRunID | 1<<inMessages
	if !ok || has&required != required {
		return nil, 0, false
	}
	in := &RunAgentInput{}
	var ok1, ok2, ok3, ok4 bool
	in.ThreadID, ok1 = h.str(&vals[inThreadID])
	in.RunID, ok2 = h.str(&vals[inRunID])
	in.ParentRunID, ok3 = h.optStr(has&(1<<inParentRunID) != 0, &vals[inParentRunID])
	in.ProtocolVersion, ok4 = h.optStr(has&(1<<inProtocolVersion) != 0, &vals[inProtocolVersion])
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, 0, false
	}
	in.State = h.optRaw(has&(1<<inState) != 0, &vals[inState])
	in.ForwardedProps = h.optRaw(has&(1<<inForwardedProps) != 0, &vals[inForwardedProps])
	if in.Messages, _, ok = h.messages(vals[inMessages].lo, depth+1); !ok {
		return nil, 0, false
	}
	if has&(1<<inTools) != 0 {
		if _, ok = h.array(vals[inTools].lo, func(e int) (int, bool) {
			var tv [4]histVal
			thas, end, ok := h.members(e, depth+2, toolShape, tv[:])
			if !ok || thas&3 != 3 {
				return 0, false
			}
			var t Tool
			var ok1, ok2 bool
			t.Name, ok1 = h.str(&tv[0])
			t.Description, ok2 = h.str(&tv[1])
			t.Parameters = h.optRaw(thas&4 != 0, &tv[2])
			t.Metadata = h.optRaw(thas&8 != 0, &tv[3])
			in.Tools = append(in.Tools, t)
			return end, ok1 && ok2
		}); !ok {
			return nil, 0, false
		}
	}
	if has&(1<<inContext) != 0 {
		if _, ok = h.array(vals[inContext].lo, func(e int) (int, bool) {
			var cv [2]histVal
			chas, end, ok := h.members(e, depth+2, contextShape, cv[:])
			if !ok || chas != 3 {
				return 0, false
			}
			var c Context
			var ok1, ok2 bool
			c.Description, ok1 = h.str(&cv[0])
			c.Value, ok2 = h.str(&cv[1])
			in.Context = append(in.Context, c)
			return end, ok1 && ok2
		}); !ok {
			return nil, 0, false
		}
	}
	if has&(1<<inResume) != 0 {
		in.Resume = []ResumeEntry{}
		if _, ok = h.array(vals[inResume].lo, func(e int) (int, bool) {
			var rv [4]histVal
			rhas, end, ok := h.members(e, depth+2, resumeShape, rv[:])
			if !ok || rhas&3 != 3 {
				return 0, false
			}
			var r ResumeEntry
			switch string(h.data[rv[1].lo:rv[1].hi]) {
			case `"` + ResumeResolved + `"`:
				r.Status = ResumeResolved
			case `"` + ResumeCancelled + `"`:
				r.Status = ResumeCancelled
			default:
				return 0, false
			}
			r.InterruptID, ok = h.str(&rv[0])
			r.Payload = h.optRaw(rhas&4 != 0, &rv[2])
			r.Metadata = h.optRaw(rhas&8 != 0, &rv[3])
			in.Resume = append(in.Resume, r)
			return end, ok
		}); !ok {
			return nil, 0, false
		}
	}
	return in, end, true
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
