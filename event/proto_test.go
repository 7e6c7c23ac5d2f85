package event

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/conformance"
)

// canonical returns a deep copy of e with its warnings cleared, every raw
// JSON value in canonical form (as encoding/json writes what it reads: keys
// sorted, numbers as float64) and empty slices nil, for comparing an event
// with its protobuf round trip: protobuf carries JSON numbers as doubles and
// cannot tell an empty optional list from an absent one.
func canonical(e Event) Event {
	v := reflect.New(reflect.TypeOf(e).Elem())
	v.Elem().Set(reflect.ValueOf(e).Elem())
	c := v.Interface().(Event)
	c.Common().warnings = nil
	canonicalize(v.Elem())
	return c
}

func canonicalize(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			n := reflect.New(v.Type().Elem())
			n.Elem().Set(v.Elem())
			canonicalize(n.Elem())
			v.Set(n)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				canonicalize(f)
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		if v.Type() == rawType {
			var x any
			if json.Unmarshal(v.Bytes(), &x) == nil {
				b, _ := json.Marshal(x)
				v.SetBytes(b)
			}
			return
		}
		if v.Len() == 0 {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(n, v)
		for i := 0; i < n.Len(); i++ {
			canonicalize(n.Index(i))
		}
		v.Set(n)
	}
}

// unprotobufable are the conformance vectors with an event that has no
// protobuf form, and why. Each is checked to be refused by AppendProto with
// an *EncodeError, so the list cannot go stale silently.
var unprotobufable = map[string]string{
	"01-plain-legacy-thinking-events-translated": "THINKING_* events are deprecated and have no ag_ui.Event arm",
	"12-state-delta-unknown-op":                  `a JSON Patch op outside RFC 6902's six ("increment") has no JsonPatchOperationType value`,
	"14-int-outcome-missing-type":                `a SUBAGENT_FINISHED outcome without a type: the flattened outcome "" means no outcome`,
	"14-int-outcome-null-type":                   `a SUBAGENT_FINISHED outcome with type null: the flattened outcome "" means no outcome`,
}

// TestProtoConformanceRoundTrip encodes every decodable event of every
// conformance vector with AppendProto and checks that DecodeProto gives back
// an equal event (up to canonical raw JSON, see canonical) with the same
// warnings, and that encoding it again gives the same bytes.
func TestProtoConformanceRoundTrip(t *testing.T) {
	vectors, err := conformance.Load()
	require.NoError(t, err)
	require.Len(t, vectors, 178)
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			refused := 0
			for i, raw := range v.Events {
				e, err := Decode(raw)
				if err != nil {
					continue // the JSON is refused: nothing to carry
				}
				b, err := AppendProto(nil, e)
				if err != nil {
					var ee *EncodeError
					require.ErrorAs(t, err, &ee)
					require.Contains(t, unprotobufable, v.Name, "event %d has no protobuf form: %v\n%s", i, err, raw)
					refused++
					continue
				}
				back, err := DecodeProto(b)
				require.NoError(t, err, "event %d: %s", i, raw)
				assert.Equal(t, canonical(e), canonical(back), "event %d: %s", i, raw)
				// What decoding the JSON tolerated with a warning (a dropped tag,
				// a legacy null, an unknown outcome) was removed from the event,
				// so its protobuf form carries none of it: no warning comes back
				// that the JSON did not give.
				assert.Subset(t, warningSet(e), warningSet(back), "event %d: %s", i, raw)
				again, err := AppendProto(nil, back)
				require.NoError(t, err)
				assert.Equal(t, b, again, "event %d: encoding is stable", i)
			}
			if _, ok := unprotobufable[v.Name]; ok {
				assert.NotZero(t, refused, "listed in unprotobufable but every event encodes")
			}
		})
	}
}

func warningSet(e Event) []string {
	var out []string
	for _, w := range e.Common().Warnings() {
		out = append(out, w.Rule+" "+w.Pointer)
	}
	return out
}

// TestProtoUnknownArm: an arm the schema lacks is skipped like an unknown
// JSON type.
func TestProtoUnknownArm(t *testing.T) {
	_, err := DecodeProto([]byte{0xfa, 0x02, 0x00}) // field 47, length-delimited, empty
	var ut *UnknownTypeError
	require.True(t, errors.As(err, &ut), "%v", err)
	assert.Equal(t, 47, ut.Arm)
}
