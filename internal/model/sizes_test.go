package model

import (
	"testing"
	"unsafe"
)

// TestSizes pins the sizes of the structs a tool call and its result are
// made of. Each is laid out to fit a Go allocation size class; a field
// added that pushes one past its class costs that much more on every call
// a view holds, so this test fails and says why the size matters: find
// room (a rarely set field behind Info, a smaller type) or raise the
// figure here knowingly.
func TestSizes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		size, max uintptr
		why       string
	}{
		{"Call", unsafe.Sizeof(Call{}), 96,
			"every tool call a view holds is one, and every TOOL_CALL_ARGS and TOOL_CALL_END copies it; 96 is a size class, the next is 112"},
		{"CallInfo", unsafe.Sizeof(CallInfo{}), 64,
			"a call with metadata, an encrypted value or subagents has one of its own (and copies it on each change); the rest share plainCall"},
		{"callRep", unsafe.Sizeof(callRep{}), 24,
			"a message holding one call, most of those that hold any, pays one callRep (its info and the call) for its CallList"},
		{"toolInfo", unsafe.Sizeof(toolInfo{}), 128,
			"every tool message has one (MsgInfo plus its call id); a field added to MsgInfo takes it to the 144-byte class"},
	} {
		if tc.size > tc.max {
			t.Errorf("%s is %d bytes, more than %d: %s", tc.name, tc.size, tc.max, tc.why)
		}
	}
}
