package event

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// normalize returns a deep copy of e with its warnings cleared and every raw
// JSON value compacted, for comparing events whose raw values may differ
// only in formatting.
func normalize(e Event) Event {
	v := reflect.New(reflect.TypeOf(e).Elem())
	v.Elem().Set(reflect.ValueOf(e).Elem())
	c := v.Interface().(Event)
	c.Common().warnings = nil
	compactRaw(v.Elem())
	return c
}

var rawType = reflect.TypeFor[json.RawMessage]()

func compactRaw(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			n := reflect.New(v.Type().Elem())
			n.Elem().Set(v.Elem())
			compactRaw(n.Elem())
			v.Set(n)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				compactRaw(f)
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		if v.Type() == rawType {
			var b bytes.Buffer
			if json.Compact(&b, v.Bytes()) == nil {
				v.SetBytes(b.Bytes())
			}
			return
		}
		n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(n, v)
		for i := 0; i < n.Len(); i++ {
			compactRaw(n.Index(i))
		}
		v.Set(n)
	}
}

// assertRoundTrip checks that e encodes, that the encoding decodes to an
// equal event, and that encoding that again gives the same bytes.
func assertRoundTrip(t *testing.T, e Event) {
	t.Helper()
	b, err := Encode(e)
	require.NoError(t, err, "%T must encode", e)
	require.True(t, json.Valid(b), "Encode writes valid JSON: %s", b)
	require.True(t, bytes.HasPrefix(b, []byte(`{"type":"`+string(e.EventType())+`"`)), "type first: %s", b)
	back, err := Decode(b)
	require.NoError(t, err, "the encoding of %T must decode: %s", e, b)
	assert.Equal(t, normalize(e), normalize(back), "decode(encode(e)) == e for %s", b)
	again, err := Encode(back)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(again), "encoding is stable")
}
