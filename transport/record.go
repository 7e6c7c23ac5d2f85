package transport

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/agview/agview/event"
)

// Format is the framing of a recorded stream.
type Format uint8

// The recorded-stream formats.
const (
	// FormatAuto detects the format from the first bytes that are not a
	// byte order mark or white space: '{' is JSONL, '[' a JSON array, a
	// line starting with ':', "data", "event", "id" or "retry" is SSE. An
	// input with nothing else reads as JSONL (no events).
	FormatAuto Format = iota
	// FormatJSONL is JSON Lines: one event per line (LF or CRLF). Blank
	// lines are skipped; the last line may lack its line ending.
	FormatJSONL
	// FormatSSE is text/event-stream, as an SSE response body.
	FormatSSE
	// FormatJSONArray is one JSON array whose elements are the events.
	FormatJSONArray
	// FormatProto is the protobuf framing of an
	// application/vnd.ag-ui.event+proto response: each event is a 4-byte
	// big-endian length and one ag_ui.Event message (docs/protocol.md §2.4).
	FormatProto
)

var formatNames = [...]string{FormatAuto: "auto", FormatJSONL: "jsonl", FormatSSE: "sse", FormatJSONArray: "json",
	FormatProto: "proto"}

// String returns the format's name: "auto", "jsonl", "sse", "json" or "proto".
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// ParseFormat returns the format named s: "auto" (or ""), "jsonl", "sse",
// "json" (also "json-array", "array"), or "proto" (also "protobuf" and the
// media type application/vnd.ag-ui.event+proto).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return FormatAuto, nil
	case "jsonl", "ndjson":
		return FormatJSONL, nil
	case "sse", "event-stream", "text/event-stream":
		return FormatSSE, nil
	case "json", "json-array", "array":
		return FormatJSONArray, nil
	case "proto", "protobuf", MediaTypeProto:
		return FormatProto, nil
	}
	return 0, fmt.Errorf("transport: unknown format %q (want auto, jsonl, sse, json or proto)", s)
}

// Read returns the events of the recorded stream r in the given format
// (FormatAuto detects it). The iterator follows the package contract: a
// per-event decoding error is yielded and reading goes on; a fatal error is a
// *Error and ends the iteration; a stream whose last run never finished ends
// with a KindIncomplete error.
//
// r is read by the iterating goroutine only. ctx is checked between frames:
// a Read blocked inside r is not interrupted (ReadFile's is). The iterator is
// single-use: r is consumed.
func Read(ctx context.Context, r io.Reader, format Format, opts *Options) iter.Seq2[event.Event, error] {
	return readerStream(r, "", format, opts).events(ctx)
}

// ReadFrames is Read without decoding: it yields each frame's bytes with its
// index and byte offset. It reports only framing and I/O failures, and no
// KindIncomplete error (that needs the events).
func ReadFrames(ctx context.Context, r io.Reader, format Format, opts *Options) iter.Seq2[Frame, error] {
	return readerStream(r, "", format, opts).frames(ctx)
}

// ReadFile is Read on the file at path. The file is opened when the
// iteration starts and closed when it ends; canceling ctx closes it, which
// interrupts a blocked read (a named pipe, a terminal).
func ReadFile(ctx context.Context, path string, format Format, opts *Options) iter.Seq2[event.Event, error] {
	return fileStream(path, format, opts).events(ctx)
}

// ReadFileFrames is ReadFrames on the file at path.
func ReadFileFrames(ctx context.Context, path string, format Format, opts *Options) iter.Seq2[Frame, error] {
	return fileStream(path, format, opts).frames(ctx)
}

// readOp names the operation of reading a recorded stream in format f.
func readOp(f Format) string {
	if f == FormatAuto {
		return "read"
	}
	return "read " + f.String()
}

func readerStream(r io.Reader, name string, format Format, opts *Options) *stream {
	o := opts.resolve()
	s := &stream{op: readOp(format), src: name}
	s.open = func(context.Context) (source, error) {
		return openRecorded(s, r, format, o.MaxEventBytes)
	}
	return s
}

func fileStream(path string, format Format, opts *Options) *stream {
	o := opts.resolve()
	s := &stream{op: readOp(format), src: path}
	s.open = func(ctx context.Context) (source, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, &Error{Kind: KindIO, Offset: -1, Err: err}
		}
		src, err := openRecorded(s, f, format, o.MaxEventBytes)
		if err != nil {
			f.Close()
			return nil, err
		}
		fs := &fileSource{source: src, f: f, closed: make(chan struct{})}
		fs.stop = context.AfterFunc(ctx, func() {
			defer close(fs.closed)
			f.Close() // interrupts a blocked read
		})
		return fs, nil
	}
	return s
}

