package model

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/persist"
)

// TestMsgRoleExact: every role, the seven of package event and any other a
// Go program folds, reads back exactly, through every change of the
// message, and never writes the info it was given (which may be shared).
func TestMsgRoleExact(t *testing.T) {
	roles := []event.Role{
		event.RoleDeveloper, event.RoleSystem, event.RoleAssistant, event.RoleUser,
		event.RoleTool, event.RoleActivity, event.RoleReasoning,
		"narrator", "", "Assistant", "assistant ",
	}
	tag := "s1"
	for _, r := range roles {
		for _, in := range []struct {
			name string
			info *MsgInfo
		}{{"plain", nil}, {"shared", &MsgInfo{Tag: &tag}}} {
			t.Run(string(r)+"/"+in.name, func(t *testing.T) {
				var before MsgInfo
				if in.info != nil {
					before = *in.info
				}
				m := NewMsg("m", r, in.info)
				check := func(step string, m *Msg) {
					t.Helper()
					assert.Equal(t, r, m.Role(), "%s: Role", step)
					assert.Equal(t, r, m.Message().Role, "%s: Message().Role", step)
					assert.Equal(t, KindOf(r), m.Kind(), "%s: Kind", step)
					if in.info != nil {
						assert.Equal(t, &tag, m.Info().Tag, "%s: tag kept", step)
						assert.Equal(t, before, *in.info, "%s: the info given is not written", step)
					}
					assert.Equal(t, MsgInfo{}, *plainInfo, "%s: plainInfo is not written", step)
				}
				check("NewMsg", m)

				w := m.WithInfo()
				w.Info().SetMeta(MetaOf(json.RawMessage(`{"k":1}`)))
				check("WithInfo", w)
				check("WithInfo leaves the original", m)
				assert.Nil(t, m.Info().Meta())

				s := *m
				s.SetInfo(&MsgInfo{Tag: &tag, Name: &tag})
				check("SetInfo", &s)

				c := *m
				c.AppendCall(&Call{ID: "c1", Info: &CallInfo{}})
				c.AppendCall(&Call{ID: "c2", Info: &CallInfo{}})
				check("AppendCall", &c)
				require.Equal(t, 2, c.Calls().Len())
				assert.True(t, c.HasCalls)
				assert.Equal(t, 0, m.Calls().Len(), "AppendCall leaves the original")

				d := c
				d.SetCall(1, &Call{ID: "c3", Info: &CallInfo{}})
				check("SetCall", &d)
				assert.Equal(t, "c2", c.Calls().At(1).ID, "SetCall leaves the original")
				assert.Equal(t, "c3", d.Calls().At(1).ID)

				e := d.WithInfo()
				e.Info().Name = &tag
				check("WithInfo with calls", e)
				assert.Nil(t, d.Info().Name, "WithInfo with calls leaves the original")
				assert.Equal(t, d.Calls().At(0), e.Calls().At(0), "WithInfo keeps the calls")

				o := *e
				o.SetRole(event.RoleUser)
				assert.Equal(t, event.RoleUser, o.Role())
				o.SetRole(r)
				check("SetRole back", &o)
				assert.Equal(t, &tag, o.Info().Name, "SetRole keeps the info")
				assert.Equal(t, 2, o.Calls().Len(), "SetRole keeps the calls")
			})
		}
	}
}

// TestMsgMessage: a message's content and calls read back as the AG-UI
// message they came from.
func TestMsgMessage(t *testing.T) {
	name := "n"
	m := NewMsg("m", event.RoleAssistant, &MsgInfo{Name: &name})
	m.Text, m.HasText = persist.TextOf("hi"), true
	m.AppendCall(&Call{ID: "c", Name: "f", Args: persist.TextOf(`{"a":1}`), Info: &CallInfo{}})
	got := m.Message()
	assert.Equal(t, json.RawMessage(`"hi"`), got.Content)
	assert.Equal(t, &name, got.Name)
	require.Len(t, got.ToolCalls, 1)
	assert.Equal(t, "c", got.ToolCalls[0].ID)
	assert.Equal(t, `{"a":1}`, got.ToolCalls[0].Function.Arguments)

	a := NewMsg("a", event.RoleActivity, &MsgInfo{})
	a.HasDoc = true
	assert.Equal(t, json.RawMessage(`null`), a.Message().Content, "a document, null included")
	assert.Nil(t, NewMsg("b", event.RoleUser, nil).Message().Content, "no content")
}

// TestMsgAllocs: a message of one of the seven roles costs its Msg alone,
// and a changed tool call of a message holding one call a Msg and a rep.
func TestMsgAllocs(t *testing.T) {
	tag := "s1"
	info := &MsgInfo{Tag: &tag}
	var m *Msg
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { m = NewMsg("m", event.RoleAssistant, info) }), "NewMsg")
	m.AppendCall(&Call{ID: "c", Info: &CallInfo{}})
	c := &Call{ID: "c", Info: &CallInfo{}}
	assert.Equal(t, 2.0, testing.AllocsPerRun(100, func() {
		h := *m
		h.SetCall(0, c)
		m = &h
	}), "SetCall on a copy")
}
