package transform_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agview/agview/internal/conformance"
)

// FuzzHideSubagents: for any JSON Lines stream the reducer accepts whole,
// expanding its chunks changes nothing a consumer sees, and hiding its
// subagents gives a stream an old peer accepts with the same messages and
// state but for attribution (checkOldPeer).
func FuzzHideSubagents(f *testing.F) {
	vecs, err := conformance.Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, v := range vecs {
		if v.Accept() {
			f.Add(v.JSONL())
		}
	}
	for seed := range uint64(4) {
		raws, _ := swarm(seed)
		f.Add(bytes.Join(func() [][]byte {
			out := make([][]byte, len(raws))
			for i, r := range raws {
				out[i] = r
			}
			return out
		}(), []byte("\n")))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var raws []json.RawMessage
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				raws = append(raws, json.RawMessage(line))
			}
		}
		if len(raws) > 200 {
			return
		}
		orig, viols := read(t, source(raws))
		if len(viols) > 0 || orig.ViolationCount() > 0 {
			return // the properties are about streams the reducer accepts
		}
		expanded, viols := read(t, transformExpand(raws))
		if len(viols) > 0 {
			t.Fatalf("the expanded stream is refused: %v", viols)
		}
		if a, b := mustJSON(t, messages(t, orig, false)), mustJSON(t, messages(t, expanded, false)); a != b {
			t.Fatalf("expanding chunks changed the messages:\n%s\n%s", a, b)
		}
		checkOldPeer(t, "fuzz", raws)
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
