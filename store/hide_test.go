package store_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/store"
	"github.com/agview/agview/transform"
)

// TestHideSubagentsForwards: the deprecated store functions give what the
// transform functions they forward to give.
func TestHideSubagentsForwards(t *testing.T) {
	t.Parallel()
	events := agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 7})
	seq := func(yield func(event.Event, error) bool) {
		for _, e := range events {
			if !yield(e, nil) {
				return
			}
		}
	}
	encode := func(s func(func(event.Event, error) bool)) []string {
		var out []string
		for e, err := range s {
			assert.NoError(t, err)
			b, err := event.Encode(e)
			assert.NoError(t, err)
			out = append(out, string(b))
		}
		return out
	}
	want := encode(transform.HideSubagents(seq))
	assert.NotEmpty(t, want)
	assert.Equal(t, want, encode(store.HideSubagents(seq)))
	for _, e := range events {
		w, wk := transform.Strip(e)
		g, gk := store.StripSubagents(e)
		assert.Equal(t, wk, gk)
		assert.Equal(t, w, g)
	}
}
