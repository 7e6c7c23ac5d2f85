package reducer

import (
	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// InputBySnapshot is Input always folding the history as a snapshot, for
// tests that compare it with the path that appends only new messages.
func InputBySnapshot(v *view.View, in *event.RunAgentInput) (*view.View, error) {
	return input(v, in, false, false)
}

// LastResult is folder.lastResult for message holder of v: the tool
// result a TOOL_CALL_RESULT answering one of its calls walks from, and
// false when none (or no message holder lives in v).
func LastResult(v *view.View, holder string) (string, bool) {
	st := state(v)
	loc, ok := st.Cold.MsgLoc(holder)
	if !ok {
		return "", false
	}
	var f folder
	return f.lastResult(st.Node(loc.Inv).MsgAt(loc.Pos))
}

// FoldReplacingList is Fold with a MESSAGES_SNAPSHOT always rebuilding the
// list, even when it restates it, for tests that compare it with the path
// that keeps the held messages.
func FoldReplacingList(v *view.View, e event.Event) (*view.View, error) {
	nv, _ := next(v)
	f := newFolder(nv, e.EventType())
	f.replaceList = true
	if viol := f.fold(e); viol != nil {
		return record(v, viol), viol
	}
	return publish(nv), nil
}
