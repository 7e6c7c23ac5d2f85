package transport_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/transport"
)

// sseCase is one case of testdata/sse-cases.json (see sse-cases.md).
type sseCase struct {
	Name        string               `json:"name"`
	Input       string               `json:"input"`
	InputBase64 string               `json:"input_base64"`
	Events      []transport.SSEEvent `json:"events"`
	Retry       *int64               `json:"retry"`
	LastEventID string               `json:"lastEventId"`
}

func (c *sseCase) bytes(t testing.TB) []byte {
	if c.InputBase64 != "" {
		b, err := base64.StdEncoding.DecodeString(c.InputBase64)
		require.NoError(t, err, "case %s: input_base64", c.Name)
		return b
	}
	return []byte(c.Input)
}

func loadSSECases(t testing.TB) []sseCase {
	b, err := os.ReadFile(filepath.Join("testdata", "sse-cases.json"))
	require.NoError(t, err)
	var raw []struct {
		sseCase
		Events []struct {
			Event string `json:"event"`
			Data  string `json:"data"`
			ID    string `json:"id"`
		} `json:"events"`
	}
	require.NoError(t, json.Unmarshal(b, &raw))
	cases := make([]sseCase, len(raw))
	for i, r := range raw {
		cases[i] = r.sseCase
		cases[i].Events = []transport.SSEEvent{}
		for _, e := range r.Events {
			cases[i].Events = append(cases[i].Events, transport.SSEEvent{Event: e.Event, Data: e.Data, ID: e.ID})
		}
	}
	require.Len(t, cases, 77, "sse-cases.json holds 77 cases")
	return cases
}

// moduleRoot returns the module's root directory.
func moduleRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(file), "..")
}

// TestSSECasesCopyMatchesShared fails when testdata/sse-cases.* differ from
// the shared originals in ../shared/testdata (skipped where that folder is
// absent, as in a user's clone).
func TestSSECasesCopyMatchesShared(t *testing.T) {
	shared := filepath.Join(moduleRoot(t), "..", "shared", "testdata")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("no shared testdata at %s", shared)
	}
	for _, name := range []string{"sse-cases.json", "sse-cases.md"} {
		want, err := os.ReadFile(filepath.Join(shared, name))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "testdata/%s differs from %s: copy it again", name, filepath.Join(shared, name))
	}
}

