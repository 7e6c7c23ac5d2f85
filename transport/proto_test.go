package transport_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// protoSSE returns an SSE source for srv that asks for the protobuf framing.
func protoSSE(srv *agenttest.Server, opts *transport.Options) *transport.SSE {
	var o transport.Options
	if opts != nil {
		o = *opts
	}
	o.Encoding = transport.EncodingPreferProto
	return transport.NewSSE(srv.URL(), &o)
}

// protoFrames returns events as a protobuf recording.
func protoFrames(t testing.TB, events []event.Event) []byte {
	var b []byte
	for _, e := range events {
		var err error
		b, err = event.AppendProtoFrame(b, e)
		require.NoError(t, err)
	}
	return b
}

func TestEncodingAccept(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		encoding transport.Encoding
		header   string // the caller's own Accept; "" for none
		want     string
	}{
		{"default", transport.EncodingSSE, "", "text/event-stream"},
		{"prefer proto", transport.EncodingPreferProto, "", "application/vnd.ag-ui.event+proto, text/event-stream;q=0.5"},
		{"proto only", transport.EncodingProto, "", "application/vnd.ag-ui.event+proto"},
		{"caller's accept kept", transport.EncodingSSE, "*/*", "*/*"},
		{"caller's accept wins over the encoding", transport.EncodingProto, "text/event-stream", "text/event-stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			accept := make(chan string, 1)
			srv := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), nil)
			defer srv.Close()
			proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				accept <- r.Header.Get("Accept")
				req, _ := http.NewRequestWithContext(r.Context(), r.Method, srv.URL(), r.Body)
				req.Header = r.Header
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					http.Error(w, err.Error(), http.StatusBadGateway)
					return
				}
				defer resp.Body.Close()
				w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
				io.Copy(w, resp.Body)
			}))
			defer proxy.Close()
			opts := &transport.Options{Encoding: tt.encoding}
			if tt.header != "" {
				opts.Header = http.Header{"Accept": {tt.header}}
			}
			c := collect(transport.NewSSE(proxy.URL, opts).Run(t.Context(), nil))
			require.NoError(t, c.fatal)
			assert.Equal(t, tt.want, <-accept)
			assert.Equal(t, decodeAll(t, sample), c.events, "the same events, whatever the encoding")
		})
	}
}

// TestAcceptsProto checks the negotiation of the reference encoder
// (@ag-ui/encoder@1.0.0): protobuf whenever the Accept admits it with q > 0,
// through a wildcard too and even ranked below SSE. testdata/proto/accept.json
// holds the reference's own answers (see TestAcceptsProtoReference).
func TestAcceptsProto(t *testing.T) {
	t.Parallel()
	tests := []struct {
		accept string
		want   bool
	}{
		{"", false},
		{"text/event-stream", false},
		{"application/vnd.ag-ui.event+proto", true},
		{"application/vnd.ag-ui.event+proto, text/event-stream;q=0.5", true},
		{"text/event-stream, application/vnd.ag-ui.event+proto;q=0.1", true},
		{"*/*", true},
		{"application/*", true},
		{"application/json", false},
		{"application/vnd.ag-ui.event+proto;q=0", false},
		{"application/vnd.ag-ui.event+proto;q=0, */*", false},
		{"*/*;q=0, application/vnd.ag-ui.event+proto", true},
		{"APPLICATION/VND.AG-UI.EVENT+PROTO", true},
		{"application/vnd.ag-ui.event+proto;v=2", false},
		{`text/html;a="x,y", */*;q=0.2`, true},
		{"garbage", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, transport.AcceptsProto(tt.accept), "%q", tt.accept)
	}
}

// TestAcceptsProtoReference compares AcceptsProto with the reference
// encoder's choices recorded by testdata/proto/make.mjs.
func TestAcceptsProtoReference(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "proto", "accept.json"))
	require.NoError(t, err)
	var cases []struct {
		Accept      *string `json:"accept"`
		ContentType string  `json:"contentType"`
	}
	require.NoError(t, json.Unmarshal(b, &cases))
	require.NotEmpty(t, cases)
	for _, c := range cases {
		accept := ""
		if c.Accept != nil {
			accept = *c.Accept
		}
		assert.Equal(t, c.ContentType == transport.MediaTypeProto, transport.AcceptsProto(accept), "Accept %q", accept)
	}
}

