package transport_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agview/agview/transport"
)

// endKind is the Kind of the error that ended a parse, 0 for a clean end.
func endKind(err error) transport.Kind {
	var te *transport.Error
	if errors.As(err, &te) {
		return te.Kind
	}
	return 0
}

func sameParse(t *testing.T, how string, want, got parseResult) {
	t.Helper()
	if len(want.Events) != len(got.Events) {
		t.Fatalf("%s: %d events, want %d\n got %q\nwant %q", how, len(got.Events), len(want.Events), got.Events, want.Events)
	}
	for i := range want.Events {
		if want.Events[i] != got.Events[i] {
			t.Fatalf("%s: event %d is %q, want %q", how, i, got.Events[i], want.Events[i])
		}
	}
	if endKind(want.Err) != endKind(got.Err) {
		t.Fatalf("%s: ends with %v, want %v", how, got.Err, want.Err)
	}
	if want.LastEventID != got.LastEventID {
		t.Fatalf("%s: last event id %q, want %q", how, got.LastEventID, want.LastEventID)
	}
	if (want.Retry == nil) != (got.Retry == nil) || want.Retry != nil && *want.Retry != *got.Retry {
		t.Fatalf("%s: retry %v, want %v", how, got.Retry, want.Retry)
	}
}

// FuzzSSE checks the SSE parser on any input: it never panics; how the input
// is cut into reads never changes the result; every string it returns is
// valid UTF-8; the events it returns survive WriteSSE and a second parse; a
// smaller limit gives a prefix of the events, then the same end or KindLimit.
func FuzzSSE(f *testing.F) {
	for _, c := range loadSSECases(f) {
		f.Add(c.bytes(f))
	}
	f.Add([]byte("data: {\"type\":\"RUN_STARTED\"}\r\n\r\n: ping\rid: 1\ndata:x\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		whole := parseAll(bytes.NewReader(in), nil)
		sameParse(t, "1-byte reads", whole, parseAll(&chunkReader{data: in, next: fixed(1)}, nil))
		if len(in) > 1 {
			sameParse(t, "split", whole, parseAll(splitReader(in, len(in)/2+1), nil))
		}
		if k := endKind(whole.Err); k != 0 && k != transport.KindTruncated {
			t.Fatalf("an in-memory input can only end cleanly or truncated, got %v", whole.Err)
		}
		var again []byte
		for _, ev := range whole.Events {
			for _, s := range []string{ev.Event, ev.Data, ev.ID} {
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 in %q", ev)
				}
			}
			if strings.ContainsAny(ev.Data, "\r") || strings.ContainsAny(ev.Event, "\r\n") {
				t.Fatalf("a line end inside a field: %q", ev)
			}
			var err error
			again, err = transport.AppendSSE(again, transport.SSEEvent{Event: ev.Event, Data: ev.Data})
			if err != nil {
				t.Fatalf("AppendSSE(%q): %v", ev, err)
			}
		}
		re := parseAll(bytes.NewReader(again), nil)
		if re.Err != nil || len(re.Events) != len(whole.Events) {
			t.Fatalf("re-parse of %q: %d events, %v; want %d", again, len(re.Events), re.Err, len(whole.Events))
		}
		for i, ev := range re.Events {
			if ev.Event != whole.Events[i].Event || ev.Data != whole.Events[i].Data {
				t.Fatalf("re-parse: event %d is %q, want %q", i, ev, whole.Events[i])
			}
		}
		small := parseAll(bytes.NewReader(in), &transport.Options{MaxEventBytes: 16})
		if len(small.Events) > len(whole.Events) {
			t.Fatalf("a smaller limit gave more events")
		}
		for i, ev := range small.Events {
			if ev != whole.Events[i] {
				t.Fatalf("limit 16: event %d is %q, want %q", i, ev, whole.Events[i])
			}
		}
		if k := endKind(small.Err); k != transport.KindLimit && (k != endKind(whole.Err) || len(small.Events) != len(whole.Events)) {
			t.Fatalf("limit 16: ends with %v after %d events; whole input: %v after %d", small.Err, len(small.Events), whole.Err, len(whole.Events))
		}
	})
}

// readAllFrames reads r's frames in format and returns them with the kind of
// the error that ended them.
func readAllFrames(r interface{ Read([]byte) (int, error) }, format transport.Format) ([]transport.Frame, transport.Kind) {
	var frames []transport.Frame
	for fr, err := range transport.ReadFrames(context.Background(), r, format, &transport.Options{MaxEventBytes: 256}) {
		if err != nil {
			return frames, endKind(err)
		}
		frames = append(frames, fr)
	}
	return frames, 0
}

// FuzzReadFrames checks the recorded-stream framers (JSONL, JSON array, SSE
// with its lenient end, and detection) on any input: no panic, the same
// frames and end however the input is cut into reads, offsets inside the
// input and increasing.
func FuzzReadFrames(f *testing.F) {
	f.Add([]byte(asJSONL(sample)))
	f.Add([]byte(asArray(sample)))
	f.Add([]byte(`[{"a":"]\"}"}, 1, "x", [[]], {}]`))
	f.Add([]byte("\xEF\xBB\xBF\r\n{}\r\n\n{\"x\":1}"))
	f.Add([]byte("data: {}\n\ndata: {\"a\":\ndata: 1}"))
	f.Add([]byte("data: {}\r\n\r\n: bye"))
	f.Add([]byte("data: {}\r\rdata\r\rdata"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, format := range []transport.Format{transport.FormatAuto, transport.FormatJSONL, transport.FormatJSONArray, transport.FormatSSE} {
			whole, kind := readAllFrames(bytes.NewReader(in), format)
			bytewise, kind1 := readAllFrames(&chunkReader{data: in, next: fixed(1)}, format)
			if kind != kind1 || len(whole) != len(bytewise) {
				t.Fatalf("%v: whole: %d frames, end %v; 1-byte reads: %d frames, end %v", format, len(whole), kind, len(bytewise), kind1)
			}
			last := int64(-1)
			for i, fr := range whole {
				if !bytes.Equal(fr.Data, bytewise[i].Data) || fr.Offset != bytewise[i].Offset || fr.Index != i {
					t.Fatalf("%v: frame %d differs: %+v vs %+v", format, i, fr, bytewise[i])
				}
				if fr.Offset <= last || fr.Offset >= int64(len(in)) || len(fr.Data) > 256 {
					t.Fatalf("%v: frame %d: offset %d after %d in %d bytes, %d bytes", format, i, fr.Offset, last, len(in), len(fr.Data))
				}
				if detected, _, _ := transport.DetectFormat(in); format != transport.FormatSSE && detected != transport.FormatSSE && !bytes.HasPrefix(in[fr.Offset:], bytes.TrimLeft(fr.Data[:min(len(fr.Data), 1)], " \t")) {
					t.Fatalf("%v: frame %d does not start at its offset", format, i)
				}
				last = fr.Offset
			}
		}
	})
}
