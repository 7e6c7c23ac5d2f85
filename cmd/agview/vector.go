package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agview/agview/transport"
)

// maxVectorBytes is the largest file read whole to tell a conformance
// vector (one JSON object with "events") from a recording.
const maxVectorBytes = 64 << 20

// vectorEvents looks at a file that holds one JSON object, not a stream: a
// conformance vector ({"name":…,"events":[…],"expect":…}, as in
// testdata/conformance/vectors) gives its events, as a JSON array, and a
// line saying so; an object that is neither an event nor a vector is
// unusable input, said in one line (it read as one E3 per line of the
// object). For anything else (a stream, standard input, a file too large
// to be one) it returns nil, and the file is read as it is.
func vectorEvents(path string) (events []byte, note string, err error) {
	if path == "-" {
		return nil, "", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", nil // foldFile says why
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > maxVectorBytes {
		return nil, "", nil
	}
	dec := json.NewDecoder(f)
	var obj map[string]json.RawMessage
	if dec.Decode(&obj) != nil || obj == nil {
		return nil, "", nil
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, "", nil // more than one value: a stream
	}
	raw, isVector := obj["events"]
	_, isEvent := obj["type"]
	switch {
	case isVector:
		var evs []json.RawMessage
		if err := json.Unmarshal(raw, &evs); err != nil {
			return nil, "", errors.New(`one JSON object whose "events" is not an array of events`)
		}
		var name string
		_ = json.Unmarshal(obj["name"], &name)
		if name == "" {
			name = "unnamed"
		}
		return bytes.TrimSpace(raw), fmt.Sprintf("a conformance vector (%s): reading its %d events", name, len(evs)), nil
	case isEvent:
		return nil, "", nil
	}
	return nil, "", errors.New(`one JSON object that is neither an event (no "type") nor a conformance vector (no "events"); ` +
		`a recording holds events: JSON Lines, SSE text, a JSON array or protobuf frames`)
}

// useVector makes rec read a conformance vector's events when its file is
// one, saying so on standard error, and returns an *inputError when the
// file is one JSON object that is nothing agview reads.
func (e *env) useVector(cmd string, rec *recording) error {
	evs, note, err := vectorEvents(rec.path)
	if err != nil {
		return &inputError{name: rec.name(), err: err}
	}
	if evs == nil {
		return nil
	}
	e.errorf("agview %s: %s: %s", cmd, rec.name(), note)
	rec.data = evs
	rec.format = transport.FormatJSONArray
	return nil
}