// TestProtoResponse: a server that answers protobuf is read whatever was
// asked for, and an unknown content type is named.
func TestProtoResponse(t *testing.T) {
	t.Parallel()
	body := protoFrames(t, decodeAll(t, sample))
	for _, ct := range []string{transport.MediaTypeProto, transport.MediaTypeProto + "; charset=binary"} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Write(body)
		}))
		c := collect(transport.NewSSE(ts.URL, nil).Run(t.Context(), nil))
		ts.Close()
		require.NoError(t, c.fatal, ct)
		assert.Equal(t, decodeAll(t, sample), c.events, ct)
	}
}

// TestProtoFaults is TestFaults over the protobuf framing: each fault
// agenttest can inject gives its typed error.
func TestProtoFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault agenttest.Fault
		opts  *transport.Options
		kind  transport.Kind
		index int
		want  string
	}{
		{"cut", agenttest.CutAfter(2), nil, transport.KindIO, 2, ""},
		{"cut before any frame", agenttest.CutAfter(0), nil, transport.KindIO, 0, ""},
		{"cut mid-length", agenttest.GarbageAfter(3, []byte{0, 0}), nil, transport.KindTruncated, 3,
			"ended mid-frame: 2 of the 4 length bytes"},
		{"cut mid-frame", agenttest.GarbageAfter(3, []byte{0, 0, 0, 9, 0x12, 0x07, 'p'}), nil, transport.KindTruncated, 3,
			"ended mid-frame: 3 of 9 bytes"},
		{"garbage", agenttest.GarbageAfter(3, nil), nil, transport.KindLimit, 3, "the frame announces"},
		{"oversize", agenttest.OversizeAfter(1, 4096), &transport.Options{MaxEventBytes: 1024}, transport.KindLimit, 1, ""},
		{"default oversize", agenttest.OversizeAfter(1, 0), nil, transport.KindLimit, 1, ""},
		{"status", agenttest.Status(http.StatusBadGateway, "upstream agent down"), nil, transport.KindStatus, -1, "HTTP 502"},
		{"content type", agenttest.ContentType("application/json"), nil, transport.KindContentType, -1,
			`the response is "application/json", want text/event-stream or application/vnd.ag-ui.event+proto`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), &agenttest.Options{Fault: tt.fault})
			defer srv.Close()
			c := collect(protoSSE(srv, tt.opts).Run(t.Context(), nil))
			var te *transport.Error
			require.ErrorAs(t, c.fatal, &te, "want a fatal *transport.Error")
			assert.Equal(t, tt.kind, te.Kind, "kind of %v", te)
			assert.Equal(t, tt.index, te.Index, "index of %v", te)
			if assert.Len(t, c.events, max(tt.index, 0), "frames before the fault are yielded") && tt.index > 0 {
				assert.Equal(t, decodeAll(t, sample)[:tt.index], c.events)
			}
			assert.Contains(t, te.Error(), tt.want)
			if tt.kind == transport.KindLimit {
				limit := transport.DefaultMaxEventBytes
				if tt.opts != nil {
					limit = tt.opts.MaxEventBytes
				}
				assert.Equal(t, int64(limit), te.Limit)
			}
		})
	}
	t.Run("slow", func(t *testing.T) {
		t.Parallel()
		srv := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), &agenttest.Options{Delay: time.Millisecond})
		defer srv.Close()
		c := collect(protoSSE(srv, nil).Run(t.Context(), nil))
		require.NoError(t, c.fatal)
		assert.Equal(t, decodeAll(t, sample), c.events, "a slow server's events all arrive")

		stalled := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), &agenttest.Options{Delay: time.Hour})
		defer stalled.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		c = collect(protoSSE(stalled, nil).Run(ctx, nil))
		require.ErrorIs(t, c.fatal, transport.KindCanceled)
		assert.ErrorIs(t, c.fatal, context.DeadlineExceeded)
	})
	t.Run("closed early", func(t *testing.T) {
		t.Parallel()
		srv := agenttest.NewServer(agenttest.Frames(rawFrames(sample)...), &agenttest.Options{Delay: time.Millisecond})
		defer srv.Close()
		n := 0
		for _, err := range protoSSE(srv, nil).Run(t.Context(), nil) {
			require.NoError(t, err)
			if n++; n == 2 {
				break // the response is closed; the server sees the client go
			}
		}
		assert.Equal(t, 2, n)
	})
}

