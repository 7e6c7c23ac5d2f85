package journal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oldFileName is fileName as it was before long ids were hashed: files it
// named must keep their names.
func oldFileName(thread string) string {
	ok := len(thread) <= 200 && thread != "" && thread[0] != '.'
	for i := 0; ok && i < len(thread); i++ {
		c := thread[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	if ok {
		return thread
	}
	return "~" + base64.RawURLEncoding.EncodeToString([]byte(thread))
}

func TestFileName(t *testing.T) {
	hash := func(id string) string {
		s := sha256.Sum256([]byte(id))
		return "#" + hex.EncodeToString(s[:])
	}
	for _, tc := range []struct {
		name, id, want string
	}{
		{"plain", "thread-1.a_b", "thread-1.a_b"},
		{"slash", "a/b", "~YS9i"},
		{"dot dot", "..", "~Li4"},
		{"leading dot", ".x", "~Lng"},
		{"longest plain", strings.Repeat("a", maxNameBytes), strings.Repeat("a", maxNameBytes)},
		{"plain one byte over", strings.Repeat("a", maxNameBytes+1), hash(strings.Repeat("a", maxNameBytes+1))},
		{"longest base64 (186 bytes, as before)", strings.Repeat("é", 93), oldFileName(strings.Repeat("é", 93))},
		{"187 bytes hashed", strings.Repeat("é", 93) + "/", hash(strings.Repeat("é", 93) + "/")},
		{"MaxIDBytes", strings.Repeat("/", MaxIDBytes), hash(strings.Repeat("/", MaxIDBytes))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fileName(tc.id)
			assert.Equal(t, tc.want, got)
			assert.LessOrEqual(t, len(got)+len(".jsonl"), 255, "fits NAME_MAX with its longest suffix")
			if !hashed(got) {
				back, ok := threadName(got)
				assert.True(t, ok)
				assert.Equal(t, tc.id, back)
			}
		})
	}
}

// TestFileNameKeepsOldNames: every id whose file the previous scheme could
// create (a name within NAME_MAX) has the same name today, so journals
// written before stay readable.
func TestFileNameKeepsOldNames(t *testing.T) {
	for n := 1; n <= MaxIDBytes; n++ {
		for _, id := range []string{strings.Repeat("a", n), strings.Repeat("a/", n)[:n], strings.Repeat("é", n)[:n]} {
			if old := oldFileName(id); len(old)+len(".jsonl") <= 255 {
				require.Equal(t, old, fileName(id), "id of %d bytes", n)
			}
		}
	}
}

// FuzzFileName: every id CheckID accepts has one base name that fits a
// file name, is no path and reads back as the id (hashed names through their
// id file).
func FuzzFileName(f *testing.F) {
	for _, s := range []string{"t1", "a/b", "..", ".", "~x", "#", strings.Repeat("é", 200), "x.jsonl"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if CheckID("fuzz", id) != nil {
			return
		}
		name := fileName(id)
		if len(name) > maxNameBytes || name == "" || name[0] == '.' || strings.ContainsAny(name, "/\x00") {
			t.Fatalf("id %q: bad name %q", id, name)
		}
		if hashed(name) {
			if len(name) != 65 {
				t.Fatalf("id %q: hashed name %q", id, name)
			}
			return
		}
		back, ok := threadName(name)
		if !ok || back != id {
			t.Fatalf("id %q: name %q reads back as %q, %v", id, name, back, ok)
		}
	})
}

// FuzzLineReader checks lineReader against splitting on '\n': every
// complete line within the limit as it is, every longer one as
// errLineTooLong with its length, and the unterminated tail's length at the
// end.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint16(2))
	f.Add(bytes.Repeat([]byte("x"), 300<<10), uint16(100))
	f.Add([]byte("\n\n\n"), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, max uint16) {
		var l lineReader
		l.reset(bytes.NewReader(data), int(max))
		parts := bytes.Split(data, []byte{'\n'})
		for i, want := range parts {
			line, n, err := l.next()
			if i == len(parts)-1 {
				if err != io.EOF || n != int64(len(want)) {
					t.Fatalf("tail: %q %d %v, want EOF and %d", line, n, err, len(want))
				}
				return
			}
			if n != int64(len(want)) {
				t.Fatalf("line %d: length %d, want %d", i, n, len(want))
			}
			if len(want) > int(max) {
				if err != errLineTooLong {
					t.Fatalf("line %d of %d bytes over %d: %v", i, len(want), max, err)
				}
				continue
			}
			if err != nil || !bytes.Equal(line, want) {
				t.Fatalf("line %d: %q %v, want %q", i, line, err, want)
			}
		}
	})
}

// TestMemoryReadersAddNothing: reading, following, stating or stopping
// threads that do not exist adds nothing to a memory journal.
func TestMemoryReadersAddNothing(t *testing.T) {
	m := NewMemory("")
	defer m.Close()
	for i := range 1000 {
		id := "nobody-" + strings.Repeat("x", i%50) + string(rune('a'+i%26))
		for range m.Read(t.Context(), id, 1) {
		}
		_, _ = m.Stat(t.Context(), id)
		_, _ = m.Stop(t.Context(), id)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	for range m.Follow(ctx, "nobody-follows", 1) {
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	assert.Empty(t, m.threads, "no thread added by readers")
}
