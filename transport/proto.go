package transport

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/agview/agview/event"
)

// MediaTypeProto is the media type of AG-UI's protobuf framing,
// application/vnd.ag-ui.event+proto (docs/protocol.md §2.4).
const MediaTypeProto = event.MediaTypeProto

// Encoding is what an SSE source asks the agent to answer in: it sets the
// request's Accept header. Whatever it asks, the source decodes the answer by
// its Content-Type: text/event-stream as SSE, application/vnd.ag-ui.event+proto
// as the protobuf framing.
type Encoding uint8

// The encodings a source can ask for.
const (
	// EncodingSSE asks for text/event-stream (Accept: text/event-stream), as
	// the reference client does. The default.
	EncodingSSE Encoding = iota
	// EncodingPreferProto asks for the protobuf framing, SSE being
	// acceptable too (Accept: application/vnd.ag-ui.event+proto,
	// text/event-stream;q=0.5).
	EncodingPreferProto
	// EncodingProto asks for the protobuf framing only (Accept:
	// application/vnd.ag-ui.event+proto).
	EncodingProto
)

// accept returns the Accept header value of e.
func (e Encoding) accept() string {
	switch e {
	case EncodingPreferProto:
		return MediaTypeProto + ", text/event-stream;q=0.5"
	case EncodingProto:
		return MediaTypeProto
	}
	return "text/event-stream"
}

// String returns "sse", "prefer-proto" or "proto".
func (e Encoding) String() string {
	switch e {
	case EncodingSSE:
		return "sse"
	case EncodingPreferProto:
		return "prefer-proto"
	case EncodingProto:
		return "proto"
	}
	return "Encoding(" + strconv.Itoa(int(e)) + ")"
}

// setAccept sets req's Accept header for e, unless the caller's headers
// already hold one: a caller's own Accept is sent as given.
func setAccept(req *http.Request, e Encoding) {
	if len(req.Header.Values("Accept")) == 0 {
		req.Header.Set("Accept", e.accept())
	}
}

// responseEncoding tells how to read a response whose Content-Type is ct:
// proto is true for the protobuf framing; err is a KindContentType *Error
// naming ct when it is neither that nor text/event-stream.
func responseEncoding(ct string) (proto bool, err *Error) {
	mt, _, perr := mime.ParseMediaType(ct)
	switch {
	case perr == nil && mt == "text/event-stream":
		return false, nil
	case perr == nil && mt == MediaTypeProto:
		return true, nil
	}
	return false, &Error{Kind: KindContentType, Offset: -1,
		Err: fmt.Errorf("the response is %q, want text/event-stream or %s", ct, MediaTypeProto)}
}

// byteActivity tells an idle watch of every byte read: the protobuf framing
// has no keep-alive, so any byte is a sign of life.
type byteActivity struct {
	io.ReadCloser
	w *idleWatch
}

func (r *byteActivity) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.w.active()
	}
	return n, err
}

// explain turns a read error caused by the idle watch cancelling the request
// into the watch's error; other errors, and io.EOF, are returned as they are.
func (w *idleWatch) explain(err error) error {
	if err == nil || err == io.EOF || !w.timedOut() {
		return err
	}
	at := int64(-1)
	if e, ok := err.(*Error); ok {
		at = e.Offset
	}
	return w.err(at)
}

// protoSource frames the protobuf framing: each frame is a 4-byte
// big-endian length and that many bytes of one ag_ui.Event message.
type protoSource struct {
	bufReader
	max   int
	frame []byte // a frame that spans reads
}

func newProtoSource(r io.Reader, max int) *protoSource {
	s := &protoSource{max: max}
	s.init(r)
	return s
}

func (s *protoSource) offset() int64 { return s.off(s.start) }
func (s *protoSource) close()        {}
func (s *protoSource) proto() bool   { return true }

