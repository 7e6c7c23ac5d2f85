package journal_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/journal"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		dsn  string
		want any
		err  error
	}{
		{"memory", &journal.Memory{}, nil},
		{"file:" + filepath.Join(dir, "a"), &journal.Dir{}, nil},
		{"file://" + filepath.Join(dir, "b"), &journal.Dir{}, nil},
		{"file:", nil, journal.ErrInvalid},
		{"sqlite:x.db", nil, journal.ErrInvalid},
		{"", nil, journal.ErrInvalid},
		{"nats://127.0.0.1:1", nil, journal.ErrInvalid}, // no backend registered for nats: in this test binary
	} {
		t.Run(tc.dsn, func(t *testing.T) {
			j, err := journal.Open(t.Context(), tc.dsn, &journal.Options{Owner: "me"})
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				var je *journal.Error
				require.ErrorAs(t, err, &je)
				assert.Equal(t, "open", je.Op)
				return
			}
			require.NoError(t, err)
			defer j.Close()
			assert.IsType(t, tc.want, j)
			w, err := j.Begin(t.Context(), journal.Lease{Thread: "t", RunID: "r"})
			require.NoError(t, err)
			assert.Equal(t, "me", w.Lease().Owner, "the owner reaches the leases")
			require.NoError(t, w.End(t.Context()))
		})
	}
}
