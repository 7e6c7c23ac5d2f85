package event_test

import (
	"errors"
	"fmt"

	"github.com/agview/agview/event"
)

func ExampleDecodeProto() {
	msg, err := event.AppendProto(nil, &event.TextMessageContent{Attribution: event.By("sub-1"), MessageID: "m1", Delta: "Hi"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("% x\n", msg)
	e, err := event.DecodeProto(msg)
	if err != nil {
		fmt.Println(err)
		return
	}
	who, _ := e.SubagentRunID()
	fmt.Printf("%s %q by %s\n", e.EventType(), e.(*event.TextMessageContent).Delta, who)

	// A STATE_SNAPSHOT without its snapshot is refused as its JSON is.
	_, err = event.DecodeProto([]byte{0x3a, 0x04, 0x0a, 0x02, 0x08, 0x06})
	var de *event.DecodeError
	if errors.As(err, &de) {
		fmt.Println(de.Pointer, de.Rule, "at byte", de.Offset)
	}
	// Output:
	// 12 13 0a 02 08 01 12 02 6d 31 1a 02 48 69 22 05 73 75 62 2d 31
	// TEXT_MESSAGE_CONTENT "Hi" by sub-1
	// /snapshot E3 at byte 0
}

func ExampleProtoJSON() {
	frame, _ := event.AppendProtoFrame(nil, &event.RunError{Message: "boom", Code: event.Ptr("E42")})
	js, err := event.ProtoJSON(frame[4:]) // the message, after its 4-byte length
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(frame)-4 == int(frame[3]), string(js))
	// Output:
	// true {"type":"RUN_ERROR","code":"E42","message":"boom"}
}
