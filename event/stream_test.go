package event

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// item is one step of a Decoder's iteration: an event type or an error.
type item struct {
	typ  Type
	line int    // line of an error
	err  string // "decode", "unknown", "toolong" or "io"
}

func collect(d *Decoder) []item {
	var out []item
	for e, err := range d.All() {
		var le *LineError
		var tl *LineTooLongError
		switch {
		case err == nil:
			out = append(out, item{typ: e.EventType()})
		case errors.As(err, &tl):
			out = append(out, item{line: tl.Line, err: "toolong"})
		case errors.As(err, &le):
			kind := "decode"
			var ut *UnknownTypeError
			if errors.As(err, &ut) {
				kind = "unknown"
			}
			out = append(out, item{line: le.Line, err: kind})
		default:
			out = append(out, item{err: "io"})
		}
	}
	return out
}

func TestDecoder(t *testing.T) {
	long := `{"type":"CUSTOM","name":"` + strings.Repeat("x", 100) + `","value":1}`
	tests := []struct {
		name string
		in   string
		max  int
		want []item
	}{
		{"empty", "", 0, nil},
		{"lines", "{\"type\":\"RUN_ERROR\",\"message\":\"a\"}\n{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n", 0,
			[]item{{typ: TypeRunError}, {typ: TypeTextMessageEnd}}},
		{"no final newline, CRLF, blank lines and a BOM", "\xEF\xBB\xBF{\"type\":\"THINKING_END\"}\r\n\r\n  \n{\"type\":\"THINKING_START\"}", 0,
			[]item{{typ: TypeThinkingEnd}, {typ: TypeThinkingStart}}},
		{"bad lines do not stop the stream",
			"{\"type\":\"THINKING_END\"}\nnot json\n{\"type\":\"WHAT\"}\n{\"type\":\"STEP_STARTED\",\"stepName\":null}\n{\"type\":\"THINKING_START\"}\n", 0,
			[]item{{typ: TypeThinkingEnd}, {line: 2, err: "decode"}, {line: 3, err: "unknown"}, {line: 4, err: "decode"}, {typ: TypeThinkingStart}}},
		{"line over the limit is skipped", "{\"type\":\"THINKING_END\"}\n" + long + "\n{\"type\":\"THINKING_START\"}\n", 64,
			[]item{{typ: TypeThinkingEnd}, {line: 2, err: "toolong"}, {typ: TypeThinkingStart}}},
		{"last line over the limit", "{\"type\":\"THINKING_END\"}\n" + long, 64,
			[]item{{typ: TypeThinkingEnd}, {line: 2, err: "toolong"}}},
		{"line at the limit", long + "\r\n", len(long), []item{{typ: TypeCustom}}},
		{"line one over the limit", long + "\n", len(long) - 1, []item{{line: 1, err: "toolong"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// OneByteReader makes every line cross bufio's buffer boundaries.
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				got := collect(NewDecoder(r, &DecoderOptions{MaxLineSize: tc.max}))
				assert.Equal(t, tc.want, got)
			}
		})
	}
}

func TestDecoderLongLinesCrossTheBuffer(t *testing.T) {
	delta := strings.Repeat("y", 200<<10) // longer than the 64 KiB read buffer
	in := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + delta + "\"}\n" + `{"type":"THINKING_END"}` + "\n"
	d := NewDecoder(strings.NewReader(in), nil)
	var got []Event
	for e, err := range d.All() {
		require.NoError(t, err)
		got = append(got, e)
	}
	require.Len(t, got, 2)
	assert.Equal(t, delta, got[0].(*TextMessageContent).Delta, "the event owns its bytes although the line buffer is reused")
	assert.Equal(t, 2, d.Line())

	d = NewDecoder(strings.NewReader(in), &DecoderOptions{MaxLineSize: 100 << 10})
	assert.Equal(t, []item{{line: 1, err: "toolong"}, {typ: TypeThinkingEnd}}, collect(d))
}

func TestDecoderIOError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("{\"type\":\"THINKING_END\"}\n{\"type\":"), iotest.ErrReader(boom))
	var errs []error
	n := 0
	for e, err := range NewDecoder(r, nil).All() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
		assert.Equal(t, TypeThinkingEnd, e.EventType())
	}
	assert.Equal(t, 1, n)
	require.Len(t, errs, 1, "the I/O error ends the iteration")
	assert.ErrorIs(t, errs[0], boom)
	assert.Contains(t, errs[0].Error(), "line 2")
}

func TestDecoderStopAndResume(t *testing.T) {
	d := NewDecoder(strings.NewReader("{\"type\":\"THINKING_START\"}\n{\"type\":\"THINKING_END\"}\n"), nil)
	for e, err := range d.All() {
		require.NoError(t, err)
		assert.Equal(t, TypeThinkingStart, e.EventType())
		break
	}
	assert.Equal(t, []item{{typ: TypeThinkingEnd}}, collect(d), "All goes on where the last loop stopped")
}

func TestLineErrors(t *testing.T) {
	le := &LineError{Line: 3, Err: &UnknownTypeError{Type: "X"}}
	assert.Equal(t, `line 3: event: unknown event type "X": skipped`, le.Error())
	tl := &LineTooLongError{Line: 4, Limit: 10}
	assert.Equal(t, "event: line 4 is longer than the 10-byte limit; skipped", tl.Error())
}
