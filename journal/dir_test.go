package journal_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/journal"
	"github.com/agview/agview/journal/journaltest"
)

func TestDirContract(t *testing.T) {
	journaltest.Run(t, journaltest.Harness{
		New: func(t *testing.T) journal.Journal {
			d, err := journal.OpenDir(t.TempDir(), nil)
			require.NoError(t, err)
			return d
		},
		Peer: func(t *testing.T, j journal.Journal) journal.Journal {
			d, err := journal.OpenDir(j.(*journal.Dir).Path(), nil)
			require.NoError(t, err)
			return d
		},
	})
}