// TestProtoOversizedLengthNotAllocated: a length prefix over the limit is
// refused from the four bytes alone, before anything is allocated for it.
func TestProtoOversizedLengthNotAllocated(t *testing.T) {
	head := binary.BigEndian.AppendUint32(nil, 0xFFFFFFF0)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := collect(transport.Read(t.Context(), io.MultiReader(bytes.NewReader(head), neverReader{}), transport.FormatProto,
		&transport.Options{MaxEventBytes: 1 << 30}))
	runtime.ReadMemStats(&after)
	var te *transport.Error
	require.ErrorAs(t, c.fatal, &te)
	assert.Equal(t, transport.KindLimit, te.Kind)
	assert.Equal(t, int64(0), te.Offset)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "nothing near the announced size is allocated")
}

// neverReader fails the test's read if reached: the frame's body must not be
// read after its length is refused.
type neverReader struct{}

func (neverReader) Read([]byte) (int, error) { panic("the body of a refused frame was read") }

// TestReadProto reads protobuf recordings: given the format or detected,
// whole or split across reads, with the offsets of the frames.
func TestReadProto(t *testing.T) {
	t.Parallel()
	events := decodeAll(t, sample)
	rec := protoFrames(t, events)
	for _, format := range []transport.Format{transport.FormatProto, transport.FormatAuto} {
		c := collect(transport.Read(t.Context(), bytes.NewReader(rec), format, nil))
		require.NoError(t, c.fatal, format)
		assert.Equal(t, events, c.events, format)
		c = collect(transport.Read(t.Context(), iotestOneByte(rec), format, nil))
		require.NoError(t, c.fatal, format)
		assert.Equal(t, events, c.events, "%v, one byte per read", format)
	}
	path := filepath.Join(t.TempDir(), "run.bin")
	require.NoError(t, os.WriteFile(path, rec, 0o644))
	c := collect(transport.ReadFile(t.Context(), path, transport.FormatAuto, nil))
	require.NoError(t, c.fatal)
	assert.Equal(t, events, c.events)

	off := int64(0)
	i := 0
	for f, err := range transport.ReadFileFrames(t.Context(), path, transport.FormatAuto, nil) {
		require.NoError(t, err)
		assert.True(t, f.Proto)
		assert.Equal(t, off, f.Offset, "frame %d", i)
		e, err := f.Decode()
		require.NoError(t, err)
		assert.Equal(t, events[i], e)
		off += 4 + int64(len(f.Data))
		i++
	}
	assert.Equal(t, len(events), i)

	// A frame that does not decode is yielded as its error, with the
	// field's pointer, and the stream goes on.
	bad := append(binary.BigEndian.AppendUint32(nil, 6), 0x12, 0x04, 0x0a, 0x02, 0x08, 0x63) // TEXT_MESSAGE_CONTENT with base_event.type 99
	bad = append(bad, rec...)
	c = collect(transport.Read(t.Context(), bytes.NewReader(bad), transport.FormatAuto, nil))
	require.NoError(t, c.fatal)
	var de *event.DecodeError
	require.ErrorAs(t, c.errs[0], &de)
	assert.Equal(t, "/type", de.Pointer)
	assert.Equal(t, int64(4), de.Offset, "where base_event.type starts in the message")
	assert.Equal(t, events, c.events[1:])
}

func TestParseFormatProto(t *testing.T) {
	for _, s := range []string{"proto", "protobuf", "PROTO", transport.MediaTypeProto} {
		f, err := transport.ParseFormat(s)
		require.NoError(t, err, s)
		assert.Equal(t, transport.FormatProto, f)
	}
	assert.Equal(t, "proto", transport.FormatProto.String())
	f, ok, complete := transport.DetectFormat([]byte{0, 0})
	assert.False(t, ok)
	assert.False(t, complete, "a frame header needs five bytes")
	f, ok, _ = transport.DetectFormat([]byte{0, 0, 0, 5, 0x12})
	assert.True(t, ok)
	assert.Equal(t, transport.FormatProto, f)
	_, ok, complete = transport.DetectFormat([]byte{0, 0, 0, 5, 0x10})
	assert.False(t, ok)
	assert.True(t, complete, "a varint field cannot start an ag_ui.Event")
	_, err := transport.ParseFormat("protobuffer")
	assert.ErrorContains(t, err, "want auto, jsonl, sse, json or proto")
}

