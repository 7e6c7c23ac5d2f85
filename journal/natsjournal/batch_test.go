package natsjournal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/journal"
)

func header(kv ...string) nats.Header {
	h := nats.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// TestParseBatch: a message's headers are checked against the records it
// holds; what claims more (or other) records than it carries is refused.
func TestParseBatch(t *testing.T) {
	line := `{"type":"CUSTOM"}` + "\n"
	for _, tc := range []struct {
		name string
		h    nats.Header
		data string
		want batch
		ok   bool
	}{
		{"two records", header(hdrSeq, "4", hdrCount, "2"), line + line, batch{first: 4, count: 2}, true},
		{"count over lines", header(hdrSeq, "1", hdrCount, "1000000000"), line, batch{}, false},
		{"lines over count", header(hdrSeq, "1", hdrCount, "1"), line + line, batch{}, false},
		{"no final line end", header(hdrSeq, "1", hdrCount, "1"), line + "x", batch{}, false},
		{"no headers", nil, line, batch{}, false},
		{"record 0", header(hdrSeq, "0", hdrCount, "1"), line, batch{}, false},
		{"first part", header(hdrSeq, "7", hdrCount, "1", hdrChunk, "1/3"), `{"type"`, batch{first: 7, count: 1, part: 1, parts: 3}, true},
		{"last part", header(hdrSeq, "7", hdrCount, "1", hdrChunk, "3/3"), `}` + "\n", batch{first: 7, count: 1, part: 3, parts: 3}, true},
		{"a part with a line end", header(hdrSeq, "7", hdrCount, "1", hdrChunk, "1/3"), line, batch{}, false},
		{"part over parts", header(hdrSeq, "7", hdrCount, "1", hdrChunk, "4/3"), "x", batch{}, false},
		{"one part", header(hdrSeq, "7", hdrCount, "1", hdrChunk, "1/1"), line, batch{}, false},
		{"parts of two records", header(hdrSeq, "7", hdrCount, "2", hdrChunk, "1/2"), "x", batch{}, false},
		{"a lost mark", header(hdrLost, "20"), "", batch{lost: 20}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := parseBatch(tc.h, []byte(tc.data))
			if !tc.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, b)
		})
	}
}

// FuzzParseBatch: parseBatch never panics, and what it accepts holds what
// its headers say.
func FuzzParseBatch(f *testing.F) {
	f.Add("1", "2", "", []byte("{}\n{}\n"))
	f.Add("5", "1", "2/3", []byte("abc"))
	f.Add("1", "1000000000", "", []byte("{}\n"))
	f.Fuzz(func(t *testing.T, seq, count, chunk string, data []byte) {
		h := header(hdrSeq, seq, hdrCount, count)
		if chunk != "" {
			h.Set(hdrChunk, chunk)
		}
		b, err := parseBatch(h, data)
		if err != nil {
			return
		}
		lines := uint64(bytes.Count(data, []byte{'\n'}))
		switch {
		case b.whole():
			require.Equal(t, b.count, lines)
		case b.part < b.parts:
			require.Zero(t, lines)
		default:
			require.Equal(t, uint64(1), lines)
		}
		require.Positive(t, b.first)
	})
}

// TestToken: every id journal.CheckID accepts has a token of at most 256
// characters that is a valid subject token and key, distinct ids have
// distinct tokens, and a plain token gives its id back.
func TestToken(t *testing.T) {
	seen := map[string]string{}
	for n := 1; n <= journal.MaxIDBytes; n++ {
		for _, id := range []string{strings.Repeat("a", n), strings.Repeat("é", n/2+1)[:n-n%2] + strings.Repeat("b", n%2)} {
			require.NoError(t, journal.CheckID("test", id))
			tok := token(id)
			require.LessOrEqual(t, len(tok), maxPlainToken, "id of %d bytes", n)
			require.NotContains(t, tok, ".", "one subject token")
			if prev, ok := seen[tok]; ok {
				require.Equal(t, prev, id, "two ids, one token")
			}
			seen[tok] = id
			if got, ok := plainID(tok); ok {
				assert.Equal(t, id, got)
			} else {
				assert.True(t, hashed(tok), "id of %d bytes", n)
				assert.Greater(t, len(id), 192)
			}
		}
	}
	got, ok := decodeID(encodeID(" a: b "))
	assert.True(t, ok)
	assert.Equal(t, " a: b ", got)
	assert.Len(t, token(strings.Repeat("x", 193)), 65, "= and a hex SHA-256")
}
