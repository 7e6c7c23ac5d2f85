package persist

import (
	"sync/atomic"
	"unsafe"
)

// Text is append-only streamed text, such as the content of a message that
// arrives in deltas. It is a persistent list of chunks joined lazily: Append
// never copies earlier text, and String joins once per Text value and
// memoises the result. The zero value is empty.
//
// Costs: Append, Len and IsEmpty are O(1). The first String call on a value
// costs O(k + d), where k is the number of chunks appended since the nearest
// earlier value whose String was computed and d their byte length, when that
// earlier value's joined buffer has room and this is the first value to
// extend it; otherwise it copies the whole text into a new buffer with room to
// grow (twice the length, or exactly the length when nothing in the chain had
// been joined before). So calling String on every value of a stream of n
// bytes costs O(n) overall amortised, and a single String at the end costs
// O(n). Branching (appending to the same older value twice and joining both)
// makes the later joiner copy. Later calls on the same value are O(1).
//
// Memory: a joined value keeps its string and drops its link to earlier
// chunks, so a stream whose values are joined as they arrive holds O(n)
// bytes; a stream never joined holds its chunks and one small node per chunk.
type Text struct {
	n *textNode
}

// textNode is one chunk of a Text. chunk and size never change. memo is set
// at most once (first writer wins); after it is set, prev is cleared so the
// earlier chunks can be collected. Readers that find prev nil re-read memo,
// which is stored before prev is cleared.
type textNode struct {
	prev  atomic.Pointer[textNode]
	memo  atomic.Pointer[textMemo]
	chunk string
	size  int // bytes of the whole text up to and including chunk
}

// textMemo is the joined text of a node. When buf is non-nil, s is the first
// len(s) bytes of buf.b, and a successor may extend it in place after
// claiming the bytes from len(s) on.
type textMemo struct {
	s   string
	buf *textBuf
}

// textBuf is a byte buffer shared by the memos of successive values. b has a
// fixed length; bytes below used are claimed (some value's string may cover
// them, and they are never written again), bytes from used on are free and
// written only by the goroutine that advanced used over them.
type textBuf struct {
	b    []byte
	used atomic.Int64
}

// TextOf returns a Text holding s.
func TextOf(s string) Text {
	if s == "" {
		return Text{}
	}
	n := &textNode{chunk: s, size: len(s)}
	n.memo.Store(&textMemo{s: s})
	return Text{n: n}
}

// Append returns t followed by s. Appending "" returns t itself.
func (t Text) Append(s string) Text {
	if s == "" {
		return t
	}
	n := &textNode{chunk: s, size: t.Len() + len(s)}
	n.prev.Store(t.n)
	return Text{n: n}
}

// Len returns the length of t in bytes.
func (t Text) Len() int {
	if t.n == nil {
		return 0
	}
	return t.n.size
}

// IsEmpty reports whether t has no bytes.
func (t Text) IsEmpty() bool { return t.n == nil }

// String returns the text. The result is computed on the first call for a
// given value and memoised; see [Text] for the costs.
func (t Text) String() string {
	if t.n == nil {
		return ""
	}
	if m := t.n.memo.Load(); m != nil {
		return m.s
	}
	// Collect the chunks back to the nearest joined ancestor.
	var pending []*textNode
	var base *textMemo
	for x := t.n; x != nil; {
		if m := x.memo.Load(); m != nil {
			base = m
			break
		}
		p := x.prev.Load()
		if p == nil {
			// Either x starts the text, or x was joined concurrently and
			// its link dropped after its memo was stored.
			if m := x.memo.Load(); m != nil {
				base = m
				break
			}
		}
		pending = append(pending, x)
		x = p
	}
	m := join(base, pending, t.n.size)
	if t.n.memo.CompareAndSwap(nil, m) {
		t.n.prev.Store(nil)
		return m.s
	}
	return t.n.memo.Load().s
}

// join returns the memo for base followed by the chunks of pending (newest
// first), total bytes in all.
func join(base *textMemo, pending []*textNode, total int) *textMemo {
	from := 0
	if base != nil {
		from = len(base.s)
	}
	if base != nil && base.buf != nil && total <= len(base.buf.b) &&
		base.buf.used.CompareAndSwap(int64(from), int64(total)) {
		// Bytes [from, total) of base.buf are ours alone.
		fill(base.buf.b[from:total], pending)
		return &textMemo{s: unsafe.String(&base.buf.b[0], total), buf: base.buf}
	}
	size := total
	if base != nil {
		size = 2 * total
	}
	buf := &textBuf{b: make([]byte, size)}
	if base != nil {
		copy(buf.b, base.s)
	}
	fill(buf.b[from:total], pending)
	buf.used.Store(int64(total))
	return &textMemo{s: unsafe.String(&buf.b[0], total), buf: buf}
}

// fill copies the chunks of pending (newest first) into dst in text order.
func fill(dst []byte, pending []*textNode) {
	end := len(dst)
	for _, n := range pending {
		end -= copy(dst[end-len(n.chunk):end], n.chunk)
	}
}