// oneByteReader returns one byte per Read.
type oneByteReader struct{ b []byte }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.b[0]
	r.b = r.b[1:]
	return 1, nil
}

func iotestOneByte(b []byte) io.Reader { return &oneByteReader{b: b} }

// TestConformanceOverProto serves every conformance vector over the protobuf
// framing and checks that the view a client folds, live and from the
// response recorded to a file, equals the view of its JSON frames folded in
// memory: the same messages, state, runs and invocations, and a diagnostic of
// the same kind at the same event index. (A diagnostic's rule and message
// name what was wrong on the wire, which differs where protobuf cannot
// express the JSON: agenttest then sends a frame the client refuses as
// malformed, see conformance.ProtoLossy.)
func TestConformanceOverProto(t *testing.T) {
	t.Parallel()
	srv, vectors := vectorServer(t)
	src := protoSSE(srv, nil)
	dir := t.TempDir()
	for _, v := range vectors {
		want := viewShape(t, foldInMemory(v))
		got := viewShape(t, foldStream(src.Run(t.Context(), &event.RunAgentInput{ThreadID: v.Name, RunID: "replay"})))

		body := fetchProto(t, srv, v.Name)
		path := filepath.Join(dir, v.Name+".bin")
		require.NoError(t, os.WriteFile(path, body, 0o644))
		fromFile := viewShape(t, foldStream(transport.ReadFile(t.Context(), path, transport.FormatAuto, nil)))
		assert.JSONEq(t, string(got), string(fromFile), "%s: live and recorded fold alike", v.Name)

		if why, lossy := conformance.ProtoLossy[v.Name]; lossy {
			assert.NotEqual(t, string(want), string(got), "%s is listed as lossy (%s) but folds alike", v.Name, why)
			continue
		}
		assert.JSONEq(t, string(want), string(got), "%s: the final view over protobuf", v.Name)
	}
}

// viewShape returns conformance.ViewShape of v.
func viewShape(t *testing.T, v *view.View) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	s, err := conformance.ViewShape(b)
	require.NoError(t, err)
	return s
}

// fetchProto returns the body of a protobuf answer for the vector name.
func fetchProto(t *testing.T, srv *agenttest.Server, name string) []byte {
	in, err := json.Marshal(&event.RunAgentInput{ThreadID: name, RunID: "replay"})
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL(), bytes.NewReader(in))
	require.NoError(t, err)
	req.Header.Set("Accept", "*/*")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, transport.MediaTypeProto, resp.Header.Get("Content-Type"), "*/* admits protobuf")
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}

// protoParse is what reading a protobuf recording gives: the frames' bytes
// and offsets, and the error that ended it.
type protoParse struct {
	frames  [][]byte
	offsets []int64
	err     error
}

func readProto(r io.Reader, max int) protoParse {
	var p protoParse
	for f, err := range transport.ReadFrames(context.Background(), r, transport.FormatProto, &transport.Options{MaxEventBytes: max}) {
		if err != nil {
			p.err = err
			break
		}
		p.frames = append(p.frames, f.Data)
		p.offsets = append(p.offsets, f.Offset)
	}
	return p
}

