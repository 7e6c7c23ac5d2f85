package transport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
)

// sample is a small valid stream, one event's wire JSON per element.
var sample = []string{
	`{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`,
	`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a [b] {c} \"d\" \\ e\nf"}`,
	`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
	`{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`,
}

func asJSONL(frames []string) string { return strings.Join(frames, "\n") + "\n" }

func asSSE(frames []string) string {
	var b []byte
	for _, f := range frames {
		b, _ = transport.AppendSSE(b, transport.SSEEvent{Data: f})
	}
	return string(b)
}

func asArray(frames []string) string {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, f := range frames {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, []byte(f), "  ", "  "); err != nil {
			panic(err)
		}
		b.WriteString("  ")
		b.Write(pretty.Bytes())
		if i < len(frames)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return b.String()
}

// collected is what an event iterator yielded.
type collected struct {
	events []event.Event
	errs   []error // per pair; nil where the event decoded
	fatal  error
}

func collect(seq func(func(event.Event, error) bool)) collected {
	var c collected
	for ev, err := range seq {
		var te *transport.Error
		if errors.As(err, &te) {
			c.fatal = err
			break
		}
		c.events = append(c.events, ev)
		c.errs = append(c.errs, err)
	}
	return c
}

func compactJSON(t testing.TB, b []byte) string {
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, b), "frame %q", b)
	return buf.String()
}

func TestReadFormats(t *testing.T) {
	t.Parallel()
	inputs := map[transport.Format]string{
		transport.FormatJSONL:     asJSONL(sample),
		transport.FormatSSE:       asSSE(sample),
		transport.FormatJSONArray: asArray(sample),
	}
	for format, in := range inputs {
		for _, given := range []transport.Format{format, transport.FormatAuto} {
			t.Run(format.String()+"/as "+given.String(), func(t *testing.T) {
				t.Parallel()
				var frames []string
				for f, err := range transport.ReadFrames(t.Context(), strings.NewReader(in), given, nil) {
					require.NoError(t, err)
					assert.Equal(t, len(frames), f.Index)
					assert.True(t, strings.HasPrefix(in[f.Offset:], "data: ") || in[f.Offset] == '{',
						"frame %d's offset %d points at its start", f.Index, f.Offset)
					frames = append(frames, compactJSON(t, f.Data))
				}
				assert.Equal(t, sample, frames)

				c := collect(transport.Read(t.Context(), strings.NewReader(in), given, nil))
				require.NoError(t, c.fatal)
				require.Len(t, c.events, len(sample))
				for i, e := range c.events {
					require.NoError(t, c.errs[i])
					want, err := event.Decode([]byte(sample[i]))
					require.NoError(t, err)
					assert.Equal(t, want, e, "event %d", i)
				}
			})
		}
	}
}

func TestDetectFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		want     transport.Format
		ok, done bool
	}{
		{"", transport.FormatAuto, false, false},
		{" \r\n\t", transport.FormatAuto, false, false},
		{"\xEF\xBB\xBF\n{", transport.FormatJSONL, true, true},
		{"[", transport.FormatJSONArray, true, true},
		{": comment", transport.FormatSSE, true, true},
		{"data: x", transport.FormatSSE, true, true},
		{"event:", transport.FormatSSE, true, true},
		{"id: 1", transport.FormatSSE, true, true},
		{"retry: 1", transport.FormatSSE, true, true},
		{"dat", transport.FormatAuto, false, false},
		{"re", transport.FormatAuto, false, false},
		{"hello", transport.FormatAuto, false, true},
		{"<html>", transport.FormatAuto, false, true},
	}
	for _, tt := range tests {
		f, ok, done := transport.DetectFormat([]byte(tt.in))
		assert.Equal(t, tt.want, f, "DetectFormat(%q)", tt.in)
		assert.Equal(t, tt.ok, ok, "DetectFormat(%q) ok", tt.in)
		assert.Equal(t, tt.done, done, "DetectFormat(%q) complete", tt.in)
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]transport.Format{
		"": transport.FormatAuto, "auto": transport.FormatAuto, "jsonl": transport.FormatJSONL,
		"SSE": transport.FormatSSE, "json": transport.FormatJSONArray, "json-array": transport.FormatJSONArray,
	} {
		f, err := transport.ParseFormat(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, f, s)
	}
	_, err := transport.ParseFormat("xml")
	assert.ErrorContains(t, err, `unknown format "xml"`)
	for _, f := range []transport.Format{transport.FormatAuto, transport.FormatJSONL, transport.FormatSSE, transport.FormatJSONArray} {
		back, err := transport.ParseFormat(f.String())
		require.NoError(t, err)
		assert.Equal(t, f, back, "ParseFormat(f.String()) == f")
	}
}

// frameResult is what ReadFrames yielded: the compact frames and the error.
func readFrames(t testing.TB, in string, format transport.Format, opts *transport.Options) ([]string, []int64, *transport.Error) {
	var frames []string
	var offsets []int64
	for f, err := range transport.ReadFrames(context.Background(), strings.NewReader(in), format, opts) {
		if err != nil {
			var te *transport.Error
			require.ErrorAs(t, err, &te)
			return frames, offsets, te
		}
		frames = append(frames, string(f.Data))
		offsets = append(offsets, f.Offset)
	}
	return frames, offsets, nil
}

func TestReadJSONArray(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		frames  []string
		offsets []int64
		kind    transport.Kind
		errAt   int64
	}{
		{name: "empty", in: "[]", frames: nil},
		{name: "empty with space", in: " [ \n ] \n", frames: nil},
		{name: "scalars and strings", in: `[1, "x", true,null]`, frames: []string{"1", `"x"`, "true", "null"}, offsets: []int64{1, 4, 9, 14}},
		{name: "brackets inside strings", in: `[{"a":"]}\"{["},["]"]]`, frames: []string{`{"a":"]}\"{["}`, `["]"]`}},
		{name: "escaped backslash before quote", in: `["\\",{"b":"\\\""}]`, frames: []string{`"\\"`, `{"b":"\\\""}`}},
		{name: "BOM", in: "\xEF\xBB\xBF[{}]", frames: []string{"{}"}, offsets: []int64{4}},
		{name: "leading comma", in: "[,1]", kind: transport.KindProtocol, errAt: 1},
		{name: "trailing comma", in: "[1,]", frames: []string{"1"}, kind: transport.KindProtocol, errAt: 3},
		{name: "missing comma", in: "[{} {}]", frames: []string{"{}"}, kind: transport.KindProtocol, errAt: 4},
		{name: "data after the array", in: "[{}] {}", frames: []string{"{}"}, kind: transport.KindProtocol, errAt: 5},
		{name: "not an array", in: `{"type":"X"}`, kind: transport.KindProtocol, errAt: 0},
		{name: "nothing", in: "  ", kind: transport.KindProtocol, errAt: 2},
		{name: "no closing bracket", in: "[{},", frames: []string{"{}"}, kind: transport.KindTruncated, errAt: 4},
		{name: "ends inside an element", in: `[{}, {"a":`, frames: []string{"{}"}, kind: transport.KindTruncated, errAt: 5},
		{name: "ends inside a scalar", in: `[12`, kind: transport.KindTruncated, errAt: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			frames, offsets, err := readFrames(t, tt.in, transport.FormatJSONArray, nil)
			assert.Equal(t, tt.frames, frames)
			if tt.offsets != nil {
				assert.Equal(t, tt.offsets, offsets)
			}
			if tt.kind == 0 {
				assert.Nil(t, err)
				return
			}
			if assert.NotNil(t, err, "want a %v error", tt.kind) {
				assert.Equal(t, tt.kind, err.Kind, "%v", err)
				assert.Equal(t, tt.errAt, err.Offset, "%v", err)
				assert.Equal(t, len(tt.frames), err.Index)
				assert.Equal(t, "read json", err.Op)
			}
		})
	}
}

func TestReadJSONL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		frames  []string
		offsets []int64
		kind    transport.Kind
	}{
		{name: "LF", in: "{}\n{\"a\":1}\n", frames: []string{"{}", `{"a":1}`}, offsets: []int64{0, 3}},
		{name: "CRLF", in: "{}\r\n{}\r\n", frames: []string{"{}", "{}"}, offsets: []int64{0, 4}},
		{name: "blank lines", in: "\n{}\n  \n\t\r\n{}\n\n", frames: []string{"{}", "{}"}, offsets: []int64{1, 10}},
		{name: "no final line end", in: "{}\n{}", frames: []string{"{}", "{}"}},
		{name: "BOM", in: "\xEF\xBB\xBF{}\n", frames: []string{"{}"}, offsets: []int64{3}},
		{name: "malformed line is still a frame", in: "{\n}\n", frames: []string{"{", "}"}},
		{name: "empty", in: "", frames: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			frames, offsets, err := readFrames(t, tt.in, transport.FormatJSONL, nil)
			assert.Nil(t, err)
			assert.Equal(t, tt.frames, frames)
			if tt.offsets != nil {
				assert.Equal(t, tt.offsets, offsets)
			}
		})
	}
}

func TestReadLimit(t *testing.T) {
	t.Parallel()
	big := `{"type":"CUSTOM","name":"x","value":"` + strings.Repeat("x", 100) + `"}`
	small := `{"type":"CUSTOM","name":"x","value":1}`
	frames := []string{small, big, small}
	opts := &transport.Options{MaxEventBytes: 64}
	inputs := map[transport.Format]string{
		transport.FormatJSONL:     asJSONL(frames),
		transport.FormatSSE:       asSSE(frames),
		transport.FormatJSONArray: "[" + strings.Join(frames, ",") + "]",
	}
	for format, in := range inputs {
		t.Run(format.String(), func(t *testing.T) {
			t.Parallel()
			wantOffset := strings.Index(in, big)
			if format == transport.FormatSSE {
				wantOffset -= len("data: ")
			}
			got, _, err := readFrames(t, in, format, opts)
			require.NotNil(t, err, "a frame over the limit is an error")
			assert.Equal(t, []string{small}, got)
			assert.Equal(t, transport.KindLimit, err.Kind)
			assert.Equal(t, int64(64), err.Limit)
			assert.Equal(t, 1, err.Index, "the second frame is too large")
			assert.Equal(t, int64(wantOffset), err.Offset, "the offset points at the offending frame")
			assert.Contains(t, err.Error(), "frame 1 at byte")
			assert.Contains(t, err.Error(), "more than 64 bytes (Options.MaxEventBytes)")
		})
	}
}

// TestReadLimitLastLine checks the limit on a JSONL stream's last line,
// which has no line ending: the framer keeps one byte over the limit while
// a CR may follow, and must still refuse a line that ends there.
func TestReadLimitLastLine(t *testing.T) {
	t.Parallel()
	const max = 64
	line := func(n int) string { return `{"type":"CUSTOM","name":"x","value":"` + strings.Repeat("x", n-39) + `"}` }
	require.Len(t, line(max), max)
	small := `{"type":"CUSTOM","name":"x","value":1}`
	for _, tt := range []struct {
		name    string
		in      string
		want    []string
		limited bool
	}{
		{"at the limit", small + "\n" + line(max), []string{small, line(max)}, false},
		{"at the limit, then CR", small + "\n" + line(max) + "\r", []string{small, line(max)}, false},
		{"one byte over", small + "\n" + line(max+1), []string{small}, true},
		{"one byte over, then CR", small + "\n" + line(max+1) + "\r", []string{small}, true},
		{"far over", small + "\n" + line(3*max), []string{small}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, err := readFrames(t, tt.in, transport.FormatJSONL, &transport.Options{MaxEventBytes: max})
			assert.Equal(t, tt.want, got)
			if !tt.limited {
				assert.Nil(t, err)
				return
			}
			require.NotNil(t, err, "a last line over the limit is an error")
			assert.Equal(t, transport.KindLimit, err.Kind)
			assert.Equal(t, int64(len(small)+1), err.Offset, "the offset points at the last line")
		})
	}
}

func TestReadDecodeErrorsContinue(t *testing.T) {
	t.Parallel()
	frames := []string{sample[0], `{"type":"NOT_A_TYPE"}`, `not json`, `{"type":"TEXT_MESSAGE_END"}`, sample[4]}
	c := collect(transport.Read(t.Context(), strings.NewReader(asJSONL(frames)), transport.FormatAuto, nil))
	require.NoError(t, c.fatal, "per-event errors are not fatal")
	require.Len(t, c.errs, 5, "one pair per frame")
	assert.NoError(t, c.errs[0])
	assert.ErrorAs(t, c.errs[1], new(*event.UnknownTypeError))
	assert.ErrorAs(t, c.errs[2], new(*event.DecodeError))
	assert.ErrorAs(t, c.errs[3], new(*event.DecodeError), "a missing required field")
	assert.NoError(t, c.errs[4])
	for i, err := range c.errs {
		assert.False(t, errors.As(err, new(*transport.Error)), "pair %d: a decode error is not a *transport.Error", i)
	}
}

func TestReadIncomplete(t *testing.T) {
	t.Parallel()
	started := `{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`
	started2 := `{"type":"RUN_STARTED","threadId":"t1","runId":"r2"}`
	finished := `{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`
	runErr := `{"type":"RUN_ERROR","message":"boom"}`
	text := `{"type":"TEXT_MESSAGE_END","messageId":"m"}`
	tests := []struct {
		name     string
		frames   []string
		complete bool
		says     string
	}{
		{"finished", []string{started, finished}, true, ""},
		{"errored", []string{started, runErr}, true, ""},
		{"error as the only event", []string{runErr}, true, ""},
		{"events after the terminal", []string{started, finished, text}, true, ""},
		{"two runs", []string{started, finished, started2, runErr}, true, ""},
		{"no terminal", []string{started, text}, false, `run "r1" of thread "t1" (RUN_STARTED at frame 0) has no RUN_FINISHED or RUN_ERROR`},
		{"second run open", []string{started, finished, started2}, false, `run "r2"`},
		{"empty", nil, false, "the stream held no event"},
		{"no lifecycle", []string{text, text}, false, "none of its 2 frames is RUN_FINISHED or RUN_ERROR"},
		{"terminal fails to decode", []string{started, `{"type":"RUN_FINISHED"}`}, false, `run "r1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := asJSONL(tt.frames)
			if len(tt.frames) == 0 {
				in = ""
			}
			c := collect(transport.Read(t.Context(), strings.NewReader(in), transport.FormatJSONL, nil))
			assert.Len(t, c.events, len(tt.frames), "every frame is yielded")
			if tt.complete {
				assert.NoError(t, c.fatal)
				return
			}
			require.ErrorIs(t, c.fatal, transport.ErrIncomplete)
			var te *transport.Error
			require.ErrorAs(t, c.fatal, &te)
			assert.Equal(t, len(tt.frames), te.Index)
			assert.Equal(t, int64(len(in)), te.Offset)
			assert.Contains(t, c.fatal.Error(), tt.says)
		})
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "run.sse")
	require.NoError(t, os.WriteFile(path, []byte(asSSE(sample)), 0o644))

	c := collect(transport.ReadFile(t.Context(), path, transport.FormatAuto, nil))
	require.NoError(t, c.fatal)
	assert.Len(t, c.events, len(sample))

	n := 0
	for f, err := range transport.ReadFileFrames(t.Context(), path, transport.FormatSSE, nil) {
		require.NoError(t, err)
		assert.Equal(t, sample[n], string(f.Data))
		n++
	}
	assert.Equal(t, len(sample), n)

	missing := filepath.Join(dir, "missing.jsonl")
	c = collect(transport.ReadFile(t.Context(), missing, transport.FormatAuto, nil))
	var te *transport.Error
	require.ErrorAs(t, c.fatal, &te)
	assert.Equal(t, transport.KindIO, te.Kind)
	assert.Equal(t, -1, te.Index, "no frame was read")
	assert.ErrorIs(t, c.fatal, os.ErrNotExist)
	assert.Contains(t, c.fatal.Error(), missing, "the error names the file")

	garbage := filepath.Join(dir, "garbage.txt")
	require.NoError(t, os.WriteFile(garbage, []byte("hello world\n"), 0o644))
	c = collect(transport.ReadFile(t.Context(), garbage, transport.FormatAuto, nil))
	require.ErrorIs(t, c.fatal, transport.KindProtocol)
	assert.Contains(t, c.fatal.Error(), `cannot detect the format of input starting "hello world\n"`)
}

func TestReadCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []event.Event
	var fatal error
	for ev, err := range transport.Read(ctx, strings.NewReader(asJSONL(sample)), transport.FormatJSONL, nil) {
		if err != nil {
			fatal = err
			break
		}
		got = append(got, ev)
		cancel()
	}
	assert.Len(t, got, 1, "no frame is read after the cancellation")
	require.ErrorIs(t, fatal, transport.KindCanceled)
	assert.ErrorIs(t, fatal, context.Canceled)
	var te *transport.Error
	require.ErrorAs(t, fatal, &te)
	assert.Equal(t, 1, te.Index)
}

func TestReadEarlyBreak(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(asJSONL(sample)), 0o644))
	n := 0
	for range transport.ReadFile(t.Context(), path, transport.FormatAuto, nil) {
		n++
		break
	}
	assert.Equal(t, 1, n)
}
