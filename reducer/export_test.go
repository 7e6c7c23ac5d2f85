package reducer

import (
	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// InputBySnapshot is Input always folding the history as a snapshot, for
// tests that compare it with the path that appends only new messages.
func InputBySnapshot(v *view.View, in *event.RunAgentInput) (*view.View, error) {
	return input(v, in, false)
}