// fileSource closes its file when done, or when the context is.
type fileSource struct {
	source
	f      *os.File
	stop   func() bool
	closed chan struct{} // closed when the context's AfterFunc has run
}

func (s *fileSource) proto() bool { return isProto(s.source) }

func (s *fileSource) close() {
	if !s.stop() {
		<-s.closed
	}
	s.source.close()
	s.f.Close()
}

// openRecorded detects the format if needed, names the stream after it and
// opens the matching source.
func openRecorded(s *stream, r io.Reader, format Format, max int) (source, error) {
	var prefix []byte
	if format == FormatAuto {
		var err error
		format, prefix, err = detect(r)
		if err != nil {
			return nil, err
		}
		r = io.MultiReader(bytes.NewReader(prefix), r)
	}
	s.op = readOp(format)
	switch format {
	case FormatJSONL:
		src := &jsonlSource{max: max}
		src.init(r)
		return src, nil
	case FormatSSE:
		src := &sseSource{}
		src.p.init(r, max)
		src.p.lenient = true
		return src, nil
	case FormatJSONArray:
		src := &arraySource{max: max}
		src.init(r)
		return src, nil
	case FormatProto:
		return newProtoSource(r, max), nil
	}
	return nil, &Error{Kind: KindConnect, Offset: -1, Err: fmt.Errorf("unknown format %v", format)}
}

// DetectFormat tells the format of a recorded stream from its first bytes,
// as FormatAuto does: a zero byte first is the protobuf framing (the high
// byte of the first frame's length, zero for any frame under 16 MiB) when the
// fifth byte starts a length-delimited field, as every ag_ui.Event arm is (or
// the first frame is empty); otherwise, after a byte order mark and white space, '{'
// is JSONL, '[' a JSON array, and ':' or one of the SSE field names "data",
// "event", "id" and "retry" is SSE. ok is false when prefix is too short to
// tell (white space only, part of a field name, part of a frame header) or
// matches no format; complete tells these apart: it is true when more input
// would not change the answer.
func DetectFormat(prefix []byte) (f Format, ok, complete bool) {
	if len(prefix) > 0 && prefix[0] == 0 {
		if len(prefix) < 5 {
			return FormatAuto, false, false
		}
		// An empty first frame, or a length-delimited field (every ag_ui.Event
		// arm is a message) with a field number of 1 or more.
		if binary.BigEndian.Uint32(prefix) == 0 || prefix[4]&7 == 2 && prefix[4]>>3 != 0 {
			return FormatProto, true, true
		}
		return FormatAuto, false, true
	}
	if len(prefix) < len(utf8BOM) && bytes.HasPrefix(utf8BOM, prefix) {
		return FormatAuto, false, false // part of a byte order mark
	}
	rest := bytes.TrimLeft(bytes.TrimPrefix(prefix, utf8BOM), " \t\r\n")
	if len(rest) == 0 {
		return FormatAuto, false, false
	}
	switch rest[0] {
	case '{':
		return FormatJSONL, true, true
	case '[':
		return FormatJSONArray, true, true
	case ':':
		return FormatSSE, true, true
	}
	for _, name := range sseFields {
		if bytes.HasPrefix(rest, name) {
			return FormatSSE, true, true
		}
		if bytes.HasPrefix(name, rest) {
			return FormatAuto, false, false
		}
	}
	return FormatAuto, false, true
}

var sseFields = [][]byte{[]byte("data"), []byte("event"), []byte("id"), []byte("retry")}

const detectMax = 64 << 10

// detect reads the start of r and tells its format. It returns the bytes it
// read, which the caller puts back in front of r.
func detect(r io.Reader) (Format, []byte, error) {
	buf := make([]byte, 0, 512)
	for {
		f, ok, complete := DetectFormat(buf)
		if ok {
			return f, buf, nil
		}
		if complete {
			return 0, buf, undetectable(buf)
		}
		if len(buf) >= detectMax {
			return FormatJSONL, buf, nil // white space only so far: JSONL skips it
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if f, ok, _ := DetectFormat(buf); ok {
				return f, buf, nil
			}
			if blank(bytes.TrimPrefix(buf, utf8BOM)) {
				return FormatJSONL, buf, nil // nothing but white space: no events
			}
			return 0, buf, undetectable(buf)
		}
		if err != nil {
			return 0, buf, &Error{Kind: KindIO, Offset: int64(len(buf)), Err: err}
		}
	}
}

