package transport

import (
	"bytes"
	"io"
)

// bufReader is the read buffer the byte-stream sources share: it reads in
// blocks of 4 KiB growing to 64 KiB while reads fill them, and tracks the
// stream offset of every buffered byte.
type bufReader struct {
	r     io.Reader
	buf   []byte
	start int   // first unread byte of buf
	end   int   // end of the bytes read into buf
	base  int64 // stream offset of buf[0]
	rerr  error // sticky read error, io.EOF included
	empty int   // consecutive empty reads
	full  bool  // the last read filled the buffer
}

const (
	readBufMin = 4 << 10
	readBufMax = 64 << 10
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func (b *bufReader) init(r io.Reader) {
	b.r = r
	b.buf = make([]byte, readBufMin)
}

// off returns the stream offset of buf[i].
func (b *bufReader) off(i int) int64 { return b.base + int64(i) }

// fill moves the unread bytes to the front of buf and reads more. A read
// error (io.EOF included) is kept in rerr; bytes read with it stay usable.
func (b *bufReader) fill() {
	if b.start > 0 {
		b.base += int64(b.start)
		b.end = copy(b.buf, b.buf[b.start:b.end])
		b.start = 0
	}
	if b.end == 0 && b.full && len(b.buf) < readBufMax {
		b.buf = make([]byte, 2*len(b.buf))
	}
	n, err := b.r.Read(b.buf[b.end:])
	b.full = b.end+n == len(b.buf)
	b.end += n
	switch {
	case err != nil:
		b.rerr = err
	case n == 0:
		if b.empty++; b.empty >= 100 {
			b.rerr = io.ErrNoProgress
		}
	default:
		b.empty = 0
	}
}

// skipBOM skips a UTF-8 byte order mark at the start of the stream. It
// reports false when it needed to read more first (the caller loops).
func (b *bufReader) skipBOM() bool {
	if b.end-b.start < len(utf8BOM) && b.rerr == nil {
		b.fill()
		return false
	}
	if bytes.HasPrefix(b.buf[b.start:b.end], utf8BOM) {
		b.start += len(utf8BOM)
	}
	return true
}

// appendBounded is append for buffers that may not exceed limit bytes: when
// it must grow dst it doubles the capacity but never beyond limit (or the
// length needed), so a buffer that reaches the limit has not allocated
// much more than the limit along the way.
func appendBounded(dst, src []byte, limit int) []byte {
	n := len(dst) + len(src)
	if n <= cap(dst) {
		return append(dst, src...)
	}
	c := max(2*cap(dst), 512)
	if c > limit/2 {
		c = limit // the next doubling would pass the limit: take it all now
	}
	c = max(c, n)
	grown := make([]byte, len(dst), c)
	copy(grown, dst)
	return append(grown, src...)
}
