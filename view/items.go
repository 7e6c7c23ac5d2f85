package view

import "iter"

// ChangedMessageIDs iterates, in order, the ids of the invocation's messages
// that are new or changed since old, an earlier version of the same
// invocation (from a view this one was folded from; nil yields every
// message): what a front end redraws of the invocation's timeline. Like
// View.ChangedSince it compares stored versions by pointer (a message is
// never written once published), so it costs a pointer comparison per
// message; a message whose text is streaming is always yielded. A message
// whose status alone changed may not be (the view keeps statuses apart):
// read MessageStatus for the messages that were open.
func (i *Invocation) ChangedMessageIDs(old *Invocation) iter.Seq[string] {
	d := i.d()
	return func(yield func(string) bool) {
		n := d.NumMsgs()
		on := 0
		if old != nil {
			on = old.d().NumMsgs()
		}
		for pos := range n {
			m, streaming := d.Stored(pos)
			if m == nil {
				continue
			}
			if pos < on && !streaming {
				if om, ostreaming := old.d().Stored(pos); om == m && !ostreaming {
					continue
				}
			}
			if !yield(m.ID) {
				return
			}
		}
	}
}
