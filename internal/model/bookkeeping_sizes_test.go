package model

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/agview/agview/internal/persist"
)

// restOf returns the rest function PutMsg and SetMsgOwner take, for a test
// that keeps earlier versions of c: it copies c's Rest on every call, as
// the reducer copies it once per fold.
func restOf(c *Cold) func() *Rest {
	return func() *Rest {
		r := *c.Rest
		c.Rest = &r
		return c.Rest
	}
}

// TestBookkeepingSizes pins the sizes of the per-message and per-tool-call
// bookkeeping: a state holds one message index entry for every message id
// of the stream and one owner entry per tool call, for the whole stream, so
// that a field added to one of them that pushes its map entry into the next
// allocator size class costs that many bytes more per message (a 48-byte
// entry becomes a 64-byte one: a third more) — and a pointer in MsgRec
// makes the garbage collector scan every entry's value too.
func TestBookkeepingSizes(t *testing.T) {
	for _, c := range []struct {
		name        string
		size, entry uintptr
		max, maxEnt uintptr
	}{
		{"MsgRec", unsafe.Sizeof(MsgRec{}), persist.EntrySize[MsgRec](), 24, 48},
		{"ownerRef (CallOwner)", unsafe.Sizeof(ownerRef(0)), persist.EntrySize[ownerRef](), 4, 32},
	} {
		if c.size > c.max || c.entry > c.maxEnt {
			t.Errorf("%s is %d bytes and its persist.Map entry %d; keep them at most %d and %d (a size class of the allocator): "+
				"there is one for every message or tool call of the stream", c.name, c.size, c.entry, c.max, c.maxEnt)
		}
	}
	// Cold is copied by nearly every fold and Rest whenever a node leaves
	// the hot groups: each copy is an allocation of its size class.
	for _, c := range []struct {
		name      string
		size, max uintptr
		next      int
	}{{"Cold", unsafe.Sizeof(Cold{}), 192, 208}, {"Rest", unsafe.Sizeof(Rest{}), 288, 320}} {
		if c.size > c.max {
			t.Errorf("%s is %d bytes; keep it at most %d (a size class of the allocator): a state change copies it, "+
				"and the next class is %d bytes (put rarely changed fields behind a pointer, as List.after and Rest.owners)",
				c.name, c.size, c.max, c.next)
		}
	}
	if p := pointerField(reflect.TypeFor[MsgRec]()); p != "" {
		t.Errorf("MsgRec.%s holds a pointer: the record is pointer-free, so that the garbage collector scans only the key of a message index entry", p)
	}
}

// pointerField returns the name of a field of struct type st that holds a
// pointer (a string, slice, map, … counts), or "".
func pointerField(st reflect.Type) string {
	for f := range st.Fields() {
		switch f.Type.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		default:
			return f.Name
		}
	}
	return ""
}
