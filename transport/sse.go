package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// SSEEvent is one server-sent event as the WHATWG "interpreting an event
// stream" rules dispatch it. It owns its strings.
type SSEEvent struct {
	// Event is the event type: the last "event:" field of the block, or
	// "message" when there was none (or it was empty). WriteSSE writes no
	// "event:" line for "" and "message".
	Event string
	// Data is the data buffer: the "data:" values of the block joined with
	// LF.
	Data string
	// ID is the last event ID when the event was dispatched: the last "id:"
	// field seen so far in the stream, which persists across events. WriteSSE
	// writes an "id:" line when it is not "".
	ID string
}

// ErrInvalidField is wrapped by the error WriteSSE and AppendSSE return for an
// event that cannot be framed: an event type or id holding a line break, or
// an id holding NUL.
var ErrInvalidField = errors.New("transport: invalid SSE field")

// AppendSSE appends the text/event-stream framing of ev to dst: an "event:"
// line unless Event is "" or "message", an "id:" line unless ID is "", one
// "data:" line per line of Data (split at LF, CRLF and CR), and the blank
// line that dispatches the event. A reader that follows the WHATWG rules gets
// ev back (ID aside, which a reader reports as the last id seen).
func AppendSSE(dst []byte, ev SSEEvent) ([]byte, error) {
	if strings.ContainsAny(ev.Event, "\r\n") {
		return dst, fmt.Errorf("%w: event type %q contains a line break", ErrInvalidField, ev.Event)
	}
	if strings.ContainsAny(ev.ID, "\r\n\x00") {
		return dst, fmt.Errorf("%w: id %q contains a line break or NUL", ErrInvalidField, ev.ID)
	}
	if ev.Event != "" && ev.Event != "message" {
		dst = append(dst, "event: "...)
		dst = append(dst, ev.Event...)
		dst = append(dst, '\n')
	}
	if ev.ID != "" {
		dst = append(dst, "id: "...)
		dst = append(dst, ev.ID...)
		dst = append(dst, '\n')
	}
	return appendSSEData(dst, ev.Data), nil
}

// AppendSSEData appends the framing of an event of the default type with no
// id whose data is data: one "data:" line per line of data (split at LF,
// CRLF and CR) and the blank line. It is AppendSSE for a frame held as bytes,
// such as an event's JSON, without converting it to a string.
func AppendSSEData(dst, data []byte) []byte { return appendSSEData(dst, data) }

