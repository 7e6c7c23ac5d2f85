package journal_test

import (
	"testing"

	"github.com/agview/agview/journal"
	"github.com/agview/agview/journal/journaltest"
)

func TestMemoryContract(t *testing.T) {
	journaltest.Run(t, journaltest.Harness{
		New: func(t *testing.T) journal.Journal { return journal.NewMemory("") },
	})
}