// chunkReader returns its data in reads of the sizes next gives.
type chunkReader struct {
	data []byte
	next func() int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(r.next(), len(p), len(r.data))
	n = max(n, 1)
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

func fixed(n int) func() int { return func() int { return n } }

// splitReader returns data in two reads, split at off.
func splitReader(data []byte, off int) io.Reader {
	return io.MultiReader(bytes.NewReader(data[:off]), bytes.NewReader(data[off:]))
}

// parseResult is what a decoder made of a whole input.
type parseResult struct {
	Events      []transport.SSEEvent
	Err         error
	LastEventID string
	Retry       *int64
}

func parseAll(r io.Reader, opts *transport.Options) parseResult {
	d := transport.NewSSEDecoder(r, opts)
	res := parseResult{Events: []transport.SSEEvent{}}
	for ev, err := range d.All() {
		if err != nil {
			res.Err = err
			break
		}
		res.Events = append(res.Events, ev)
	}
	res.LastEventID = d.LastEventID()
	if rt, ok := d.Retry(); ok {
		ms := rt.Milliseconds()
		res.Retry = &ms
	}
	return res
}

// expectTruncated says, independently of the parser, whether an input ends
// inside an event: its last line has no line end, or data lines follow the
// last blank line.
func expectTruncated(in []byte) bool {
	b := bytes.TrimPrefix(in, []byte("\xEF\xBB\xBF"))
	pending := false
	for i := 0; i < len(b); {
		j := bytes.IndexAny(b[i:], "\r\n")
		if j < 0 {
			return true
		}
		line := b[i : i+j]
		switch {
		case len(line) == 0:
			pending = false
		case string(line) == "data" || bytes.HasPrefix(line, []byte("data:")):
			pending = true
		}
		i += j + 1
		if b[i-1] == '\r' && i < len(b) && b[i] == '\n' {
			i++
		}
	}
	return pending
}

func checkCase(t *testing.T, c *sseCase, how string, got parseResult) {
	t.Helper()
	if !assert.Equal(t, c.Events, got.Events, "%s (%s): events", c.Name, how) {
		return
	}
	assert.Equal(t, c.LastEventID, got.LastEventID, "%s (%s): last event id", c.Name, how)
	assert.Equal(t, c.Retry, got.Retry, "%s (%s): retry", c.Name, how)
	if expectTruncated(c.bytes(t)) {
		var e *transport.Error
		if assert.ErrorAs(t, got.Err, &e, "%s (%s): want a truncation error", c.Name, how) {
			assert.Equal(t, transport.KindTruncated, e.Kind, "%s (%s): %v", c.Name, how, got.Err)
			assert.Equal(t, len(c.Events), e.Index, "%s (%s): the error's index is the number of events dispatched", c.Name, how)
		}
	} else {
		assert.NoError(t, got.Err, "%s (%s)", c.Name, how)
	}
}

// TestSSECases runs the 77 WHATWG cases fed whole, in 1-, 2- and 3-byte reads,
// split in two at every byte (inputs under 400 bytes; every 97th byte
// beyond) and in random reads.
func TestSSECases(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range loadSSECases(t) {
		t.Run(c.Name, func(t *testing.T) {
			in := c.bytes(t)
			checkCase(t, &c, "whole", parseAll(bytes.NewReader(in), nil))
			for _, n := range []int{1, 2, 3} {
				checkCase(t, &c, fmt.Sprintf("%d-byte reads", n), parseAll(&chunkReader{data: in, next: fixed(n)}, nil))
			}
			step := 1
			if len(in) >= 400 {
				step = 97
			}
			for off := 0; off <= len(in); off += step {
				checkCase(t, &c, fmt.Sprintf("split at %d", off), parseAll(splitReader(in, off), nil))
			}
			for range 5 {
				seed := rng.Uint64()
				r := rand.New(rand.NewPCG(seed, 0))
				checkCase(t, &c, fmt.Sprintf("random reads, seed %d", seed),
					parseAll(&chunkReader{data: in, next: func() int { return 1 + r.IntN(17) }}, nil))
			}
		})
	}
}

func TestSSEDecoderNextAfterEnd(t *testing.T) {
	t.Parallel()
	d := transport.NewSSEDecoder(bytes.NewReader([]byte("data: a\n\ndata: b")), nil)
	ev, err := d.Next()
	require.NoError(t, err)
	assert.Equal(t, "a", ev.Data)
	_, err = d.Next()
	require.ErrorIs(t, err, transport.KindTruncated)
	_, again := d.Next()
	assert.Same(t, err, again, "a failed decoder returns the same error again")

	d = transport.NewSSEDecoder(bytes.NewReader([]byte("data: a\n\n")), nil)
	_, err = d.Next()
	require.NoError(t, err)
	_, err = d.Next()
	assert.Equal(t, io.EOF, err, "a clean end is io.EOF")
	assert.Equal(t, int64(9), d.InputOffset())
}

func TestSSEOffsetsAndBOM(t *testing.T) {
	t.Parallel()
	in := "\xEF\xBB\xBF: hi\n\nid: 1\ndata: a\n\n\n\nevent: x\ndata: b\r\ndata: c\r\n\r\n"
	var offsets []int64
	for f, err := range transport.ReadFrames(t.Context(), bytes.NewReader([]byte(in)), transport.FormatSSE, nil) {
		require.NoError(t, err)
		offsets = append(offsets, f.Offset)
	}
	// ": hi" starts at 3 (after the BOM); "id: 1" at 9; "event: x" at 26.
	assert.Equal(t, []int64{9, 26}, offsets, "a frame's offset is its block's first line")
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// TestSSELimitBoundsMemory feeds a gigabyte without a line end: the decoder
// must stop at the limit having read and kept about that much.
func TestSSELimitBoundsMemory(t *testing.T) {
	const limit = 1 << 20
	const total = 1 << 30
	read := 0
	r := readerFunc(func(p []byte) (int, error) {
		if read >= total {
			return 0, io.EOF
		}
		n := min(len(p), total-read)
		for i := range p[:n] {
			p[i] = 'a'
		}
		if read == 0 {
			copy(p, "data: ")
		}
		read += n
		return n, nil
	})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := parseAll(r, &transport.Options{MaxEventBytes: limit})
	runtime.ReadMemStats(&after)

	var e *transport.Error
	require.ErrorAs(t, res.Err, &e)
	assert.Equal(t, transport.KindLimit, e.Kind)
	assert.Equal(t, int64(limit), e.Limit, "the error names the limit")
	assert.Equal(t, int64(0), e.Offset, "the offending event starts at byte 0")
	assert.Contains(t, e.Error(), "1048576 bytes")
	assert.LessOrEqual(t, read, limit+128<<10, "read stops at the limit (plus one read buffer)")
	// Growing the buffer by doubling up to the limit allocates about 2× the
	// limit; 4× leaves room for the race detector and runtime noise while
	// still proving the bound is the limit, not the 1 GiB input.
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4*limit), "memory stays proportional to the limit")
	assert.Less(t, time.Since(start), 10*time.Second)
}

func TestSSELimitCountsDataAcrossLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		limit int
		kind  transport.Kind // 0 = no error
	}{
		{"exactly at the limit", "data: 0123456789\n\n", 16, 0},
		{"one line over", "data: 01234567890123456\n\n", 16, transport.KindLimit},
		{"data lines add up", "data: 0123456\ndata: 0123456\ndata: 0\n\n", 16, transport.KindLimit},
		{"comments do not add up", ": 0123456789\n: 0123456789\n: 0123456789\ndata: x\n\n", 16, 0},
		{"events do not add up", "data: 0123456789\n\ndata: 0123456789\n\n", 16, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, n := range []int{1, 3, 1 << 16} {
				res := parseAll(&chunkReader{data: []byte(tt.in), next: fixed(n)}, &transport.Options{MaxEventBytes: tt.limit})
				if tt.kind == 0 {
					assert.NoError(t, res.Err, "reads of %d", n)
				} else {
					assert.ErrorIs(t, res.Err, tt.kind, "reads of %d", n)
				}
			}
		})
	}
}

func TestSSEReadErrorAfterEvents(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader([]byte("data: a\n\ndata: b\n\ndata: par")), readerFunc(func([]byte) (int, error) { return 0, boom }))
	res := parseAll(r, nil)
	assert.Equal(t, []transport.SSEEvent{{Event: "message", Data: "a"}, {Event: "message", Data: "b"}}, res.Events,
		"events read before the failure are dispatched")
	var e *transport.Error
	require.ErrorAs(t, res.Err, &e)
	assert.Equal(t, transport.KindIO, e.Kind)
	assert.Equal(t, 2, e.Index)
	assert.ErrorIs(t, res.Err, boom)
}

func TestSSENoProgressReader(t *testing.T) {
	t.Parallel()
	res := parseAll(readerFunc(func([]byte) (int, error) { return 0, nil }), nil)
	assert.ErrorIs(t, res.Err, io.ErrNoProgress, "a reader that never returns data nor error is given up on")
}

