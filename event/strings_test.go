package event

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStringsExact is G19 at the decoder: strings are decoded exactly. Lone
// surrogate escapes and bytes that are not UTF-8 are kept (encoding/json
// would make all of the ids below "m\ufffd"), a pair is its character, and
// Encode writes each back as it came.
func TestStringsExact(t *testing.T) {
	for _, tc := range []struct {
		name, in, id, wire string
	}{
		{"lone high", `m\ud800`, "m\xed\xa0\x80", `m\ud800`},
		{"lone high, other", `m\udbff`, "m\xed\xaf\xbf", `m\udbff`},
		{"lone low", `m\udc00`, "m\xed\xb0\x80", `m\udc00`},
		{"U+FFFD itself", `m\ufffd`, "m\ufffd", "m\ufffd"},
		{"pair", `m\ud83d\ude00`, "m😀", "m😀"},
		{"not UTF-8", "m\xff", "m\xff", "m\xff"},
		{"not UTF-8, other", "m\xfe", "m\xfe", "m\xfe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, typ := range []string{"TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_START"} {
				line := `{"type":"` + typ + `","messageId":"` + tc.in + `","delta":"` + tc.in + `"}`
				e, err := Decode([]byte(line))
				require.NoError(t, err)
				var id string
				switch e := e.(type) {
				case *TextMessageContent:
					id = e.MessageID
					assert.Equal(t, tc.id, e.Delta)
				case *TextMessageStart:
					id = e.MessageID
				}
				assert.Equal(t, tc.id, id, "%s id", typ)
				out, err := Encode(e)
				require.NoError(t, err)
				assert.Contains(t, string(out), `"messageId":"`+tc.wire+`"`)
			}
		})
	}
}
