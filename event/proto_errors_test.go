package event

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

// pb builds protobuf messages for tests: each call appends one field.
type pb []byte

func (b pb) bytes(n protowire.Number, v []byte) pb {
	return protowire.AppendBytes(protowire.AppendTag(b, n, protowire.BytesType), v)
}
func (b pb) str(n protowire.Number, s string) pb { return b.bytes(n, []byte(s)) }
func (b pb) varint(n protowire.Number, v uint64) pb {
	return protowire.AppendVarint(protowire.AppendTag(b, n, protowire.VarintType), v)
}
func (b pb) fixed64(n protowire.Number, v uint64) pb {
	return protowire.AppendFixed64(protowire.AppendTag(b, n, protowire.Fixed64Type), v)
}
func (b pb) msg(n protowire.Number, m pb) pb { return b.bytes(n, m) }

// base is a base_event holding the type enum.
func base(enum uint64) pb { return pb{}.varint(1, enum) }

// TestDecodeProtoErrors: what DecodeProto refuses, with the JSON pointer of
// the field and the byte offset in the message where the field starts; where
// the JSON form of the same event exists, Decode refuses it with the same
// pointer and rule.
func TestDecodeProtoErrors(t *testing.T) {
	deep := pb{}.varint(1, 0) // null
	for range maxProtoDepth {
		deep = pb{}.msg(6, pb{}.msg(1, deep)) // [ deep ]
	}
	tests := []struct {
		name   string
		msg    pb
		typ    Type
		ptr    string
		offset int64 // -1: not checked
		rule   string
		json   string // the same event's JSON, refused the same way; "" for none
	}{
		{"missing snapshot", pb{}.msg(7, pb{}.msg(1, base(6))), TypeStateSnapshot, "/snapshot", 0, RuleSchema,
			`{"type":"STATE_SNAPSHOT"}`},
		{"missing raw event", pb{}.msg(10, pb{}.str(3, "openai")), TypeRaw, "/event", 0, RuleSchema,
			`{"type":"RAW","source":"openai"}`},
		{"missing custom value", pb{}.msg(11, pb{}.str(2, "ping")), TypeCustom, "/value", 0, RuleSchema,
			`{"type":"CUSTOM","name":"ping"}`},
		{"tool role on text start", pb{}.msg(1, pb{}.str(2, "m").str(3, "tool")), TypeTextMessageStart, "/role", 5, RuleSchema,
			`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}`},
		{"unsafe timestamp", pb{}.msg(3, pb{}.msg(1, pb{}.varint(1, 2).varint(2, 1<<60)).str(2, "m")), TypeTextMessageEnd,
			"/timestamp", 6, RuleSchema, `{"type":"TEXT_MESSAGE_END","timestamp":1152921504606846976,"messageId":"m"}`},
		{"interrupt outcome without interrupts", pb{}.msg(13, pb{}.str(2, "t").str(3, "r").str(5, "interrupt")), TypeRunFinished,
			"/outcome/interrupts", -1, RuleSchema, `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}`},
		{"unknown event type enum", pb{}.msg(2, pb{}.msg(1, base(99)).str(2, "m")), TypeTextMessageContent, "/type", 4, RuleSchema, ""},
		{"type enum of another arm", pb{}.msg(2, pb{}.msg(1, base(3))), TypeTextMessageContent, "/type", 4, RuleSchema, ""},
		{"unknown patch op", pb{}.msg(8, pb{}.msg(2, pb{}.varint(1, 9).str(2, "/a"))), TypeStateDelta, "/delta/0/op", 4, RuleSchema, ""},
		{"no arm", pb{}, "", "/type", 0, RuleSchema, ""},
		{"value without kind", pb{}.msg(7, pb{}.msg(2, pb{})), TypeStateSnapshot, "/snapshot", 2, RuleSchema, ""},
		{"NaN", pb{}.msg(7, pb{}.msg(2, pb{}.fixed64(2, math.Float64bits(math.NaN())))), TypeStateSnapshot, "/snapshot", 4, RuleSchema, ""},
		{"struct entry without value", pb{}.msg(7, pb{}.msg(2, pb{}.msg(5, pb{}.msg(1, pb{}.str(1, "k"))))), TypeStateSnapshot,
			"/snapshot/k", 6, RuleSchema, ""},
		{"string not UTF-8", pb{}.msg(2, pb{}.str(2, "\xff")), TypeTextMessageContent, "/messageId", 2, RuleSchema, ""},
		{"wrong wire type", pb{}.msg(2, pb{}.varint(2, 1)), TypeTextMessageContent, "/messageId", 2, RuleSchema, ""},
		{"truncated arm", pb{0x12, 0x05, 0x12}, "", "", 0, RuleSchema, ""},
		{"truncated field", pb{}.msg(2, pb{0x12, 0x09, 'a'}), TypeTextMessageContent, "", 2, RuleSchema, ""},
		{"both content forms", pb{}.msg(9, pb{}.msg(2, pb{}.str(1, "u").str(2, "user").str(3, "hi").msg(8, pb{}.msg(1, pb{}.str(1, "x"))))),
			TypeMessagesSnapshot, "/messages/0/content", 13, RuleSchema, ""},
		{"parts on an assistant message", pb{}.msg(9, pb{}.msg(2, pb{}.str(1, "a").str(2, "assistant").msg(8, pb{}.msg(1, pb{}.str(1, "x"))))),
			TypeMessagesSnapshot, "/messages/0/content", 18, RuleSchema, ""},
		{"nested too deep", pb{}.msg(7, pb{}.msg(2, deep)), TypeStateSnapshot, "", -1, RuleSchema, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := DecodeProto(tt.msg)
			assert.Nil(t, e)
			var de *DecodeError
			require.True(t, errors.As(err, &de), "want a *DecodeError, got %v", err)
			assert.Equal(t, tt.typ, de.Type, "%v", de)
			if tt.name != "nested too deep" {
				assert.Equal(t, tt.ptr, de.Pointer, "%v", de)
			} else {
				assert.Contains(t, de.Reason, "deeper than 10000")
			}
			if tt.offset >= 0 {
				assert.Equal(t, tt.offset, de.Offset, "%v", de)
			}
			assert.Equal(t, tt.rule, de.Rule)
			if tt.json != "" {
				_, jerr := Decode([]byte(tt.json))
				var je *DecodeError
				require.True(t, errors.As(jerr, &je), "the JSON form is refused too: %v", jerr)
				assert.Equal(t, je.Pointer, de.Pointer, "the same field is named")
				assert.Equal(t, je.Rule, de.Rule)
				assert.Equal(t, je.Type, de.Type)
			}
		})
	}
}

