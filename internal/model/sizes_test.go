package model

import (
	"reflect"
	"strconv"
	"testing"
	"unsafe"

	"github.com/agview/agview/internal/persist"
)

// TestSizes pins the sizes of the structs a view holds one of per message,
// per tool call or per fold. Each is laid out to fit a Go allocation size
// class; a field that pushes one past its class costs that many bytes more
// on every message of a long thread, so this test fails and says why the
// size matters: find room (a rarely set field behind a pointer, a smaller
// type) or change the figure here knowingly.
func TestSizes(t *testing.T) {
	if strconv.IntSize != 64 {
		t.Skip("the sizes are laid out for the size classes of 64-bit platforms")
	}
	for _, tc := range []struct {
		name      string
		size, max uintptr
		exact     bool // the size is the class exactly: a smaller one is a change to make knowingly too
		why       string
	}{
		{"Msg", unsafe.Sizeof(Msg{}), 48, true,
			"one per message: id + text + one pointer + 8 bytes of codes and flags fill the 48-byte size class"},
		{"MsgInfo", unsafe.Sizeof(MsgInfo{}), 32, true,
			"one per tool result and per message with a name or metadata: tag, name and tool call id inline and one pointer to the rarer members (MsgExtra) fill the 32-byte size class"},
		{"callRep", unsafe.Sizeof(callRep{}), 24, true,
			"a message holding calls has one (its info, and the one call or the many), and every tool call delta that changes a call copies it: the 24-byte size class"},
		{"Call", unsafe.Sizeof(Call{}), 96, false,
			"every tool call a view holds is one, and every TOOL_CALL_ARGS and TOOL_CALL_END copies it; 96 is a size class, the next is 112"},
		{"CallInfo", unsafe.Sizeof(CallInfo{}), 64, false,
			"a call with metadata, an encrypted value or subagents has one of its own (and copies it on each change); the rest share plainCall"},
		{"MsgExtra", unsafe.Sizeof(MsgExtra{}), 96, false,
			"a message with metadata, content parts, an activity document, an error, an encrypted value or an unusual role has one: the 96-byte size class, the next is 112"},
		{"toolInfo", unsafe.Sizeof(toolInfo{}), 48, false,
			"a tool message answering a call no message holds has one (MsgInfo plus its call id): the 48-byte size class; a field added to MsgInfo takes it to the 64-byte class"},
		{"manyCalls", unsafe.Sizeof(manyCalls{}), 64, false,
			"a message holding two calls or more has one, copied by every change to one of its calls: the 64-byte size class"},
		{"MsgRec", unsafe.Sizeof(MsgRec{}), 12, false,
			"the message index holds one for every message id of the stream: 12 bytes aligned to 4 fill its entry after the key's address and length"},
		{"packedLoc", unsafe.Sizeof(packedLoc{}), 8, true,
			"the list holds one for every message appended to it, where a string id would take 16 bytes"},
		{"MsgRec's index entry", persist.TableEntrySize[MsgRec](), 24, false,
			"one for every message id of the stream, in the index's table: a record of 16 bytes would make it 32"},
		{"callRec", unsafe.Sizeof(callRec{}), 32, false,
			"the tool call records hold one for every tool call id of the stream"},
		{"callRec's entry", persist.TableEntrySize[callRec](), 48, false,
			"one for every tool call of the stream, in the records' table (owner and holder in one entry): a record of 40 bytes would make it 56"},
		{"Cold", unsafe.Sizeof(Cold{}), 160, false,
			"nearly every fold copies it, in the 160-byte size class; the next is 176 bytes (put rarely changed fields behind a pointer, as List.after, RunScope and Calls)"},
		{"Rest", unsafe.Sizeof(Rest{}), 288, false,
			"copied whenever a node leaves the hot groups; the next size class is 320 bytes (put rarely changed fields behind a pointer, as Rest.owners)"},
	} {
		if tc.size > tc.max || tc.exact && tc.size != tc.max {
			t.Errorf("%s is %d bytes, not the %d it is laid out for: %s", tc.name, tc.size, tc.max, tc.why)
		}
	}
	if p := pointerField(reflect.TypeFor[MsgRec]()); p != "" {
		t.Errorf("MsgRec.%s holds a pointer: the record is pointer-free, so that the garbage collector scans only the key of a message index entry", p)
	}
}

// pointerField returns the name of a field of struct type st that holds a
// pointer (a string, slice, map, … counts; in a struct field, its own
// field's name follows a dot), or "".
func pointerField(st reflect.Type) string {
	for f := range st.Fields() {
		switch f.Type.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		case reflect.Struct:
			if p := pointerField(f.Type); p != "" {
				return f.Name + "." + p
			}
		default:
			return f.Name
		}
	}
	return ""
}
