package reducer_test

import (
	"testing"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestFoldAllocations bounds the allocations of folding one event through
// the full path. The bound is today's count: a change that makes a fold
// allocate more (the folder escaping to the heap through an indirect call
// or a range-over-func body, say) fails here rather than only in a
// benchmark's figures.
func TestFoldAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations")
	}
	v := view.New()
	for _, e := range []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r"},
		&event.TextMessageStart{MessageID: "m1"},
		&event.TextMessageContent{MessageID: "m1", Delta: "hello"},
	} {
		var err error
		if v, err = reducer.Fold(v, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		e    event.Event
		max  float64
	}{
		{"TEXT_MESSAGE_END", &event.TextMessageEnd{MessageID: "m1"}, 5},
		{"TEXT_MESSAGE_START", &event.TextMessageStart{MessageID: "m2"}, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := testing.AllocsPerRun(50, func() {
				if _, err := reducer.Fold(v, tc.e); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("%s: %.0f allocations", tc.name, got)
			if got > tc.max {
				t.Errorf("folding %s allocates %.0f times, more than %.0f", tc.name, got, tc.max)
			}
		})
	}
}
