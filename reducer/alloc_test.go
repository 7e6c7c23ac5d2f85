package reducer_test

import (
	"fmt"
	"testing"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestFoldAllocations bounds the allocations of folding a stream of short
// messages (start, one delta, end), through Fold and through a Builder. The
// bounds are today's counts: a change that makes a fold allocate more (the
// folder escaping to the heap through an indirect call or a range-over-func
// body, a message written back by copying its vector's tail) fails here
// rather than only in a benchmark's figures. Every event allocates its view
// and, when it changes a subagent's node, a hot group; a Builder allocates
// no view for a message's first delta (it remembers where a message it
// opened lives).
func TestFoldAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations")
	}
	const n = 64
	evs := []event.Event{&event.RunStarted{ThreadID: "t", RunID: "r"}}
	for i := range n {
		id := fmt.Sprintf("m%d", i)
		evs = append(evs,
			&event.TextMessageStart{MessageID: id},
			&event.TextMessageContent{MessageID: id, Delta: "a short message of some sixty characters, as a thread has"},
			&event.TextMessageEnd{MessageID: id})
	}
	for _, tc := range []struct {
		name string
		fold func() error
		// max bounds the allocations per message; maxRace under the race
		// detector, whose instrumentation allocates too.
		max, maxRace float64
	}{
		{"Fold", func() error {
			v := view.New()
			for _, e := range evs {
				var err error
				if v, err = reducer.Fold(v, e); err != nil {
					return err
				}
			}
			return nil
		}, 15.6, 16.6},
		{"Builder", func() error {
			b := reducer.NewBuilder(view.New())
			for _, e := range evs {
				if err := b.Fold(e); err != nil {
					return err
				}
			}
			return nil
		}, 13.6, 14.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			got := testing.AllocsPerRun(10, func() { err = tc.fold() }) / n
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %.2f allocations per message", tc.name, got)
			limit := tc.max
			if raceEnabled {
				limit = tc.maxRace
			}
			if got > limit {
				t.Errorf("%s allocates %.2f times per message, more than %.2f", tc.name, got, limit)
			}
		})
	}
}
