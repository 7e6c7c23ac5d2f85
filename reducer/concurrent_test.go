package reducer_test

import (
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestConcurrentBranches folds continuations of the same published views
// from several goroutines at once, while another reads every view (run it
// with -race): branches share text buffers, tables and nodes with the views
// they start from, and each must still reach the result of folding from
// scratch, with no published view changing meanwhile.
func TestConcurrentBranches(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		evs := genStream(t)
		views := []*view.View{view.New()}
		v := views[0]
		for _, e := range evs {
			v, _ = reducer.Fold(v, e)
			views = append(views, v)
		}
		final := marshal(t, v)
		recorded := make([]string, len(views))
		for i, w := range views {
			recorded[i] = marshal(t, w)
		}
		branches := rapid.SliceOfN(rapid.IntRange(0, len(evs)), 2, 4).Draw(t, "branches")
		var wg sync.WaitGroup
		results := make([]string, len(branches))
		others := make([]*view.View, len(branches))
		for k, b := range branches {
			wg.Go(func() {
				// Another continuation first (the suffix reversed, partly
				// refused), then the real one.
				w := views[b]
				for i := len(evs) - 1; i >= b; i-- {
					w, _ = reducer.Fold(w, evs[i])
				}
				others[k] = w
				u := views[b]
				for _, e := range evs[b:] {
					u, _ = reducer.Fold(u, e)
				}
				b, err := u.MarshalJSON()
				if err != nil {
					results[k] = "error: " + err.Error()
					return
				}
				results[k] = string(b)
			})
		}
		wg.Go(func() {
			for _, w := range views {
				_, _ = w.MarshalJSON()
				for inv := range w.Invocations() {
					for m := range inv.Messages() {
						_ = m.Content
					}
				}
			}
		})
		wg.Wait()
		for k, got := range results {
			if got != final {
				t.Fatalf("branch from %d folded concurrently differs from folding from scratch:\n%s\n%s", branches[k], got, final)
			}
			_ = marshal(t, others[k])
		}
		for i, w := range views {
			if got := marshal(t, w); got != recorded[i] {
				t.Fatalf("view %d changed after it was published", i)
			}
		}
	})
}
