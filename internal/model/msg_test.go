package model

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/persist"
	"github.com/agview/agview/patch"
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

// TestMsgExtraCopyOnWrite: the members few messages have live in a MsgExtra
// that infos copied from one another share. Changing them through a setter
// on a private copy (WithInfo) must give the copy a MsgExtra of its own,
// keep the members it did not change (and a role that is none of the seven),
// and leave the published message reading exactly as before; clearing the
// last member must leave the copy no MsgExtra at all.
func TestMsgExtraCopyOnWrite(t *testing.T) {
	doc := func(raw string) patch.Document {
		d, err := patch.New(json.RawMessage(raw))
		require.NoError(t, err)
		return d
	}
	str := func(s string) *string { return &s }
	full := MsgExtra{
		Doc: doc(`{"a":1}`), Raw: json.RawMessage(`[1]`), Error: str("boom"), ActivityType: str("plan"),
		EncryptedValue: str("E"), Meta: MetaOf(json.RawMessage(`{"k":1}`)),
	}
	for _, tc := range []struct {
		name   string
		role   event.Role
		extra  MsgExtra
		change func(i *MsgInfo)
		want   func(x *MsgExtra) // what the change makes of the original members
		none   bool              // the copy is left no MsgExtra
	}{
		{"SetMeta", "narrator", full,
			func(i *MsgInfo) { i.SetMeta(i.Meta().Merge(json.RawMessage(`{"k":2,"j":3}`))) },
			func(x *MsgExtra) { x.Meta = MetaOf(json.RawMessage(`{"k":2,"j":3}`)) }, false},
		{"SetRaw", "narrator", full,
			func(i *MsgInfo) { i.SetRaw(json.RawMessage(`[2]`)) },
			func(x *MsgExtra) { x.Raw = json.RawMessage(`[2]`) }, false},
		{"SetEncryptedValue", "narrator", full,
			func(i *MsgInfo) { i.SetEncryptedValue(str("E2")) },
			func(x *MsgExtra) { x.EncryptedValue = str("E2") }, false},
		{"SetExtra from Extra", "narrator", full,
			func(i *MsgInfo) {
				x := i.Extra()
				x.Doc, x.Raw, x.ActivityType, x.Error = doc(`[true]`), nil, str("search"), nil
				i.SetExtra(x)
			},
			func(x *MsgExtra) { x.Doc, x.Raw, x.ActivityType, x.Error = doc(`[true]`), nil, str("search"), nil }, false},
		{"SetMeta on an info with none", event.RoleUser, MsgExtra{},
			func(i *MsgInfo) { i.SetMeta(MetaOf(json.RawMessage(`{"k":1}`))) },
			func(x *MsgExtra) { x.Meta = MetaOf(json.RawMessage(`{"k":1}`)) }, false},
		{"SetMeta clears the last member", event.RoleUser, MsgExtra{Meta: MetaOf(json.RawMessage(`{}`))},
			func(i *MsgInfo) { i.SetMeta(nil) },
			func(x *MsgExtra) { x.Meta = nil }, true},
		{"SetRaw clears the last member", event.RoleTool, MsgExtra{Raw: json.RawMessage(`[]`)},
			func(i *MsgInfo) { i.SetRaw(nil) },
			func(x *MsgExtra) { x.Raw = nil }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tag, name, call := "s1", "n", "c1"
			info := &MsgInfo{Tag: &tag, Name: &name, ToolCallID: &call}
			info.SetExtra(tc.extra)
			m := NewMsg("m", tc.role, info)
			m.HasDoc = tc.extra.Doc != (patch.Document{})
			published, before := m.Info().extra, m.Message()

			w := m.WithInfo()
			tc.change(w.Info())

			assert.Equal(t, before, m.Message(), "the published message reads as before")
			assert.Same(t, published, m.Info().extra, "the published message keeps its MsgExtra")
			if published != nil {
				assert.NotSame(t, published, w.Info().extra, "the copy has a MsgExtra of its own")
				assert.Equal(t, tc.extra, MsgExtra{Doc: published.Doc, Raw: published.Raw, Error: published.Error,
					ActivityType: published.ActivityType, EncryptedValue: published.EncryptedValue, Meta: published.Meta},
					"the published MsgExtra is not written")
			}
			want := tc.extra
			tc.want(&want)
			got := w.Info().Extra()
			got.role = nil
			assert.Equal(t, want, got, "the copy's members")
			assert.Equal(t, tc.role, w.Role(), "the copy keeps its role")
			assert.Equal(t, MsgInfo{Tag: &tag, Name: &name, ToolCallID: &call}, MsgInfo{Tag: w.Info().Tag, Name: w.Info().Name, ToolCallID: w.Info().ToolCallID})
			if tc.none {
				assert.Nil(t, w.Info().extra, "no member left: no MsgExtra")
			}
			assert.Equal(t, MsgExtra{}, *noExtra, "noExtra is not written")
		})
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

// TestMsgExtraEachMemberAlone: an info whose only rare member is any one of
// MsgExtra's keeps a MsgExtra for it, and reads it back through Extra and
// its reader; an info given none keeps no MsgExtra.
func TestMsgExtraEachMemberAlone(t *testing.T) {
	doc, err := patch.New(json.RawMessage(`{"a":1}`))
	require.NoError(t, err)
	s := func(v string) *string { return &v }
	narrator := event.Role("narrator")
	for _, tc := range []struct {
		name string
		x    MsgExtra
		read func(i *MsgInfo) any
		want any
	}{
		{"Doc", MsgExtra{Doc: doc}, func(i *MsgInfo) any { return i.Doc() }, doc},
		{"Raw", MsgExtra{Raw: json.RawMessage(`[1]`)}, func(i *MsgInfo) any { return i.Raw() }, json.RawMessage(`[1]`)},
		{"Error", MsgExtra{Error: s("boom")}, func(i *MsgInfo) any { return *i.Error() }, "boom"},
		{"ActivityType", MsgExtra{ActivityType: s("plan")}, func(i *MsgInfo) any { return *i.ActivityType() }, "plan"},
		{"EncryptedValue", MsgExtra{EncryptedValue: s("E")}, func(i *MsgInfo) any { return *i.EncryptedValue() }, "E"},
		{"Meta", MsgExtra{Meta: MetaOf(json.RawMessage(`{"k":1}`))}, func(i *MsgInfo) any { return i.Meta() }, MetaOf(json.RawMessage(`{"k":1}`))},
		{"role", MsgExtra{role: &narrator}, func(i *MsgInfo) any { return *i.keptRole() }, narrator},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var i MsgInfo
			i.SetExtra(tc.x)
			require.NotNil(t, i.extra, "the member was dropped")
			require.Equal(t, tc.x, i.Extra())
			require.Equal(t, tc.want, tc.read(&i))
		})
	}
	var i MsgInfo
	i.SetExtra(MsgExtra{})
	require.Nil(t, i.extra, "an info with no rare member keeps a MsgExtra")
}