func TestWriteSSERoundTrip(t *testing.T) {
	t.Parallel()
	tests := []transport.SSEEvent{
		{Event: "message", Data: "hello"},
		{Event: "message", Data: ""},
		{Event: "message", Data: "\n"},
		{Event: "message", Data: "a\nb\r\nc\rd"},
		{Event: "message", Data: " leading space"},
		{Event: "message", Data: "trailing\n"},
		{Event: "message", Data: `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`},
		{Event: "update", Data: "x", ID: "42"},
		{Event: "message", Data: "\xEF\xBB\xBFbom inside"},
		{Event: "message", Data: ": not a comment"},
	}
	var buf bytes.Buffer
	for _, ev := range tests {
		require.NoError(t, transport.WriteSSE(&buf, ev))
	}
	res := parseAll(&buf, nil)
	require.NoError(t, res.Err)
	want := make([]transport.SSEEvent, len(tests))
	id := ""
	for i, ev := range tests {
		if ev.ID != "" {
			id = ev.ID
		}
		ev.ID = id
		// A reader joins data lines with LF whatever line end split them.
		ev.Data = string(bytes.NewBufferString(ev.Data).Bytes())
		ev.Data = replaceLineEnds(ev.Data)
		want[i] = ev
	}
	assert.Equal(t, want, res.Events)
}

func replaceLineEnds(s string) string {
	b := bytes.ReplaceAll([]byte(s), []byte("\r\n"), []byte("\n"))
	return string(bytes.ReplaceAll(b, []byte("\r"), []byte("\n")))
}

func TestWriteSSEInvalidFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ev   transport.SSEEvent
	}{
		{"event type with LF", transport.SSEEvent{Event: "a\nb", Data: "x"}},
		{"event type with CR", transport.SSEEvent{Event: "a\rb", Data: "x"}},
		{"id with LF", transport.SSEEvent{ID: "1\n2", Data: "x"}},
		{"id with NUL", transport.SSEEvent{ID: "1\x002", Data: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := transport.WriteSSE(&buf, tt.ev)
			assert.ErrorIs(t, err, transport.ErrInvalidField)
			assert.Zero(t, buf.Len(), "nothing is written for an invalid event")
		})
	}
}

func TestWriteSSEFraming(t *testing.T) {
	t.Parallel()
	b, err := transport.AppendSSE(nil, transport.SSEEvent{Event: "delta", ID: "7", Data: "a\nb"})
	require.NoError(t, err)
	assert.Equal(t, "event: delta\nid: 7\ndata: a\ndata: b\n\n", string(b))
	b, err = transport.AppendSSE([]byte("x"), transport.SSEEvent{Data: "{}"})
	require.NoError(t, err)
	assert.Equal(t, "xdata: {}\n\n", string(b), "AppendSSE appends; no event line for the default type")
	assert.Equal(t, "data: a\ndata: \ndata: b\n\n", string(transport.AppendSSEData(nil, []byte("a\r\n\nb"))))
}

// TestSSEInvalidUTF8 checks the WHATWG decoder's replacement of invalid
// sequences (one U+FFFD per maximal invalid subsequence).
func TestSSEInvalidUTF8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"lone continuation bytes", "\x80\xBF", "\uFFFD\uFFFD"},
		{"truncated 3-byte sequence then ASCII", "\xE2\x82A", "\uFFFDA"},
		{"truncated 4-byte sequence at end", "\xF0\x9F\x98", "\uFFFD"},
		{"overlong 2-byte", "\xC0\xAF", "\uFFFD\uFFFD"},
		{"surrogate", "\xED\xA0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"above U+10FFFF", "\xF4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"valid mixed with invalid", "é\xFF€", "é\uFFFD€"},
		{"E0 needs A0..BF", "\xE0\x80\x80", "\uFFFD\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "event: " + tt.in + "\nid: " + tt.in + "\ndata: " + tt.in + "\n\n"
			res := parseAll(bytes.NewReader([]byte(in)), nil)
			require.NoError(t, res.Err)
			require.Len(t, res.Events, 1)
			assert.Equal(t, transport.SSEEvent{Event: tt.want, Data: tt.want, ID: tt.want}, res.Events[0])
		})
	}
}

func TestSSERetryHuge(t *testing.T) {
	t.Parallel()
	d := transport.NewSSEDecoder(bytes.NewReader([]byte("retry: 9223372036854775807\n\n")), nil)
	_, err := d.Next()
	require.Equal(t, io.EOF, err)
	rt, ok := d.Retry()
	assert.True(t, ok)
	assert.Equal(t, time.Duration(1<<63-1), rt, "a huge retry saturates instead of overflowing")
}
