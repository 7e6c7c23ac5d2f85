package event

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
)

// DefaultMaxLineSize is the longest JSON Lines line a Decoder accepts unless
// told otherwise: 8 MiB.
const DefaultMaxLineSize = 8 << 20

// DecoderOptions configures a Decoder. A nil *DecoderOptions means the
// defaults; NewDecoder copies the struct, so it may be reused.
type DecoderOptions struct {
	// MaxLineSize is the longest line accepted, in bytes, not counting the
	// line end; 0 or less means DefaultMaxLineSize. A longer line is skipped
	// with a *LineTooLongError.
	MaxLineSize int
}

// Decoder reads events from a JSON Lines stream: one event object per line,
// lines ending in LF or CRLF, blank lines skipped, a UTF-8 byte order mark at
// the start ignored.
//
// A Decoder is not safe for concurrent use. The events it yields own their
// memory.
type Decoder struct {
	r    *bufio.Reader
	max  int
	line int
	buf  []byte
}

// NewDecoder returns a Decoder reading JSON Lines from r.
func NewDecoder(r io.Reader, opts *DecoderOptions) *Decoder {
	var o DecoderOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxLineSize <= 0 {
		o.MaxLineSize = DefaultMaxLineSize
	}
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10), max: o.MaxLineSize}
}

// Line returns the number of the last line read (1-based; 0 before the first).
func (d *Decoder) Line() int { return d.line }

// All returns an iterator over the rest of the stream's events, in order.
//
// A line that does not decode yields (nil, *LineError) wrapping its
// *DecodeError or *UnknownTypeError, and a line over the size limit yields
// (nil, *LineTooLongError); in both cases iteration goes on with the next
// line. An error reading from the underlying reader is yielded last and ends
// the iteration; io.EOF ends it silently. Stopping the loop early leaves the
// Decoder at the next line, so All may be called again to go on.
func (d *Decoder) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			line, tooLong, err := d.next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					yield(nil, fmt.Errorf("event: reading line %d: %w", d.line, err))
				}
				return
			}
			if tooLong {
				if !yield(nil, &LineTooLongError{Line: d.line, Limit: d.max}) {
					return
				}
				continue
			}
			if len(bytes.TrimLeft(line, " \t\r\n")) == 0 {
				continue
			}
			e, err := Decode(line)
			if err != nil {
				err = &LineError{Line: d.line, Err: err}
			}
			if !yield(e, err) {
				return
			}
		}
	}
}

// next reads the next line without its line end. tooLong reports a line over
// the limit, whose bytes were discarded. err is io.EOF at the end of the
// stream, or the reader's error.
func (d *Decoder) next() (line []byte, tooLong bool, err error) {
	d.buf = d.buf[:0]
	n := 0 // bytes of the line seen, kept or not
	for {
		frag, err := d.r.ReadSlice('\n')
		if n == 0 && len(frag) > 0 {
			d.line++
			if d.line == 1 {
				frag = bytes.TrimPrefix(frag, []byte("\xEF\xBB\xBF"))
			}
		}
		n += len(frag)
		if !tooLong {
			if len(d.buf)+len(frag) > d.max+2 { // +2: room for "\r\n"
				tooLong = true
				d.buf = d.buf[:0]
			} else {
				d.buf = append(d.buf, frag...)
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && n > 0:
			// the last line has no line end: take it now, report EOF next time
		default:
			return nil, false, err
		}
		break
	}
	line = bytes.TrimSuffix(d.buf, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > d.max {
		tooLong = true
	}
	if tooLong {
		return nil, true, nil
	}
	return line, false, nil
}
