package persist

import (
	"strings"
	"sync/atomic"
	"unsafe"
)

// arenaChunkSize is the size of a full-sized arena chunk, a size class of
// the allocator. An arena's first chunk is arenaFirstChunk bytes, and each
// next one twice the last, up to this: a stream with a few short strings
// takes a few hundred bytes, not a whole chunk.
const (
	arenaChunkSize  = 8192
	arenaFirstChunk = 128
)

// arenaMaxLen is the longest string an Arena packs; a longer one is cloned
// on its own, where the allocator's rounding costs at most an eighth of it.
const arenaMaxLen = 128

// Arena hands out copies of short strings, packed one after another into
// shared chunks of up to 8 KB. A stream's states keep its message ids and short
// texts for as long as the stream is viewed, each copy in an allocation of
// its own: an 8-byte id takes a 16-byte block (the tiny allocator's, which
// a shorter-lived neighbour often shares and cannot free), and a
// 70-character text the 80-byte size class. In an arena, each takes its
// bytes and nothing more.
//
// A chunk stays alive while any string in it does, so an arena is for
// strings that mostly live as long as one another (those of one stream).
// Versions of a stream that part (forks of one view, each of which may be
// kept or dropped) must not fill chunks together for long: each takes an
// arena split from the one they shared (see Split).
// Strings are never written once handed out; any number of goroutines may
// clone into one arena at once (a chunk's bytes are claimed with an atomic
// add). The zero Arena is ready to use, and a nil *Arena clones each string
// on its own.
type Arena struct {
	cur atomic.Pointer[arenaChunk]
}

// arenaChunk is one chunk of an Arena: used bytes of b are claimed (and
// written only by the goroutine that claimed them); used may run past the
// end, which leaves the chunk full for every later claim. The strings
// point into b, which holds no pointer: the garbage collector never scans
// it, and frees the chunk itself once the arena has moved on.
type arenaChunk struct {
	used atomic.Int32
	b    []byte
}

// Clone returns a copy of s that shares no memory with it.
func (a *Arena) Clone(s string) string {
	b := a.claim(len(s))
	if b == nil {
		return strings.Clone(s)
	}
	copy(b, s)
	return unsafe.String(&b[0], len(b))
}

// CloneBytes returns a copy of b as a string.
func (a *Arena) CloneBytes(b []byte) string {
	c := a.claim(len(b))
	if c == nil {
		return string(b)
	}
	copy(c, b)
	return unsafe.String(&c[0], len(c))
}

// claim returns n bytes of a chunk for the caller alone to write, or nil
// when a is nil or n is 0 or more than arenaMaxLen.
func (a *Arena) claim(n int) []byte {
	if a == nil || n == 0 || n > arenaMaxLen {
		return nil
	}
	m := int32(n)
	for {
		c := a.cur.Load()
		size := arenaFirstChunk
		if c != nil {
			if c.used.Load() <= int32(len(c.b))-m {
				if end := c.used.Add(m); end <= int32(len(c.b)) {
					return c.b[end-m : end : end]
				}
			}
			size = min(2*len(c.b), arenaChunkSize)
		}
		a.cur.CompareAndSwap(c, &arenaChunk{b: make([]byte, size)})
	}
}

// Split makes a, an arena nothing has cloned into, go on from b's current
// chunk: a and b fill that chunk together until it is full, then chunks of
// their own, so that the strings of one pin the other's for one chunk at
// most. A nil b leaves a as it is.
func (a *Arena) Split(b *Arena) {
	if b != nil {
		a.cur.Store(b.cur.Load())
	}
}
