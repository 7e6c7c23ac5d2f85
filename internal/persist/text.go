package persist

import (
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Text is append-only streamed text, such as the content of a message that
// arrives in deltas. It is a length into a shared byte buffer with spare
// capacity: Append copies the new bytes into the spare capacity when it is
// the first successor of its value to claim them, so a stream of deltas
// fills one buffer in place and allocates only when the buffer is full. The
// zero value is empty.
//
// Costs: Len, IsEmpty and String are O(1), and String does not allocate.
// Append(s) costs O(len(s)) when it extends the buffer in place; when the
// buffer is full, or when another value has already extended this one (the
// text branched), it copies the whole text into a new buffer with room to
// grow, so a stream of n bytes costs O(n) overall amortised.
//
// Memory: a stream of n bytes holds one buffer of at most about 2n bytes
// (plus the buffers its older values alone still reference), instead of a
// node per delta.
type Text struct {
	buf *textBuf
	n   int // bytes of buf.b that hold this value's text
}

// textBuf is a byte buffer shared by successive values of one stream. b has
// a fixed length (its capacity); bytes below used are claimed (some value's
// text may cover them, and they are never written again), bytes from used on
// are free and written only by the goroutine that advanced used over them
// with a compare-and-swap. A value of length n never reads beyond n.
type textBuf struct {
	used atomic.Int64
	b    []byte
}

// TextOf returns a Text holding s. It does not copy s: the buffer is s's own
// memory, with no spare capacity, so it is never written.
func TextOf(s string) Text {
	if s == "" {
		return Text{}
	}
	buf := &textBuf{b: unsafe.Slice(unsafe.StringData(s), len(s))}
	buf.used.Store(int64(len(s)))
	return Text{buf: buf, n: len(s)}
}

// Append returns t followed by s. Appending "" returns t itself.
func (t Text) Append(s string) Text {
	if s == "" {
		return t
	}
	need := t.n + len(s)
	if b := t.buf; b != nil && need <= len(b.b) && b.used.CompareAndSwap(int64(t.n), int64(need)) {
		// Bytes t.n..need are ours alone: no value can see them yet.
		copy(b.b[t.n:need], s)
		return Text{buf: b, n: need}
	}
	// The allocation is rounded up to its size class: the rounding is room
	// to grow that costs nothing.
	b := slices.Grow([]byte(nil), need+textSpare(need))
	nb := &textBuf{b: b[:cap(b)]}
	copy(nb.b, t.String())
	copy(nb.b[t.n:], s)
	nb.used.Store(int64(need))
	return Text{buf: nb, n: need}
}

// textSpare returns the spare capacity a new buffer for n bytes gets:
// doubling for ordinary texts (at least 32 bytes), a quarter more for very
// large ones.
func textSpare(n int) int {
	switch {
	case n < 32:
		return 32
	case n > 1<<20:
		return n / 4
	}
	return n
}

// Compact returns t in a buffer of its own length when t's buffer has much
// more room than t uses (the room to grow a stream needs, which a finished
// text no longer does), and t itself otherwise. It costs one copy of t.
func (t Text) Compact() Text {
	if t.buf == nil || len(t.buf.b)-t.n <= max(16, t.n/8) {
		return t
	}
	return TextOf(strings.Clone(t.String()))
}

// Len returns the length of t in bytes.
func (t Text) Len() int { return t.n }

// IsEmpty reports whether t is empty.
func (t Text) IsEmpty() bool { return t.n == 0 }

// String returns the text. The string shares t's buffer, whose bytes it
// covers are never written again.
func (t Text) String() string {
	if t.n == 0 {
		return ""
	}
	return unsafe.String(&t.buf.b[0], t.n)
}