func undetectable(buf []byte) error {
	rest := bytes.TrimLeft(bytes.TrimPrefix(buf, utf8BOM), " \t\r\n")
	return &Error{Kind: KindProtocol, Offset: int64(len(buf) - len(rest)),
		Err: fmt.Errorf("cannot detect the format of input starting %q: want JSONL ('{'), a JSON array ('['), SSE ('data:', 'event:', 'id:', 'retry:', ':') or the protobuf framing (a 4-byte big-endian length, then an ag_ui.Event)", excerpt(rest, 32))}
}

// excerpt returns at most n bytes of b as a string, marked when cut.
func excerpt(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// sseSource frames an SSE byte stream: each dispatched event's data is a frame.
type sseSource struct {
	p sseParser
}

// next returns the next event's data. A stream whose end G18 tolerates ends
// with a KindUnterminated error saying what was tolerated.
func (s *sseSource) next() ([]byte, int64, error) {
	if err := s.p.next(); err != nil {
		if err == io.EOF && s.p.note != "" {
			note := s.p.note
			s.p.note = ""
			return nil, 0, &Error{Kind: KindUnterminated, Offset: s.p.off(s.p.start), Err: endNote(note)}
		}
		return nil, 0, err
	}
	return s.p.outData, s.p.outStart, nil
}

func (s *sseSource) offset() int64 { return s.p.off(s.p.start) }
func (s *sseSource) close()        {}

// jsonlSource frames JSON Lines: each line that is not blank is a frame.
type jsonlSource struct {
	bufReader
	max       int
	bomDone   bool
	line      []byte // a line that spans reads
	lineStart int64
}

func (s *jsonlSource) offset() int64 { return s.off(s.start) }
func (s *jsonlSource) close()        {}

func (s *jsonlSource) next() ([]byte, int64, error) {
	for {
		if !s.bomDone {
			if !s.skipBOM() {
				continue
			}
			s.bomDone = true
		}
		if s.start == s.end {
			if s.rerr == nil {
				s.fill()
				continue
			}
			if s.rerr != io.EOF {
				return nil, 0, &Error{Kind: KindIO, Offset: s.off(s.start), Err: s.rerr}
			}
			if len(s.line) == 0 {
				return nil, 0, io.EOF
			}
			// The last line has no line ending. It may hold one byte over
			// the limit, kept for a CR that did not come.
			l := bytes.TrimSuffix(s.line, []byte{'\r'})
			s.line = s.line[:0]
			if len(l) > s.max {
				return nil, 0, &Error{Kind: KindLimit, Offset: s.lineStart, Limit: int64(s.max)}
			}
			if blank(l) {
				continue
			}
			return l, s.lineStart, nil
		}
		seg := s.buf[s.start:s.end]
		i := bytes.IndexByte(seg, '\n')
		if i < 0 {
			if len(s.line) == 0 {
				s.lineStart = s.off(s.start)
			}
			if len(s.line)+len(seg) > s.max+1 { // +1: a CR before the LF does not count
				return nil, 0, &Error{Kind: KindLimit, Offset: s.lineStart, Limit: int64(s.max)}
			}
			s.line = appendBounded(s.line, seg, s.max+1)
			s.start = s.end
			continue
		}
		l, lineStart := seg[:i], s.off(s.start)
		if len(s.line) > 0 {
			s.line = appendBounded(s.line, l, s.max+1)
			l, lineStart = s.line, s.lineStart
			s.line = s.line[:0]
		}
		s.start += i + 1
		l = bytes.TrimSuffix(l, []byte{'\r'})
		if len(l) > s.max {
			return nil, 0, &Error{Kind: KindLimit, Offset: lineStart, Limit: int64(s.max)}
		}
		if blank(l) {
			continue
		}
		return l, lineStart, nil
	}
}

// blank reports whether b is JSON white space only.
func blank(b []byte) bool {
	return len(bytes.TrimLeft(b, " \t\r\n")) == 0
}

// arraySource frames a JSON array: each element is a frame. It checks the
// array's punctuation; each element is checked when decoded.
type arraySource struct {
	bufReader
	max   int
	state arrayState
	// the element being scanned
	elem      []byte // its bytes when it spans reads
	elemStart int64
	depth     int
	inString  bool
	escaped   bool
	scalar    bool
	started   bool // an element is being scanned
	first     bool // its first byte is next
}

type arrayState uint8

const (
	arrayBefore    arrayState = iota // before '['
	arrayFirst                       // after '[': an element or ']'
	arrayNeedElem                    // after ',': an element
	arrayAfterElem                   // after an element: ',' or ']'
	arrayDone                        // after ']': white space only
)

func (s *arraySource) offset() int64 { return s.off(s.start) }
func (s *arraySource) close()        {}

func (s *arraySource) protocol(format string, args ...any) error {
	return &Error{Kind: KindProtocol, Offset: s.off(s.start), Err: fmt.Errorf(format, args...)}
}

func (s *arraySource) next() ([]byte, int64, error) {
	for {
		if s.state == arrayBefore && !s.skipBOM() {
			continue
		}
		if s.start == s.end {
			if s.rerr == nil {
				s.fill()
				continue
			}
			if s.rerr != io.EOF {
				return nil, 0, &Error{Kind: KindIO, Offset: s.off(s.start), Err: s.rerr}
			}
			switch {
			case s.state == arrayDone:
				return nil, 0, io.EOF
			case s.state == arrayBefore:
				return nil, 0, s.protocol("the input holds no JSON array")
			case s.started:
				return nil, 0, &Error{Kind: KindTruncated, Offset: s.elemStart,
					Err: errors.New("the input ends inside an array element")}
			}
			return nil, 0, &Error{Kind: KindTruncated, Offset: s.off(s.start),
				Err: errors.New("the array has no closing ']'")}
		}
		if s.started {
			if data, ok, err := s.scan(); err != nil || ok {
				return data, s.elemStart, err
			}
			continue
		}
		c := s.buf[s.start]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			s.start++
			continue
		}
		switch s.state {
		case arrayBefore:
			if c != '[' {
				return nil, 0, s.protocol("want '[' to open the array, found %q", c)
			}
			s.state = arrayFirst
			s.start++
		case arrayFirst, arrayNeedElem:
			if c == ']' {
				if s.state == arrayNeedElem {
					return nil, 0, s.protocol("a ',' with no element after it")
				}
				s.state = arrayDone
				s.start++
				continue
			}
			if c == ',' {
				return nil, 0, s.protocol("a ',' with no element before it")
			}
			s.started, s.first, s.elemStart = true, true, s.off(s.start)
			s.depth, s.inString, s.escaped, s.scalar = 0, false, false, false
			if data, ok, err := s.scan(); err != nil || ok {
				return data, s.elemStart, err
			}
		case arrayAfterElem:
			switch c {
			case ',':
				s.state = arrayNeedElem
			case ']':
				s.state = arrayDone
			default:
				return nil, 0, s.protocol("want ',' or ']' after an array element, found %q", c)
			}
			s.start++
		case arrayDone:
			return nil, 0, s.protocol("data after the array's closing ']'")
		}
	}
}

