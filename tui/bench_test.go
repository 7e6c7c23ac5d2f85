package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// BenchmarkFrame measures one frame while the eight-researcher swarm
// streams: the model is handed the view after each next event (as if every
// frame brought one event) and lays the screen out. Panes whose invocation
// did not change come from the cache.
func BenchmarkFrame(b *testing.B) {
	for _, bc := range []struct {
		name string
		keys []string
	}{{"collapsed", nil}, {"expanded", []string{"a"}}} {
		b.Run(bc.name, func(b *testing.B) {
			evs := events(b, "swarm-7")
			views := make([]*view.View, 0, len(evs))
			v := view.New()
			for _, e := range evs {
				v, _ = reducer.Fold(v, e)
				views = append(views, v)
			}
			m := New(nil, nil)
			m.Update(tea.WindowSizeMsg{Width: 140, Height: 50})
			keys(m, bc.keys...)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				m.Update(Frame{View: views[i%len(views)]})
			}
		})
	}
}

// BenchmarkLines measures Lines' diff of one view against the last one.
func BenchmarkLines(b *testing.B) {
	evs := events(b, "swarm-7")
	views := make([]*view.View, 0, len(evs))
	v := view.New()
	for _, e := range evs {
		v, _ = reducer.Fold(v, e)
		views = append(views, v)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var p *printer
	for i := 0; b.Loop(); i++ {
		if i%len(views) == 0 {
			p = &printer{w: discard{}, calls: map[string]callSeen{}}
		}
		p.diff(views[i%len(views)])
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