// appendSSEData appends one "data:" line per line of data and the blank line.
func appendSSEData[T string | []byte](dst []byte, data T) []byte {
	for {
		i := 0
		for i < len(data) && data[i] != '\n' && data[i] != '\r' {
			i++
		}
		dst = append(dst, "data: "...)
		dst = append(dst, data[:i]...)
		dst = append(dst, '\n')
		if i == len(data) {
			break
		}
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return append(dst, '\n')
}

// WriteSSE writes ev to w in the framing AppendSSE describes, with one Write
// call. It does not flush: an http.ResponseWriter needs a Flush after it for
// the event to leave at once.
func WriteSSE(w io.Writer, ev SSEEvent) error {
	b, err := AppendSSE(make([]byte, 0, len(ev.Data)+len(ev.Event)+len(ev.ID)+24), ev)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// SSEDecoder reads a text/event-stream and dispatches its events following
// the WHATWG HTML rules (9.2.6 "Interpreting an event stream"): LF, CRLF and
// CR line ends, a leading byte order mark, comments, multi-line data, the
// event, id and retry fields; a block without data dispatches nothing; the
// stream is decoded as UTF-8 with each invalid sequence replaced by U+FFFD as
// the WHATWG decoder does.
//
// Unlike a browser's EventSource it reports what a browser silently drops:
// input that ends inside an event (an unterminated final line, or data lines
// without the blank line that dispatches them) ends the stream with a
// KindTruncated error; the event is not dispatched. (The AG-UI sources of
// this package, SSE and recorded SSE text, are lenient there as docs/protocol.md
// G18 says: see the package documentation.)
//
// A decoder reads in blocks of up to 64 KiB and keeps at most
// Options.MaxEventBytes of one event (its data plus the line being read);
// a larger event ends the stream with a KindLimit error.
//
// An SSEDecoder is not safe for concurrent use.
type SSEDecoder struct {
	p      sseParser
	events int
	err    error
}

// NewSSEDecoder returns a decoder reading from r. Only opts.MaxEventBytes
// applies.
func NewSSEDecoder(r io.Reader, opts *Options) *SSEDecoder {
	o := opts.resolve()
	d := &SSEDecoder{}
	d.p.init(r, o.MaxEventBytes)
	return d
}

// ParseSSE returns an iterator over the events of r, ending with at most one
// error (a *Error). It is NewSSEDecoder(r, opts).All().
func ParseSSE(r io.Reader, opts *Options) iter.Seq2[SSEEvent, error] {
	return NewSSEDecoder(r, opts).All()
}

// Next returns the next event. At the clean end of the stream it returns
// io.EOF; any other error is a *Error (KindIO, KindLimit, KindTruncated) and
// is returned again by every later call.
func (d *SSEDecoder) Next() (SSEEvent, error) {
	if d.err != nil {
		return SSEEvent{}, d.err
	}
	if err := d.p.next(); err != nil {
		if err != io.EOF {
			err.(*Error).Op = "read sse"
			err.(*Error).Index = d.events
		}
		d.err = err
		return SSEEvent{}, err
	}
	d.events++
	ev := SSEEvent{Event: "message", Data: string(d.p.outData), ID: d.p.lastID}
	if len(d.p.outType) > 0 {
		ev.Event = string(d.p.outType)
	}
	return ev, nil
}

// All returns an iterator over the remaining events. The clean end of the
// stream ends the iteration without an error; a failure is yielded as the
// last pair, with a zero SSEEvent.
func (d *SSEDecoder) All() iter.Seq2[SSEEvent, error] {
	return func(yield func(SSEEvent, error) bool) {
		for {
			ev, err := d.Next()
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// LastEventID returns the last event ID string: the id a reconnecting client
// would send as Last-Event-ID (the "id:" value in force at the last blank
// line read; "" for none).
func (d *SSEDecoder) LastEventID() string { return d.p.lastID }

// Retry returns the reconnection time the stream last set with a valid
// "retry:" field, and whether it set one.
func (d *SSEDecoder) Retry() (time.Duration, bool) {
	return retryDuration(d.p.retry), d.p.hasRetry
}

// retryDuration converts a retry field's milliseconds, saturating at the
// longest Duration.
func retryDuration(ms int64) time.Duration {
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// InputOffset returns the number of bytes of the stream consumed so far.
func (d *SSEDecoder) InputOffset() int64 { return d.p.off(d.p.start) }

// sseParser is the WHATWG line parser. next dispatches one event into
// outData/outType, which stay valid until the following call.
type sseParser struct {
	bufReader
	max int

	bomDone   bool
	skipLF    bool   // the last line ended with CR: a following LF belongs to it
	line      []byte // a line that spans reads
	lineStart int64  // stream offset of line[0]

	inBlock    bool  // a non-blank line was read since the last blank line
	blockStart int64 // stream offset of the block's first line
	data       []byte
	typ        []byte
	idBuf      string // last event ID buffer
	lastID     string // last event ID string, set at each blank line
	retry      int64
	hasRetry   bool

	outData  []byte
	outType  []byte
	outStart int64 // stream offset of the dispatched block
	fix      []byte

	// lenient: at the end of the stream, dispatch or ignore what is pending
	// as docs/protocol.md G18 says (AG-UI framing) instead of reporting it as
	// truncated (the bare WHATWG parser). note then says what was tolerated.
	lenient bool
	note    string
}

func (p *sseParser) init(r io.Reader, max int) {
	p.bufReader.init(r)
	p.max = max
}

// next dispatches the next event. It returns nil (the event is in
// outData/outType/outStart), io.EOF at the clean end of the stream, or a
// *Error with Kind, Offset and Err set.
func (p *sseParser) next() error {
	for {
		if !p.bomDone {
			if !p.skipBOM() {
				continue
			}
			p.bomDone = true
		}
		if p.start == p.end {
			if p.rerr != nil {
				return p.atEnd()
			}
			p.fill()
			continue
		}
		if p.skipLF {
			p.skipLF = false
			if p.buf[p.start] == '\n' {
				p.start++
				continue
			}
		}
		seg := p.buf[p.start:p.end]
		i := lineEnd(seg)
		if i < 0 {
			if len(p.line) == 0 {
				p.lineStart = p.off(p.start)
			}
			if len(p.data)+len(p.line)+len(seg) > p.max {
				return p.tooLarge(p.lineStart)
			}
			p.line = appendBounded(p.line, seg, p.max)
			p.start = p.end
			continue
		}
		l, lineStart := seg[:i], p.off(p.start)
		if len(p.line) > 0 {
			p.line = appendBounded(p.line, l, p.max)
			l, lineStart = p.line, p.lineStart
		}
		if len(p.data)+len(l) > p.max {
			return p.tooLarge(lineStart)
		}
		p.skipLF = seg[i] == '\r'
		p.start += i + 1
		dispatched := p.processLine(l, lineStart)
		p.line = p.line[:0]
		if dispatched {
			return nil
		}
	}
}

// lineEnd returns the index of the first CR or LF in b, or -1.
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}

// processLine applies one complete line and reports whether it dispatched
// an event.
func (p *sseParser) processLine(l []byte, lineStart int64) bool {
	if len(l) == 0 {
		p.inBlock = false
		p.lastID = p.idBuf
		if len(p.data) == 0 {
			p.typ = p.typ[:0]
			return false
		}
		p.outData = p.validUTF8(p.data[:len(p.data)-1])
		p.outType = p.typ
		if !utf8.Valid(p.outType) {
			p.outType = appendUTF8(nil, p.outType)
		}
		p.outStart = p.blockStart
		p.data = p.data[:0]
		p.typ = p.typ[:0]
		return true
	}
	if !p.inBlock {
		p.inBlock = true
		p.blockStart = lineStart
	}
	if l[0] == ':' {
		return false
	}
	field, value := l, []byte(nil)
	if c := bytes.IndexByte(l, ':'); c >= 0 {
		field, value = l[:c], l[c+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(field) {
	case "data":
		p.data = appendBounded(p.data, value, p.max)
		p.data = append(p.data, '\n')
	case "event":
		p.typ = append(p.typ[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 && string(value) != p.idBuf {
			if utf8.Valid(value) {
				p.idBuf = string(value)
			} else {
				p.idBuf = string(appendUTF8(nil, value))
			}
		}
	case "retry":
		if len(value) > 0 && allDigits(value) {
			if n, err := strconv.ParseInt(string(value), 10, 64); err == nil {
				p.retry, p.hasRetry = n, true
			}
		}
	}
	return false
}

// validUTF8 returns b, or b with invalid sequences replaced, in p.fix.
func (p *sseParser) validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	p.fix = appendUTF8(p.fix[:0], b)
	return p.fix
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// tooLarge reports the event (or, outside any event, the line starting at
// lineStart) that went past the limit.
func (p *sseParser) tooLarge(lineStart int64) error {
	start := lineStart
	if p.inBlock {
		start = p.blockStart
	}
	return &Error{Kind: KindLimit, Offset: start, Limit: int64(p.max)}
}

// atEnd is called when every byte read has been consumed and the reader has
// failed or ended.
func (p *sseParser) atEnd() error {
	if p.rerr != io.EOF {
		return &Error{Kind: KindIO, Offset: p.off(p.start), Err: p.rerr}
	}
	if p.lenient && (len(p.line) > 0 || len(p.data) > 0) {
		return p.lenientEnd()
	}
	switch {
	case len(p.line) > 0:
		start := p.lineStart
		if p.inBlock {
			start = p.blockStart
		}
		return &Error{Kind: KindTruncated, Offset: start,
			Err: errors.New("the last line has no line ending, so it was never processed")}
	case len(p.data) > 0:
		return &Error{Kind: KindTruncated, Offset: p.blockStart,
			Err: errors.New("data lines without the blank line that dispatches them")}
	}
	return io.EOF
}

// lenientEnd ends a stream whose last line has no line ending or whose last
// event has no blank line (docs/protocol.md G18): the pending line is processed
// as if it ended; pending data that is one complete JSON value is dispatched
// (nil), an empty one or none at all is ignored (io.EOF), and anything else
// is a truncation. p.note says what was tolerated.
func (p *sseParser) lenientEnd() error {
	unterminated := len(p.line) > 0
	lineStart := p.lineStart
	if unterminated {
		p.processLine(p.line, p.lineStart) // a line that is not blank never dispatches
		p.line = p.line[:0]
	}
	if len(p.data) == 0 {
		p.note = fmt.Sprintf("the last line (byte %d) has no line ending and holds no data; ignored", lineStart)
		p.inBlock = false
		return io.EOF
	}
	data := p.data[:len(p.data)-1]
	how := "has no blank line after it"
	if unterminated {
		how = "has no line ending"
	}
	if len(data) == 0 {
		p.note = fmt.Sprintf("the last event (byte %d) %s and its data is empty; ignored", p.blockStart, how)
		p.data, p.typ, p.inBlock = p.data[:0], p.typ[:0], false
		return io.EOF
	}
	if !json.Valid(data) {
		return &Error{Kind: KindTruncated, Offset: p.blockStart,
			Err: fmt.Errorf("the last event %s and its data is not one complete JSON value", how)}
	}
	p.note = fmt.Sprintf("the last event (byte %d) %s; dispatched, its data being one complete JSON value", p.blockStart, how)
	p.lastID = p.idBuf
	p.outData = p.validUTF8(data)
	p.outType = p.typ
	if !utf8.Valid(p.outType) {
		p.outType = appendUTF8(nil, p.outType)
	}
	p.outStart = p.blockStart
	p.data, p.typ, p.inBlock = p.data[:0], p.typ[:0], false
	return nil
}

// appendUTF8 appends src to dst decoded as the WHATWG Encoding Standard's
// UTF-8 decoder does: each maximal invalid subsequence becomes one U+FFFD.
// (utf8.DecodeRune differs: it replaces a truncated multi-byte sequence byte
// by byte.)
func appendUTF8(dst, src []byte) []byte {
	var cp rune
	needed, seen := 0, 0
	lower, upper := byte(0x80), byte(0xBF)
	for i := 0; i < len(src); i++ {
		b := src[i]
		if needed == 0 {
			switch {
			case b < 0x80:
				dst = append(dst, b)
			case b >= 0xC2 && b <= 0xDF:
				needed, cp = 1, rune(b&0x1F)
			case b >= 0xE0 && b <= 0xEF:
				if b == 0xE0 {
					lower = 0xA0
				} else if b == 0xED {
					upper = 0x9F
				}
				needed, cp = 2, rune(b&0x0F)
			case b >= 0xF0 && b <= 0xF4:
				if b == 0xF0 {
					lower = 0x90
				} else if b == 0xF4 {
					upper = 0x8F
				}
				needed, cp = 3, rune(b&0x07)
			default:
				dst = utf8.AppendRune(dst, utf8.RuneError)
			}
			continue
		}
		if b < lower || b > upper {
			needed, seen, cp = 0, 0, 0
			lower, upper = 0x80, 0xBF
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i-- // process b again
			continue
		}
		lower, upper = 0x80, 0xBF
		cp = cp<<6 | rune(b&0x3F)
		if seen++; seen == needed {
			dst = utf8.AppendRune(dst, cp)
			needed, seen, cp = 0, 0, 0
		}
	}
	if needed != 0 {
		dst = utf8.AppendRune(dst, utf8.RuneError)
	}
	return dst
}
