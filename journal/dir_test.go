package journal_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/journal"
	"github.com/agview/agview/journal/journaltest"
)

func TestDirContract(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *journal.DirOptions
	}{
		{"defaults", nil},
		{"sync", &journal.DirOptions{Sync: true, Poll: 5 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			journaltest.Run(t, journaltest.Harness{
				New: func(t *testing.T) journal.Journal {
					d, err := journal.OpenDir(t.TempDir(), tc.opts)
					require.NoError(t, err)
					return d
				},
				Peer: func(t *testing.T, j journal.Journal) journal.Journal {
					d, err := journal.OpenDir(j.(*journal.Dir).Path(), tc.opts)
					require.NoError(t, err)
					return d
				},
			})
		})
	}
}