// TestDecodeProtoTolerates: what DecodeProto accepts as the JSON decoder
// does, warnings included.
func TestDecodeProtoTolerates(t *testing.T) {
	// An unknown field, a legacy null result (E4), an unknown outcome type
	// (E2), an unknown content part arm (dropped).
	msg := pb{}.msg(13, pb{}.str(2, "t").str(3, "r").msg(4, pb{}.varint(1, 0)).str(5, "later").varint(99, 1))
	e, err := DecodeProto(msg)
	require.NoError(t, err)
	rf := e.(*RunFinished)
	assert.Nil(t, rf.Outcome)
	assert.Nil(t, rf.Result)
	assert.Equal(t, []string{"E4 /result", "E2 /outcome"}, warningSet(e))

	msg = pb{}.msg(22, pb{}.str(3, "t1").str(4, "tc1").msg(7, pb{}.msg(9, pb{})).msg(7, pb{}.msg(1, pb{}.str(1, "ok"))))
	e, err = DecodeProto(msg)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"ok"}]`, string(e.(*ToolCallResult).Content))

	_, err = DecodeProto(pb{}.msg(2047, nil))
	var ut *UnknownTypeError
	require.ErrorAs(t, err, &ut)
	assert.Equal(t, 2047, ut.Arm)
	assert.Equal(t, "event: unknown protobuf event (ag_ui.Event field 2047): skipped", ut.Error())
}