// FuzzProtoFraming reads any input as protobuf frames: it never panics; how
// the input is cut into reads never changes the result; each frame starts
// where the previous one ended and holds exactly the bytes its length
// announces; the input ends cleanly, mid-frame (KindTruncated) or at a length
// over the limit (KindLimit) and nowhere else; and every frame survives
// DecodeProto without a panic.
func FuzzProtoFraming(f *testing.F) {
	events := decodeAll(f, sample)
	var rec []byte
	for _, e := range events {
		rec, _ = event.AppendProtoFrame(rec, e)
	}
	f.Add(rec, 1024)
	f.Add(rec[:len(rec)-3], 1<<20)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0}, 16)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, 16)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max <= 0 || max > 1<<20 {
			max = 1 << 20
		}
		whole := readProto(bytes.NewReader(in), max)
		bytewise := readProto(iotestOneByte(in), max)
		if len(whole.frames) != len(bytewise.frames) || endKind(whole.err) != endKind(bytewise.err) {
			t.Fatalf("one byte per read: %d frames ending %v, want %d ending %v",
				len(bytewise.frames), bytewise.err, len(whole.frames), whole.err)
		}
		at := int64(0)
		for i, fr := range whole.frames {
			if !bytes.Equal(fr, bytewise.frames[i]) {
				t.Fatalf("frame %d differs when read byte by byte", i)
			}
			if whole.offsets[i] != at {
				t.Fatalf("frame %d at %d, want %d", i, whole.offsets[i], at)
			}
			n := int64(len(fr))
			if got := int64(in[at])<<24 | int64(in[at+1])<<16 | int64(in[at+2])<<8 | int64(in[at+3]); got != n {
				t.Fatalf("frame %d holds %d bytes, its length says %d", i, n, got)
			}
			at += 4 + n
			_, _ = event.DecodeProto(fr)
		}
		switch k := endKind(whole.err); k {
		case 0:
			if at != int64(len(in)) {
				t.Fatalf("a clean end at byte %d of %d", at, len(in))
			}
		case transport.KindTruncated:
		case transport.KindLimit:
			n := int64(in[at])<<24 | int64(in[at+1])<<16 | int64(in[at+2])<<8 | int64(in[at+3])
			if n <= int64(max) {
				t.Fatalf("KindLimit for a %d-byte frame under the %d limit", n, max)
			}
		default:
			t.Fatalf("an in-memory input ends cleanly, truncated or over the limit, got %v", whole.err)
		}
	})
}

// TestProtoIdleTimeout: over the protobuf framing, every byte is a sign of
// life (it has no keep-alive), and an agent that sends nothing for
// Options.IdleTimeout ends the stream with KindIdle.
func TestProtoIdleTimeout(t *testing.T) {
	t.Parallel()
	frames := protoFrames(t, decodeAll(t, sample))
	first := protoFrames(t, decodeAll(t, sample[:1]))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", transport.MediaTypeProto)
		w.WriteHeader(http.StatusOK)
		send := func(b []byte) bool {
			if _, err := w.Write(b); err != nil {
				return false
			}
			w.(http.Flusher).Flush()
			return r.Context().Err() == nil
		}
		if r.URL.Path == "/slow" {
			// The whole stream, a byte at a time, each well within the timeout.
			for i := range frames {
				if !send(frames[i : i+1]) {
					return
				}
				time.Sleep(idleTimeout / 200)
			}
			return
		}
		send(first)
		<-r.Context().Done() // then nothing
	}))
	defer srv.Close()
	opts := &transport.Options{IdleTimeout: idleTimeout, Encoding: transport.EncodingProto}

	c := collect(transport.NewSSE(srv.URL+"/stalls", opts).Run(t.Context(), nil))
	var te *transport.Error
	require.ErrorAs(t, c.fatal, &te)
	assert.Equal(t, transport.KindIdle, te.Kind, "%v", te)
	assert.Len(t, c.events, 1)

	c = collect(transport.NewSSE(srv.URL+"/slow", opts).Run(t.Context(), nil))
	require.NoError(t, c.fatal)
	assert.Equal(t, decodeAll(t, sample), c.events)
}

// TestProtoTap: a tap sees each protobuf frame as its JSON form.
func TestProtoTap(t *testing.T) {
	t.Parallel()
	events := decodeAll(t, sample)
	var seen []string
	ctx := transport.WithTap(t.Context(), func(_ int, data []byte) { seen = append(seen, string(data)) })
	c := collect(transport.Read(ctx, bytes.NewReader(protoFrames(t, events)), transport.FormatAuto, nil))
	require.NoError(t, c.fatal)
	require.Len(t, seen, len(events))
	for i, s := range seen {
		e, err := event.Decode([]byte(s))
		require.NoError(t, err, "frame %d: %s", i, s)
		assert.Equal(t, events[i], e)
	}
}