func (s *protoSource) next() ([]byte, int64, error) {
	for s.end-s.start < 4 && s.rerr == nil {
		s.fill()
	}
	at := s.off(s.start)
	if have := s.end - s.start; have < 4 {
		if have == 0 && s.rerr == io.EOF {
			return nil, 0, io.EOF
		}
		if s.rerr == io.EOF {
			return nil, 0, &Error{Kind: KindTruncated, Offset: at,
				Err: fmt.Errorf("the binary stream ended mid-frame: %d of the 4 length bytes", have)}
		}
		return nil, 0, &Error{Kind: KindIO, Offset: s.off(s.end), Err: s.rerr}
	}
	n := binary.BigEndian.Uint32(s.buf[s.start:])
	if uint64(n) > uint64(s.max) {
		// Refused before anything is allocated for it.
		return nil, 0, &Error{Kind: KindLimit, Offset: at, Limit: int64(s.max),
			Err: fmt.Errorf("the frame announces %d bytes", n)}
	}
	s.start += 4
	size := int(n)
	if s.end-s.start >= size {
		data := s.buf[s.start : s.start+size]
		s.start += size
		return data, at, nil
	}
	s.frame = append(s.frame[:0], s.buf[s.start:s.end]...)
	s.start = s.end
	for len(s.frame) < size {
		if s.rerr != nil {
			if s.rerr == io.EOF {
				return nil, 0, &Error{Kind: KindTruncated, Offset: at,
					Err: fmt.Errorf("the binary stream ended mid-frame: %d of %d bytes", len(s.frame), size)}
			}
			return nil, 0, &Error{Kind: KindIO, Offset: s.off(s.end), Err: s.rerr}
		}
		s.fill()
		take := min(size-len(s.frame), s.end-s.start)
		s.frame = appendBounded(s.frame, s.buf[s.start:s.start+take], size)
		s.start += take
	}
	return s.frame, at, nil
}

// isProto reports whether src yields protobuf frames.
func isProto(src source) bool {
	p, ok := src.(interface{ proto() bool })
	return ok && p.proto()
}

// decoder returns how to decode src's frames.
func decoder(src source) func([]byte) (event.Event, error) {
	if isProto(src) {
		return event.DecodeProto
	}
	return event.Decode
}

// AcceptsProto reports whether a request whose Accept header is accept
// admits the protobuf framing, as the reference server encoder
// (@ag-ui/encoder@1.0.0's EventEncoder) decides: the media range matching
// application/vnd.ag-ui.event+proto most specifically (the type itself, then
// application/*, then */*) has a q above 0, even when text/event-stream ranks
// higher. An empty or absent Accept admits SSE only. Several Accept header
// lines are joined with commas first.
func AcceptsProto(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return false
	}
	best, bestQ, found := -1, 0.0, false
	for _, r := range splitQuoted(accept, ',') {
		typ, sub, params, q, ok := parseRange(r)
		if !ok {
			continue
		}
		s := 0
		switch {
		case strings.EqualFold(typ, "application"):
			s |= 4
		case typ != "*":
			continue
		}
		switch {
		case strings.EqualFold(sub, "vnd.ag-ui.event+proto"):
			s |= 2
		case sub != "*":
			continue
		}
		if len(params) > 0 {
			all := true
			for _, v := range params {
				all = all && v == "*" // the provided type has no parameters
			}
			if !all {
				continue
			}
			s |= 1
		}
		if !found || s > best || s == best && q > bestQ {
			best, bestQ, found = s, q, true
		}
	}
	return found && bestQ > 0
}

// parseRange parses one media range of an Accept header: its type, subtype,
// parameters before q, and q (1 when absent, NaN when unparsable).
func parseRange(r string) (typ, sub string, params map[string]string, q float64, ok bool) {
	parts := splitQuoted(r, ';')
	mt := strings.TrimSpace(parts[0])
	slash := strings.IndexByte(mt, '/')
	if slash <= 0 || slash == len(mt)-1 || strings.ContainsAny(mt, " \t") {
		return "", "", nil, 0, false
	}
	typ, sub, q = mt[:slash], mt[slash+1:], 1
	if strings.IndexByte(sub, '/') >= 0 {
		return "", "", nil, 0, false
	}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		if strings.EqualFold(k, "q") {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				f = math.NaN()
			}
			q = f
			break // what follows q is accept-ext
		}
		if params == nil {
			params = map[string]string{}
		}
		params[strings.ToLower(k)] = v
	}
	return typ, sub, params, q, true
}

// splitQuoted splits s at sep outside double quotes.
func splitQuoted(s string, sep byte) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case sep:
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
