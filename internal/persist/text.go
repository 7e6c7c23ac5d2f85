package persist

import (
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Text is append-only streamed text, such as the content of a message that
// arrives in deltas. While it grows, it is a length into a shared byte buffer
// with spare capacity: Append copies the new bytes into the spare capacity
// when it is the first successor of its value to claim them, so a stream of
// deltas fills one buffer in place and allocates only when the buffer is
// full. A finished text (TextOf, Compact) is the bytes of an immutable
// string and costs nothing besides them. The zero value is empty.
//
// Costs: Len, IsEmpty and String are O(1), and String does not allocate.
// Append(s) to an empty text makes a finished text of a copy of s. Append(s)
// costs O(len(s)) when it extends the buffer in place; when the buffer is
// full, when another value has already extended this one (the text
// branched), or when the text is finished, it copies the whole text into a
// new buffer with room to grow, so a stream of n bytes costs O(n) overall
// amortised.
//
// Memory: a stream of n bytes holds one buffer of at most about 2n bytes
// (plus the buffers its older values alone still reference), instead of a
// node per delta; Compact gives the spare room back.
type Text struct {
	// p is a *textBuf when n > 0 (the text may grow in place), and the first
	// byte of an immutable string of -n bytes when n < 0.
	p unsafe.Pointer
	n int
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

// TextOf returns a Text holding s. It does not copy s and does not allocate.
func TextOf(s string) Text {
	if s == "" {
		return Text{}
	}
	return Text{p: unsafe.Pointer(unsafe.StringData(s)), n: -len(s)}
}

// buf returns t's growable buffer, or nil when t is empty or finished.
func (t Text) buf() *textBuf {
	if t.n <= 0 {
		return nil
	}
	return (*textBuf)(t.p)
}

// Append returns t followed by s. Appending "" returns t itself.
func (t Text) Append(s string) Text {
	if s == "" {
		return t
	}
	n := t.Len()
	if n == 0 {
		// The first bytes are a finished text of their own length: a text
		// that gets one delta only (a short message) costs one allocation
		// and nothing to compact. A second delta copies them into a buffer
		// with room to grow.
		return TextOf(strings.Clone(s))
	}
	need := n + len(s)
	if b := t.buf(); b != nil && need <= len(b.b) && b.used.CompareAndSwap(int64(n), int64(need)) {
		// Bytes n..need are ours alone: no value can see them yet.
		copy(b.b[n:need], s)
		return Text{p: t.p, n: need}
	}
	// The allocation is rounded up to its size class: the rounding is room
	// to grow that costs nothing.
	b := slices.Grow([]byte(nil), need+textSpare(need))
	nb := &textBuf{b: b[:cap(b)]}
	copy(nb.b, t.String())
	copy(nb.b[n:], s)
	nb.used.Store(int64(need))
	return Text{p: unsafe.Pointer(nb), n: need}
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

// Compact returns t finished: the bytes of an immutable string, without the
// growable buffer's header, and in a copy of their own length when the
// buffer has much more room than t uses (the room to grow a stream needs,
// which a finished text no longer does). Appending to the result copies it.
func (t Text) Compact() Text {
	b := t.buf()
	if b == nil {
		return t
	}
	if len(b.b)-t.n > max(16, t.n/8) {
		return TextOf(strings.Clone(t.String()))
	}
	// The bytes below t.n are claimed and never written again.
	return Text{p: unsafe.Pointer(&b.b[0]), n: -t.n}
}

// Len returns the length of t in bytes.
func (t Text) Len() int {
	if t.n < 0 {
		return -t.n
	}
	return t.n
}

// IsEmpty reports whether t is empty.
func (t Text) IsEmpty() bool { return t.n == 0 }

// String returns the text. The string shares t's buffer, whose bytes it
// covers are never written again.
func (t Text) String() string {
	switch {
	case t.n < 0:
		return unsafe.String((*byte)(t.p), -t.n)
	case t.n > 0:
		return unsafe.String(&(*textBuf)(t.p).b[0], t.n)
	}
	return ""
}
