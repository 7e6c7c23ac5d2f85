package model

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/persist"
)

// msgModel is what a test expects at one position of a node's messages.
type msgModel struct {
	id      string
	text    string
	hasText bool
	status  EntStatus
}

// checkMsgs asserts that every way of reading n's messages agrees with want
// (nil: a hole).
func checkMsgs(t require.TestingT, n *Inv, want []*msgModel, label string) {
	d := n.Data()
	got := d.NumMsgs()
	require.Equal(t, len(want), got, "%s: message count", label)
	var each []string
	for pos, w := range want {
		m := d.MsgAt(pos)
		v, ok := d.Msg(pos)
		stored, streaming := d.Stored(pos)
		if w == nil {
			assert.Nil(t, m, "%s: MsgAt(%d) of a hole", label, pos)
			assert.False(t, ok, "%s: Msg(%d) of a hole", label, pos)
			assert.Nil(t, stored, "%s: Stored(%d) of a hole", label, pos)
			continue
		}
		each = append(each, w.id)
		if !assert.NotNil(t, m, "%s: MsgAt(%d)", label, pos) || !assert.True(t, ok, "%s: Msg(%d)", label, pos) {
			continue
		}
		for _, x := range []*Msg{m, &v} {
			assert.Equal(t, w.id, x.ID, "%s: id at %d", label, pos)
			assert.Equal(t, w.text, x.Text.String(), "%s: text at %d", label, pos)
			assert.Equal(t, w.hasText, x.HasText, "%s: HasText at %d", label, pos)
			assert.Equal(t, w.status, x.Status, "%s: status at %d", label, pos)
		}
		require.NotNil(t, stored, "%s: Stored(%d)", label, pos)
		assert.Equal(t, w.id, stored.ID, "%s: Stored(%d) id", label, pos)
		if !streaming {
			assert.Equal(t, w.text, stored.Text.String(), "%s: Stored(%d) text when not streaming", label, pos)
		}
	}
	var got2 []string
	d.EachMsg(func(m *Msg) bool {
		got2 = append(got2, m.ID)
		return true
	})
	assert.Equal(t, each, got2, "%s: EachMsg", label)
}

// TestInvMessagesModel changes random older versions of a node's messages
// (appending text, changing a message, leaving a hole, adding a message) and
// checks every version at the end against a model: a change to one version,
// even twice, never shows in another, whichever message is hot.
func TestInvMessagesModel(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		versions := []*Inv{NewInv(InvData{Key: 3, Info: &InvInfo{}})}
		models := [][]*msgModel{nil}
		fresh := 0
		pick := func() int { return rapid.IntRange(0, len(versions)-1).Draw(t, "version") }
		present := func(i int) []int {
			var ps []int
			for pos, m := range models[i] {
				if m != nil {
					ps = append(ps, pos)
				}
			}
			return ps
		}
		clone := func(i int) (*Inv, []*msgModel) {
			ms := make([]*msgModel, len(models[i]))
			for j, m := range models[i] {
				if m != nil {
					c := *m
					ms[j] = &c
				}
			}
			return versions[i].Clone(), ms
		}
		t.Repeat(map[string]func(*rapid.T){
			"AppendMsg": func(t *rapid.T) {
				n, ms := clone(pick())
				fresh++
				text := rapid.SampledFrom([]string{"", "hi "}).Draw(t, "initial")
				m := NewMsg(fmt.Sprint("m", fresh), event.RoleAssistant, nil)
				m.Text, m.HasText = persist.TextOf(text), text != ""
				n.Data().AppendMsg(m)
				versions, models = append(versions, n), append(models, append(ms, &msgModel{id: m.ID, text: text, hasText: text != ""}))
			},
			"AppendText": func(t *rapid.T) {
				i := pick()
				ps := present(i)
				if len(ps) == 0 {
					t.Skip("no message")
				}
				n, ms := clone(i)
				// One fold may append to several messages of the node.
				for range rapid.IntRange(1, 3).Draw(t, "deltas") {
					pos := rapid.SampledFrom(ps).Draw(t, "pos")
					delta := rapid.StringN(0, 4, -1).Draw(t, "delta")
					n.AppendText(pos, delta)
					ms[pos].text += delta
					ms[pos].hasText = true
				}
				versions, models = append(versions, n), append(models, ms)
			},
			"SetMsg": func(t *rapid.T) {
				i := pick()
				ps := present(i)
				if len(ps) == 0 {
					t.Skip("no message")
				}
				n, ms := clone(i)
				pos := rapid.SampledFrom(ps).Draw(t, "pos")
				m, ok := n.Data().Msg(pos)
				require.True(t, ok)
				m.Status = EntStatus(rapid.IntRange(0, 3).Draw(t, "status"))
				n.SetMsg(pos, &m)
				ms[pos].status = m.Status
				versions, models = append(versions, n), append(models, ms)
			},
			"Hole": func(t *rapid.T) {
				i := pick()
				ps := present(i)
				if len(ps) == 0 {
					t.Skip("no message")
				}
				n, ms := clone(i)
				pos := rapid.SampledFrom(ps).Draw(t, "pos")
				n.SetMsg(pos, nil)
				ms[pos] = nil
				versions, models = append(versions, n), append(models, ms)
			},
			"": func(t *rapid.T) {
				i := pick()
				checkMsgs(t, versions[i], models[i], fmt.Sprint("version ", i))
			},
		})
		for i := range versions {
			checkMsgs(t, versions[i], models[i], fmt.Sprint("version ", i))
		}
	})
}

// TestInvAppendTextCopiesNoMessage checks the point of hot text: a run of
// deltas into one message leaves the stored message alone and shares it
// between the node's versions.
func TestInvAppendTextCopiesNoMessage(t *testing.T) {
	t.Parallel()
	n := NewInv(InvData{Info: &InvInfo{}})
	m := NewMsg("m1", event.RoleAssistant, nil)
	n.Data().AppendMsg(m)
	var stream []*Inv
	for range 100 {
		n = n.Clone()
		n.AppendText(0, "tok ")
		stream = append(stream, n)
	}
	for i, v := range stream {
		stored, streaming := v.Data().Stored(0)
		assert.Same(t, m, stored, "version %d shares the stored message", i)
		assert.True(t, streaming, "version %d streams text", i)
		assert.Equal(t, 4*(i+1), v.Data().MsgAt(0).Text.Len(), "version %d text", i)
	}
	assert.Zero(t, m.Text.Len(), "the stored message is never written")
}