// TestMsgExtraMembersSurvive sets each member of MsgExtra alone, found by
// reflection, and checks that it survives every copy of a message and of its
// info and every setter of the other members and of the role, and that the
// message's AG-UI form shows it. A member added to MsgExtra that none()
// does not know is dropped by SetExtra, and this test fails for it.
func TestMsgExtraMembersSurvive(t *testing.T) {
	doc, err := patch.New(json.RawMessage(`{"a":1}`))
	require.NoError(t, err)
	narrator := event.Role("narrator")
	str := func(v string) *string { return &v }
	samples := map[reflect.Type]any{
		reflect.TypeFor[patch.Document]():  doc,
		reflect.TypeFor[json.RawMessage](): json.RawMessage(`[1]`),
		reflect.TypeFor[*string]():         str("v"),
		reflect.TypeFor[Meta]():            MetaOf(json.RawMessage(`{"k":1}`)),
		reflect.TypeFor[*event.Role]():     &narrator,
	}
	member := func(x *MsgExtra, i int) reflect.Value {
		f := reflect.ValueOf(x).Elem().Field(i)
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem() // unexported ones too
	}
	typ := reflect.TypeFor[MsgExtra]()
	for i := range typ.NumField() {
		field := typ.Field(i)
		t.Run(field.Name, func(t *testing.T) {
			sample, ok := samples[field.Type]
			require.True(t, ok, "MsgExtra.%s is a %s, which this test has no sample value for: add one", field.Name, field.Type)
			var x MsgExtra
			member(&x, i).Set(reflect.ValueOf(sample))
			role := event.RoleAssistant
			if field.Type == reflect.TypeFor[*event.Role]() {
				role = narrator // a kept role is the role of a message whose role is none of the seven
			}
			check := func(m *Msg, step string) {
				t.Helper()
				got := m.Info().Extra()
				require.Equal(t, sample, member(&got, i).Interface(), "MsgExtra.%s lost by %s", field.Name, step)
			}
			info := new(MsgInfo)
			info.SetExtra(x)
			require.NotNil(t, info.extra, "SetExtra dropped MsgExtra.%s: none() does not know it", field.Name)
			m := NewMsg("a", role, info)
			m.HasDoc = field.Type == reflect.TypeFor[patch.Document]()
			check(m, "NewMsg")
			plain := NewMsg("a", event.RoleAssistant, nil)
			require.NotEqual(t, plain.Message(), m.Message(), "the message's AG-UI form does not show MsgExtra.%s", field.Name)

			check(m.WithInfo(), "Msg.WithInfo")
			c := *m
			ci := *m.Info()
			c.SetInfo(&ci)
			check(&c, "Msg.SetInfo")
			c.SetRole(role)
			check(&c, "Msg.SetRole to the same role")
			c.AppendCall(&Call{ID: "c1", Info: plainCall})
			check(&c, "Msg.AppendCall")
			c.AppendCall(&Call{ID: "c2", Info: plainCall})
			check(&c, "a second Msg.AppendCall")
			c.SetCall(0, &Call{ID: "c1", Name: "f", Info: plainCall})
			check(&c, "Msg.SetCall")
			c.AnswerCall(1, &Call{ID: "c2", HasResult: true, Info: plainCall})
			check(&c, "Msg.AnswerCall")
			c.ForgetAnswer()
			check(&c, "Msg.ForgetAnswer")
			check(c.WithInfo(), "Msg.WithInfo of a message holding calls")
			if role != narrator {
				c.SetRole(narrator)
				check(&c, "Msg.SetRole to a role none of the seven")
				c.SetRole(role)
				check(&c, "Msg.SetRole back")
			}
			for name, set := range map[string]func(*MsgInfo){
				"SetRaw":            func(i *MsgInfo) { i.SetRaw(json.RawMessage(`[2]`)) },
				"SetEncryptedValue": func(i *MsgInfo) { i.SetEncryptedValue(str("w")) },
				"SetMeta":           func(i *MsgInfo) { i.SetMeta(MetaOf(json.RawMessage(`{"j":2}`))) },
				"SetExtra of Extra": func(i *MsgInfo) { i.SetExtra(i.Extra()) },
			} {
				if name != "SetExtra of Extra" && strings.TrimPrefix(name, "Set") == field.Name {
					continue // the member's own setter replaces it
				}
				w := m.WithInfo()
				set(w.Info())
				check(w, "MsgInfo."+name)
			}
		})
	}
}
