package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
)

// TestPaneTreeBounds: a chain of subagents far deeper than maxPaneDepth, and
// an invocation spawning more than maxPaneChildren, get a bounded number of
// panes; the rest is counted under the last pane shown.
func TestPaneTreeBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		parentOf  func(i int) *string
		n         int
		panes     int
		hiddenAt  int // the pane that counts the rest
		hidden    int
		wantLines []string
	}{
		{
			name: "deep chain", n: 2000,
			parentOf: func(i int) *string {
				if i == 0 {
					return nil
				}
				return event.Ptr(fmt.Sprintf("sa%d", i-1))
			},
			panes: 1 + maxPaneDepth, hiddenAt: maxPaneDepth, hidden: 2000 - maxPaneDepth,
			wantLines: []string{"⋯ 1984 more nested subagents without a pane"},
		},
		{
			name: "wide fan-out", n: maxPaneChildren + 50,
			parentOf: func(int) *string { return event.Ptr("boss") },
			panes:    2 + maxPaneChildren, hiddenAt: 1, hidden: 50,
			wantLines: []string{"⋯ 50 more nested subagents without a pane"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			evs := []event.Event{&event.RunStarted{ThreadID: "t", RunID: "r"}}
			if tt.name == "wide fan-out" {
				evs = append(evs, &event.SubagentStarted{ID: "boss", Name: "boss"})
			}
			for i := range tt.n {
				evs = append(evs, &event.SubagentStarted{ID: fmt.Sprintf("sa%d", i), Name: "agent", ParentSubagentRunID: tt.parentOf(i)})
			}
			v := fold(t, false, evs...)
			ps := panes(v)
			require.Len(t, ps, tt.panes)
			total := 0
			for i, p := range ps {
				total += p.hidden
				if i == tt.hiddenAt {
					assert.Equal(t, tt.hidden, p.hidden, "pane %d counts what is cut", i)
				}
				assert.LessOrEqual(t, p.depth, maxPaneDepth)
			}
			assert.Equal(t, v.InvocationCount()+1, len(ps)+total, "every invocation has a pane or is counted")

			m := model(t, 100, 5*(tt.panes+2), v)
			s := screen(m)
			for _, l := range tt.wantLines {
				assert.Contains(t, s, l)
			}
			assert.Len(t, titleLines(s), tt.panes, "one title per pane")
		})
	}
}

// TestStateTreeWidthBound: an expanded container shows maxStateItems
// members, then counts the rest on one line.
func TestStateTreeWidthBound(t *testing.T) {
	t.Parallel()
	items := make([]string, maxStateItems+25)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	n, err := parseJSON([]byte(`{"wide":[` + strings.Join(items, ",") + `]}`))
	require.NoError(t, err)
	lines := flatten(n, nil)
	// {, "wide": [, the items shown, the count, ], }
	require.Len(t, lines, 2+maxStateItems+1+2)
	var last strings.Builder
	for _, r := range lines[len(lines)-3].runs {
		last.WriteString(r.text)
	}
	assert.Equal(t, "      ⋯ 25 more items (agview replay --json has them)", last.String())
}
