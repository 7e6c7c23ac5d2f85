package reducer

import (
	"encoding/json"
	"testing"
)

// FuzzPlainString checks plainString, the shortcut content takes for JSON
// strings that need no decoding, against encoding/json: whenever it answers,
// encoding/json decodes the same literal to the same string.
func FuzzPlainString(f *testing.F) {
	for _, s := range []string{`"plain"`, `""`, `"caf\u00e9"`, `"a\nb"`, "\"caf\xc3\xa9\"", "\"bad\xff\"", `"tab	in"`, `"unterminated`, `"q"q"`, `x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := plainString(raw)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("plainString accepted %q, which encoding/json refuses: %v", raw, err)
		}
		if got != want {
			t.Fatalf("plainString(%q) = %q, encoding/json gives %q", raw, got, want)
		}
	})
}
