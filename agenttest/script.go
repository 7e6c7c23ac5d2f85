package agenttest

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"

	"github.com/agview/agview/event"
)

// Script is what a Server plays for one run: the frames it sends, each one
// event's JSON exactly as it goes on the wire. A frame need not be a valid
// event: a conformance vector may hold malformed ones, and a server under test
// may send them.
type Script interface {
	// Frames returns the frames for a run started with input.
	Frames(input *event.RunAgentInput) iter.Seq[json.RawMessage]
}

// ScriptFunc adapts a function to a Script.
type ScriptFunc func(input *event.RunAgentInput) iter.Seq[json.RawMessage]

// Frames calls f(input).
func (f ScriptFunc) Frames(input *event.RunAgentInput) iter.Seq[json.RawMessage] { return f(input) }

// Frames returns a Script that plays the given raw frames, whatever the input.
func Frames(frames ...json.RawMessage) Script {
	return ScriptFunc(func(*event.RunAgentInput) iter.Seq[json.RawMessage] {
		return func(yield func(json.RawMessage) bool) {
			for _, f := range frames {
				if !yield(f) {
					return
				}
			}
		}
	})
}

// Events returns a Script that plays the given events, each encoded with
// event.Encode, whatever the input. It panics if an event does not encode,
// which only a programming error can cause.
func Events(events ...event.Event) Script {
	frames := make([]json.RawMessage, len(events))
	for i, e := range events {
		b, err := event.Encode(e)
		if err != nil {
			panic("agenttest.Events: event " + string(e.EventType()) + ": " + err.Error())
		}
		frames[i] = b
	}
	return Frames(frames...)
}

// Vector returns a Script that plays the events of a conformance vector (a
// JSON object whose "events" member is the array of wire events, as in
// testdata/conformance/vectors), each element served verbatim: its bytes as
// they are in the file, malformed events included, whatever the input.
func Vector(data []byte) (Script, error) {
	var v struct {
		Events []json.RawMessage `json:"events"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("agenttest: not a conformance vector: %w", err)
	}
	if v.Events == nil {
		return nil, errors.New(`agenttest: not a conformance vector: no "events" array`)
	}
	return Frames(v.Events...), nil
}

// VectorFile is Vector on the file at path.
func VectorFile(path string) (Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("agenttest: %w", err)
	}
	s, err := Vector(data)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	return s, nil
}
