package wire_test

import (
	"testing"

	"github.com/agview/agview/internal/wire"
)

// BenchmarkScanString scans string literals like a thread's message text
// (ASCII, 60 to 100 bytes), text with escapes, and CJK text, with
// ScanString and with the byte-at-a-time reference, in the same run.
func BenchmarkScanString(b *testing.B) {
	for _, tc := range []struct{ name, lit string }{
		{"ascii", `"the bus fleet depot charger winter range battery grid route driver cost plan city budget"`},
		{"escapes", `"{\"q\":\"9\",\"path\":\"/a/b\"}\n\tthe bus fleet depot charger winter range \u00e9"`},
		{"cjk", `"漢字の文章はバスの車両基地と充電器について説明しています漢字の文章は"`},
	} {
		data := []byte(tc.lit)
		for _, impl := range []struct {
			name string
			scan func([]byte, int) (wire.Str, bool)
		}{{"words", wire.ScanString}, {"bytes", scanStringRef}} {
			b.Run(tc.name+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if _, ok := impl.scan(data, 0); !ok {
						b.Fatal("not a string")
					}
				}
			})
		}
	}
}
