package event

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/agview/agview/internal/agpb"
	"github.com/agview/agview/internal/conformance"
)

// protoSeeds returns ag_ui.Event messages to start from: every frame the
// reference encoder recorded, and every conformance event AppendProto encodes.
func protoSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	bins, _ := filepath.Glob(filepath.Join("..", "testdata", "proto", "*.bin"))
	for _, bin := range bins {
		data, err := os.ReadFile(bin)
		require.NoError(tb, err)
		for len(data) >= 4 {
			n := int(data[0])<<24 | int(data[1])<<16 | int(data[2])<<8 | int(data[3])
			out = append(out, data[4:4+n])
			data = data[4+n:]
		}
	}
	vectors, err := conformance.Load()
	require.NoError(tb, err)
	for _, v := range vectors {
		for _, raw := range v.Events {
			if e, err := Decode(raw); err == nil {
				if b, err := AppendProto(nil, e); err == nil {
					out = append(out, b)
				}
			}
			if b, err := AppendProtoJSON(nil, raw); err == nil {
				out = append(out, b)
			}
		}
	}
	return out
}

// FuzzDecodeProto feeds DecodeProto arbitrary messages: frames of any
// length, fields of any wire type, nested messages and values. It checks
// that nothing panics; that the fast path and the general path agree; that a
// refusal names a field and an offset inside the message; that what decodes
// encodes again and decodes to the same event; and that whatever the
// generated code (internal/agpb) refuses as malformed, DecodeProto refuses
// too.
func FuzzDecodeProto(f *testing.F) {
	for _, s := range protoSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte{})
	f.Add([]byte{0x12, 0x00})
	f.Add([]byte{0xfa, 0x02, 0x00})
	f.Fuzz(func(t *testing.T, msg []byte) {
		e, err := DecodeProto(msg)
		if fe, ok := decodeProtoFast(msg); ok {
			ge, gerr := decodeProtoGeneral(msg)
			require.NoError(t, gerr, "the fast path accepted what the general path refuses")
			require.Equal(t, warningSet(ge), warningSet(fe))
			if !reflect.DeepEqual(ge, fe) { // exactly: raw values byte for byte
				t.Fatalf("the paths disagree on %x\nfast    %#v\ngeneral %#v", msg, fe, ge)
			}
		}
		js, jerr := ProtoJSON(msg)
		var de *DecodeError
		var ut *UnknownTypeError
		switch {
		case errors.As(err, &de):
			require.Nil(t, e)
			require.GreaterOrEqual(t, de.Offset, int64(0), "%v", de)
			require.LessOrEqual(t, de.Offset, int64(len(msg)), "%v", de)
			require.True(t, de.Pointer == "" || de.Pointer[0] == '/', "%v", de)
		case errors.As(err, &ut):
			require.NotZero(t, ut.Arm)
			require.ErrorAs(t, jerr, &ut)
		case err != nil:
			t.Fatalf("an error of type %T: %v", err, err)
		default:
			require.NoError(t, jerr, "ProtoJSON refuses what DecodeProto accepts")
			again, derr := Decode(js)
			require.NoError(t, derr, "ProtoJSON's form decodes: %s", js)
			require.Equal(t, canonical(e), canonical(again))
			b, err := AppendProto(nil, e)
			require.NoError(t, err, "a decoded event encodes")
			back, err := DecodeProto(b)
			require.NoError(t, err)
			require.Equal(t, canonical(e), canonical(back))
		}
		if len(msg) < 2048 && proto.Unmarshal(msg, &agpb.Event{}) != nil {
			require.Error(t, err, "the generated code refuses this message")
		}
	})
}

// TestProtoMatchesGeneratedCode checks AppendProto against the code
// protoc-gen-go generates from the shared schema (internal/agpb): every
// encoding of a conformance event parses with it, names the same arm, and,
// for the arms the shared schema defines, is what the generated code writes
// for the message it parsed (deterministic marshalling, which sorts Struct
// keys, so only where no Struct holds two keys or more).
func TestProtoMatchesGeneratedCode(t *testing.T) {
	vectors, err := conformance.Load()
	require.NoError(t, err)
	same, checked := 0, 0
	for _, v := range vectors {
		for _, raw := range v.Events {
			e, err := Decode(raw)
			if err != nil {
				continue
			}
			b, err := AppendProto(nil, e)
			if err != nil {
				continue
			}
			var m agpb.Event
			require.NoError(t, proto.Unmarshal(b, &m), "%s: %s", v.Name, raw)
			arm := armOf[e.EventType()]
			if arm > 21 {
				require.Nil(t, m.Event, "arm %d is not in the shared schema", arm)
				continue
			}
			require.NotNil(t, m.Event, "%s: %s", v.Name, raw)
			require.Equal(t, int(arm), int(m.ProtoReflect().WhichOneof(m.ProtoReflect().Descriptor().Oneofs().Get(0)).Number()))
			if len(m.ProtoReflect().GetUnknown()) > 0 || hasWideStruct(m.ProtoReflect()) {
				continue
			}
			again, err := proto.MarshalOptions{Deterministic: true}.Marshal(&m)
			require.NoError(t, err)
			checked++
			if assert.Equal(t, b, again, "%s: %s", v.Name, raw) {
				same++
			}
		}
	}
	require.Greater(t, checked, 1000)
	t.Logf("%d of %d encodings byte-identical to the generated code's", same, checked)
}

// hasWideStruct reports whether m holds a google.protobuf.Struct with two
// keys or more, or fields the generated code does not know.
func hasWideStruct(m protoreflect.Message) bool {
	wide := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			wide = wide || v.Map().Len() > 1
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				wide = wide || hasWideStruct(mv.Message())
				return !wide
			})
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len() && !wide; i++ {
				wide = hasWideStruct(v.List().Get(i).Message())
			}
		case fd.Message() != nil:
			wide = hasWideStruct(v.Message())
		}
		wide = wide || len(m.GetUnknown()) > 0
		return !wide
	})
	return wide
}