// scan consumes the buffered bytes of the element being scanned. It returns
// the element and true when it is complete.
func (s *arraySource) scan() ([]byte, bool, error) {
	seg := s.buf[s.start:s.end]
	i, done := 0, false
	if s.first {
		s.first = false
		switch seg[0] {
		case '"':
			s.inString = true
		case '{', '[':
			s.depth = 1
		default:
			s.scalar = true
		}
		i = 1
	}
loop:
	for ; i < len(seg); i++ {
		c := seg[i]
		switch {
		case s.inString:
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
				if s.depth == 0 {
					i++
					done = true
					break loop
				}
			}
		case s.scalar:
			if c == ',' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
				done = true
				break loop
			}
		default:
			switch c {
			case '"':
				s.inString = true
			case '{', '[':
				s.depth++
			case '}', ']':
				if s.depth--; s.depth == 0 {
					i++
					done = true
					break loop
				}
			}
		}
	}
	if len(s.elem)+i > s.max {
		return nil, false, &Error{Kind: KindLimit, Offset: s.elemStart, Limit: int64(s.max)}
	}
	s.start += i
	if !done {
		s.elem = appendBounded(s.elem, seg[:i], s.max)
		return nil, false, nil
	}
	s.started = false
	s.state = arrayAfterElem
	if len(s.elem) == 0 {
		return seg[:i], true, nil
	}
	s.elem = appendBounded(s.elem, seg[:i], s.max)
	data := s.elem
	s.elem = s.elem[:0]
	return data, true, nil
}
