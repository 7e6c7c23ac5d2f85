package event

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceRecordings returns the streams testdata/proto/make.mjs recorded
// with the reference encoder: name → (the frames' messages, the events'
// JSON lines).
func referenceRecordings(t *testing.T) map[string][2][][]byte {
	bins, err := filepath.Glob(filepath.Join("..", "testdata", "proto", "*.bin"))
	require.NoError(t, err)
	require.NotEmpty(t, bins)
	out := map[string][2][][]byte{}
	for _, bin := range bins {
		name := strings.TrimSuffix(filepath.Base(bin), ".bin")
		data, err := os.ReadFile(bin)
		require.NoError(t, err)
		var frames [][]byte
		for len(data) > 0 {
			require.GreaterOrEqual(t, len(data), 4, "%s: a whole length prefix", name)
			n := binary.BigEndian.Uint32(data)
			require.GreaterOrEqual(t, uint64(len(data)-4), uint64(n), "%s: a whole frame", name)
			frames = append(frames, data[4:4+n])
			data = data[4+n:]
		}
		f, err := os.Open(strings.TrimSuffix(bin, ".bin") + ".jsonl")
		require.NoError(t, err)
		var lines [][]byte
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
		f.Close()
		require.NoError(t, sc.Err())
		require.Len(t, frames, len(lines), "%s: one frame per event", name)
		out[name] = [2][][]byte{frames, lines}
	}
	return out
}

// TestProtoReferenceInterop decodes the streams the reference encoder
// (@ag-ui/encoder@1.0.0) recorded: each frame decodes to the event its JSON
// decodes to, and AppendProto writes, for that event, the very bytes the
// reference wrote. Byte identity implies that each side's decoder reads the
// other's frames as its own.
func TestProtoReferenceInterop(t *testing.T) {
	recs := referenceRecordings(t)
	for name, rec := range recs {
		t.Run(name, func(t *testing.T) {
			frames, lines := rec[0], rec[1]
			for i := range frames {
				want, err := Decode(lines[i])
				require.NoError(t, err, "event %d: %s", i, lines[i])
				got, err := DecodeProto(frames[i])
				require.NoError(t, err, "frame %d (%s)", i, lines[i])
				assert.Equal(t, canonical(want), canonical(got), "frame %d: %s", i, lines[i])
				ours, err := AppendProto(nil, want)
				require.NoError(t, err, "event %d", i)
				assert.Equal(t, frames[i], ours, "event %d: our encoding is the reference's byte for byte: %s", i, lines[i])
			}
		})
	}
}
