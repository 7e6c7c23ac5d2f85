package wire_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/wire"
)

func TestAppendUnescaped(t *testing.T) {
	for _, body := range []string{
		``, `plain`, `\"\\\/\b\f\n\r\t`, `a\u00e9b\u4e2dc`, `\u0000\u001f`, `mixed \n and \u20ac end`, `\uffff`,
	} {
		got, ok := wire.AppendUnescaped([]byte("pre:"), []byte(body))
		require.True(t, ok, body)
		var want string
		require.NoError(t, json.Unmarshal([]byte(`"`+body+`"`), &want))
		assert.Equal(t, "pre:"+want, string(got), body)
	}
	for _, body := range []string{`\ud83d\ude00`, `\ud83d`, `x\udfff`} {
		_, ok := wire.AppendUnescaped(nil, []byte(body))
		assert.False(t, ok, "surrogates are left to encoding/json: %s", body)
	}
}

// FuzzAppendUnescaped checks the decoding against encoding/json for every
// string literal body encoding/json accepts and pairs no surrogate in.
func FuzzAppendUnescaped(f *testing.F) {
	f.Add(`a\n\u00e9`)
	f.Fuzz(func(t *testing.T, body string) {
		var want string
		if !utf8.ValidString(body) || json.Unmarshal([]byte(`"`+body+`"`), &want) != nil {
			return // the scanner passes only valid UTF-8 literal bodies
		}
		got, ok := wire.AppendUnescaped(nil, []byte(body))
		if ok && string(got) != want {
			t.Fatalf("%q: got %q, want %q", body, got, want)
		}
	})
}
