package model

import "github.com/agview/agview/internal/persist"

// What keeps a fold of a streamed event cheap: the hot groups of recently
// changed invocation nodes, and a node's hot message (the one being changed,
// held out of the node's message vector until another is).

const (
	hotGroups = 4
	hotGroup8 = 8
	hotInvs   = hotGroups * hotGroup8
)

type hotGroup [hotGroup8]*Inv

func (s *State) hotAt(key int) *Inv {
	slot := key % hotInvs
	if g := s.hot[slot/hotGroup8]; g != nil {
		if h := g[slot%hotGroup8]; h != nil && int(h.d.Key) == key {
			return h
		}
	}
	return nil
}

// SetInvs stores the nodes ns (each under its Key); s must be a private
// copy. A node that leaves the hot groups is written back to the rest of
// the cold part: rest returns it as a private copy (copying it on first
// use), and is called only then.
func (s *State) SetInvs(rest func() *Rest, ns ...*Inv) {
	var copied [hotGroups]bool
	for _, n := range ns {
		key := int(n.d.Key)
		slot := key % hotInvs
		gi := slot / hotGroup8
		if !copied[gi] {
			g := new(hotGroup)
			if s.hot[gi] != nil {
				*g = *s.hot[gi]
			}
			s.hot[gi] = g
			copied[gi] = true
		}
		p := &s.hot[gi][slot%hotGroup8]
		if h := *p; h != nil && h.d.Key != n.d.Key {
			r := rest()
			r.invs = r.invs.Set(int(h.d.Key), h)
		}
		*p = n
	}
}

// hasHot reports whether a message is hot.
func (d *InvData) hasHot() bool { return d.hot != nil || d.textHot }

// stored returns the latest stored version of message pos, without the
// streamed text a hot message may have on top.
func (d *InvData) stored(pos int) *Msg {
	if d.hot != nil && int(d.HotPos) == pos {
		return d.hot
	}
	return d.Msgs.At(pos)
}

// setMsg stores m at position pos of d's message vector: by an append when
// pos is the pending hot message's (see InvData), which it then no longer is.
func (d *InvData) setMsg(pos int, m *Msg) {
	var v persist.Vector[*Msg]
	if d.pending && int(d.HotPos) == pos {
		if d.Msgs != nil {
			v = *d.Msgs
		}
		v = v.Append(m)
		d.pending = false
	} else {
		v = d.Msgs.Set(pos, m)
	}
	d.Msgs = &v
}

// writeBack stores the hot message into the vector; d has one.
func (d *InvData) writeBack() {
	pos := int(d.HotPos)
	m := d.stored(pos)
	if d.textHot {
		c := *m
		c.Text, c.HasText = d.hotText, true
		m = &c
	}
	d.setMsg(pos, m)
	d.hot, d.textHot, d.hotText = nil, false, persist.Text{}
}

// SetMsg stores a copy of m (nil: a hole) at position pos of the node's
// messages; i must not be published yet. The copy becomes the node's hot
// message, so that a run of changes to one message allocates one message
// each and copies no vector path; the previous hot message, if another, is
// written back to the vector.
func (i *Inv) SetMsg(pos int, m *Msg) {
	d := &i.d
	if d.hasHot() && int(d.HotPos) != pos {
		d.writeBack()
	}
	d.textHot, d.hotText = false, persist.Text{}
	if m == nil {
		d.hot = nil
		d.setMsg(pos, nil)
		return
	}
	c := *m
	d.hot, d.HotPos = &c, int32(pos)
}

// HotMsg returns the node's hot message and its position when one is hot
// and its content is not streaming text (see InvData): the message stored
// last with SetMsg. Clone shares it: a clone's hot message may be reachable
// from the node it was cloned from, and so from published views.
func (d *InvData) HotMsg() (*Msg, int, bool) {
	if d.hot == nil || d.textHot {
		return nil, 0, false
	}
	return d.hot, int(d.HotPos), true
}

// Appendable reports whether AppendText at pos changes the node alone: the
// message at position pos is the hot one and its content is text (hot text
// streaming, or the text of the message stored last with SetMsg or
// AppendMsg), and returns its id.
func (d *InvData) Appendable(pos int) (id string, ok bool) {
	if int(d.HotPos) != pos || !d.textHot && (d.hot == nil || !d.hot.HasText) {
		return "", false
	}
	return d.stored(pos).ID, true
}

// AppendText appends a streamed delta to the text content of the message at
// position pos of the node's messages, which must hold one whose content is
// text or absent (it is text afterwards); i must not be published yet. The
// text becomes the node's hot text: a run of deltas into one message copies
// no message. The previous hot message, if another, is written back to the
// vector.
func (i *Inv) AppendText(pos int, delta string) {
	d := &i.d
	if d.textHot && int(d.HotPos) == pos {
		d.hotText = d.hotText.Append(delta)
		return
	}
	if d.hasHot() && int(d.HotPos) != pos {
		d.writeBack()
	}
	d.hotText = d.stored(pos).Text.Append(delta)
	d.HotPos, d.textHot = int32(pos), true
}
