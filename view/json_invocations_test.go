package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/patch"
)

// The "invocations" member as WriteJSON wrote it through encoding/json,
// before it wrote invocations member by member: the reference the new
// encoding must match byte for byte.
type oldJSONInvocation struct {
	SubagentRunID       exact                  `json:"subagentRunId"`
	Run                 int                    `json:"run"`
	Name                exact                  `json:"name"`
	Description         *exact                 `json:"description"`
	Status              Status                 `json:"status"`
	ParentSubagentRunID *exact                 `json:"parentSubagentRunId"`
	ParentToolCallID    *exact                 `json:"parentToolCallId"`
	ParentMessageID     *exact                 `json:"parentMessageId"`
	Children            []exact                `json:"children"`
	MessageIDs          []exact                `json:"messageIds"`
	ToolCallIDs         []exact                `json:"toolCallIds"`
	Steps               []oldJSONStep          `json:"steps"`
	Outcome             *event.SubagentOutcome `json:"outcome"`
	Result              json.RawMessage        `json:"result"`
	Error               *jsonError             `json:"error"`
}

type oldJSONStep struct {
	Name   exact        `json:"name"`
	Status EntityStatus `json:"status"`
}

func oldInvocationsJSON(t *rapid.T, st *model.State) string {
	var out bytes.Buffer
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	first := true
	st.EachInv(func(n *model.Inv) bool {
		inv := (*Invocation)(n)
		d := n.Data().Info
		j := oldJSONInvocation{
			SubagentRunID: exact(d.ID), Run: d.Run, Name: exact(inv.Name()),
			Description: (*exact)(d.Description), Status: Status(n.Data().Status.String()),
			ParentSubagentRunID: (*exact)(d.ParentSub), ParentToolCallID: (*exact)(d.ParentTool),
			ParentMessageID: (*exact)(d.ParentMsg),
			Children:        []exact{}, MessageIDs: []exact{}, ToolCallIDs: []exact{}, Steps: []oldJSONStep{},
			Outcome: d.Outcome, Result: d.Result, Error: jsonErrorOf(d.Err),
		}
		for c := range d.Children.Values() {
			j.Children = append(j.Children, exact(c))
		}
		for m := range inv.msgs() {
			j.MessageIDs = append(j.MessageIDs, exact(m.ID))
			for _, c := range m.Calls().All() {
				j.ToolCallIDs = append(j.ToolCallIDs, exact(c.ID))
			}
		}
		for s := range d.Steps.Values() {
			j.Steps = append(j.Steps, oldJSONStep{Name: exact(s.Name), Status: entityStatus(s.Status)})
		}
		buf.Reset()
		if err := enc.Encode(&j); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.Write(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
		return true
	})
	return out.String()
}

// awkward returns strings that JSON writers disagree on: HTML characters,
// U+2028 and U+2029, control characters, quotes and backslashes, bytes that
// are not UTF-8 and encoded lone surrogates (docs/protocol.md G19).
func awkward() *rapid.Generator[string] {
	parts := []string{"a", "<", ">", "&", "\u2028", "\u2029", "\x00", "\x1f", "\n", "\"", "\\", "/",
		"\xff", "\xed\xa0\x80", "é", "😀", "\x7f", "</script>", "\ufeff"}
	return rapid.Custom(func(t *rapid.T) string {
		var b strings.Builder
		for range rapid.IntRange(0, 6).Draw(t, "n") {
			b.WriteString(rapid.SampledFrom(parts).Draw(t, "part"))
		}
		return b.String()
	})
}

func optAwkward(t *rapid.T, label string) *string {
	if rapid.Bool().Draw(t, label+" set") {
		s := awkward().Draw(t, label)
		return &s
	}
	return nil
}

// TestWriteJSONInvocationsAsBefore: WriteJSON's invocations, written member
// by member, are byte for byte what encoding/json wrote for them, whatever
// the strings, outcomes, results and errors.
func TestWriteJSONInvocationsAsBefore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		st := model.State{
			Root: model.NewInv(model.InvData{Key: -1, Status: model.InvUnannounced,
				Info: &model.InvInfo{Root: true, Announced: true, ParentKey: -1, First: -1}}),
			Cold: model.NewCold(patch.EmptyObject()),
		}
		for k := range rapid.IntRange(0, 4).Draw(t, "invocations") {
			info := &model.InvInfo{
				ID: awkward().Draw(t, "id"), Run: rapid.IntRange(-1, min(1<<40, math.MaxInt)).Draw(t, "run"),
				Name: optAwkward(t, "name"), Description: optAwkward(t, "description"),
				ParentSub: optAwkward(t, "parentSub"), ParentTool: optAwkward(t, "parentTool"),
				ParentMsg: optAwkward(t, "parentMsg"),
			}
			for range rapid.IntRange(0, 3).Draw(t, "children") {
				info.Children = info.Children.Append(awkward().Draw(t, "child"))
			}
			for range rapid.IntRange(0, 3).Draw(t, "steps") {
				info.Steps = info.Steps.Append(model.Step{Name: awkward().Draw(t, "step"),
					Status: model.EntStatus(rapid.IntRange(0, 2).Draw(t, "step status"))})
			}
			switch rapid.IntRange(0, 2).Draw(t, "outcome") {
			case 1:
				info.Outcome = &event.SubagentOutcome{Type: awkward().Draw(t, "outcome type")}
			case 2:
				info.Outcome = &event.SubagentOutcome{Type: event.SubagentSuspended, InterruptIDs: []string{awkward().Draw(t, "interrupt")}}
			}
			if rapid.Bool().Draw(t, "result") {
				info.Result = json.RawMessage(rapid.SampledFrom([]string{`{"a": [1, 2]}`, ` "<&>" `, `null`, "\"\u2028\"", `{"x":"\u003c"}`}).Draw(t, "result value"))
			}
			if rapid.Bool().Draw(t, "error") {
				info.Err = &model.ErrorInfo{Message: awkward().Draw(t, "error message"), Code: optAwkward(t, "code")}
			}
			d := model.InvData{Status: model.InvStatus(rapid.IntRange(0, 5).Draw(t, "status")), Info: info}
			for i := range rapid.IntRange(0, 4).Draw(t, "messages") {
				m := model.NewMsg(awkward().Draw(t, "message id"), event.RoleAssistant, nil)
				for c := range rapid.IntRange(0, 2).Draw(t, "calls") {
					m.AppendCall(&model.Call{ID: fmt.Sprint(awkward().Draw(t, "call id"), k, i, c), Info: &model.CallInfo{}})
				}
				d.AppendMsg(m)
			}
			st.AppendInv(model.NewInv(d))
		}
		v := (*View)(model.NewView(st))
		var got bytes.Buffer
		if err := v.WriteJSON(&got); err != nil {
			t.Fatalf("WriteJSON: %v", err)
		}
		s := got.String()
		const open, end = `"invocations":[`, `],"diagnostics":[]}`
		i := strings.Index(s, open)
		if i < 0 || !strings.HasSuffix(s, end) {
			t.Fatalf("unexpected JSON form: %s", s)
		}
		if inv, want := s[i+len(open):len(s)-len(end)], oldInvocationsJSON(t, &st); inv != want {
			t.Fatalf("invocations differ from encoding/json's:\n got %q\nwant %q", inv, want)
		}
		if !json.Valid(got.Bytes()) && utf8Valid(s) {
			t.Fatalf("WriteJSON wrote invalid JSON: %s", s)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "?") == s }
