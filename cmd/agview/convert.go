package main

import (
	"bufio"
	"context"
	"encoding/binary"

	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
)

// convert writes the frames of the recording rec to stdout as JSON Lines, or
// with proto as protobuf frames: "agview replay --emit". Each frame is
// carried as it was sent (event.ProtoJSON from protobuf, event.AppendProtoJSON
// to it); a frame that cannot go so becomes what it decodes to. A frame with
// no form in the target encoding is left out and reported. It returns the
// exit code.
func (e *env) convert(ctx context.Context, rec *recording, proto bool) int {
	r, closeInput, _, err := e.open(ctx, rec.path)
	if err != nil {
		return e.fail("replay", false, &inputError{name: rec.name(), err: err})
	}
	defer closeInput()
	frames := transport.ReadFrames(ctx, r, rec.format, &transport.Options{MaxEventBytes: rec.maxEventBytes})
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	var buf []byte
	left := 0
	for f, err := range frames {
		if err != nil {
			w.Flush()
			return e.fail("replay", false, &inputError{name: rec.name(), err: err})
		}
		var cerr error
		switch {
		case proto && f.Proto:
			buf = binary.BigEndian.AppendUint32(buf[:0], uint32(len(f.Data)))
			buf = append(buf, f.Data...)
		case proto:
			buf, cerr = protoFrame(buf[:0], f.Data)
		case f.Proto:
			var js []byte
			if js, cerr = event.ProtoJSON(f.Data); cerr == nil {
				buf = append(append(buf[:0], js...), '\n')
			}
		default:
			buf = append(append(buf[:0], f.Data...), '\n')
		}
		if cerr != nil {
			left++
			e.errorf("agview replay: %s: frame %d (byte %d) left out: %v", rec.name(), f.Index, f.Offset, cerr)
			continue
		}
		if _, err := w.Write(buf); err != nil {
			e.errorf("agview replay: %v", err)
			return exitUsage
		}
	}
	if err := w.Flush(); err != nil {
		e.errorf("agview replay: %v", err)
		return exitUsage
	}
	if left > 0 {
		e.errorf("agview replay: %s: %d frames had no form in the target encoding", rec.name(), left)
		return exitRejected
	}
	return exitOK
}

// protoFrame appends the JSON frame data as a protobuf frame: carried member
// by member, or, when that cannot be, as the event it decodes to.
func protoFrame(dst, data []byte) ([]byte, error) {
	n := len(dst)
	b, err := event.AppendProtoJSON(append(dst, 0, 0, 0, 0), data)
	if err != nil {
		ev, derr := event.Decode(data)
		if derr != nil {
			return dst, err
		}
		if b, err = event.AppendProto(append(dst, 0, 0, 0, 0), ev); err != nil {
			return dst, err
		}
	}
	binary.BigEndian.PutUint32(b[n:], uint32(len(b)-n-4))
	return b, nil
}
