package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// turnAgent answers each run with an assistant message holding a tool call
// and its result, a state snapshot, and — on runs whose input carries no
// resume and whose last message asks for one ("please interrupt") — an
// interrupt.
func turnAgent() agenttest.Script {
	return scriptOf(func(in *event.RunAgentInput, emit func(event.Event) bool) {
		id, call := "a-"+in.RunID, "c-"+in.RunID
		last := ""
		if n := len(in.Messages); n > 0 {
			last = string(in.Messages[n-1].Content)
		}
		evs := []event.Event{
			&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID},
			&event.TextMessageStart{MessageID: id, Role: event.Ptr(event.RoleAssistant)},
			&event.TextMessageContent{MessageID: id, Delta: fmt.Sprintf("turn %d, resumed %d", len(in.Messages), len(in.Resume))},
			&event.TextMessageEnd{MessageID: id},
			&event.ToolCallStart{ToolCallID: call, ToolCallName: "lookup", ParentMessageID: event.Ptr(id)},
			&event.ToolCallArgs{ToolCallID: call, Delta: `{"q":1}`},
			&event.ToolCallEnd{ToolCallID: call},
			&event.ToolCallResult{MessageID: "res-" + in.RunID, ToolCallID: call, Content: json.RawMessage(`"found"`)},
			&event.StateSnapshot{Snapshot: json.RawMessage(fmt.Sprintf(`{"turns":%d}`, len(in.Messages)))},
		}
		for _, e := range evs {
			if !emit(e) {
				return
			}
		}
		finished := &event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}
		if len(in.Resume) == 0 && strings.Contains(last, "please interrupt") {
			finished.Outcome = &event.RunFinishedOutcome{Type: event.OutcomeInterrupt, Interrupts: []event.Interrupt{{ID: "i-" + in.RunID, Reason: "confirmation"}}}
		}
		emit(finished)
	})
}

// inputRecords returns the thread's input records, each decoded against the
// view the journal folds into before it, with whether it was stored as
// what the journal did not hold (agviewBase).
func inputRecords(t *testing.T, j journal.Journal, thread string) (ins []*event.RunAgentInput, partial []bool) {
	t.Helper()
	b := reducer.NewBuilder(view.New())
	f := client.NewJournalFolder(b, thread)
	for r, err := range j.Read(t.Context(), thread, 1) {
		require.NoError(t, err)
		if r.Kind == journal.KindInput {
			in, err := client.DecodeInputRecord(b.View(), r.Data)
			require.NoError(t, err)
			ins = append(ins, in)
			partial = append(partial, strings.Contains(string(r.Data), `"agviewBase"`))
		}
		if r.Kind == journal.KindEvent {
			_ = b.FoldJSON(r.Data)
			continue
		}
		f.Fold(r)
	}
	return ins, partial
}

func inputJSON(t *testing.T, in *event.RunAgentInput) string {
	t.Helper()
	b, err := json.Marshal(in)
	require.NoError(t, err)
	return string(b)
}

// TestInputRecordsConversation records a conversation whose turns continue
// it, answer interrupts, change the state, edit a message, and rewrite the
// history from its start: every input record decodes, against the
// journal's own fold, to exactly the input the agent received; the records
// that continue the history hold only what the journal did not (which fails
// while every record holds the whole input); and a viewer attaching
// afterwards sees the client's view.
func TestInputRecordsConversation(t *testing.T) {
	type turn struct {
		name    string
		input   func(v *view.View) *event.RunAgentInput
		partial bool // recorded as what the journal did not hold
	}
	next := func(text string) func(v *view.View) *event.RunAgentInput {
		return func(v *view.View) *event.RunAgentInput {
			return client.NextInput(v, &client.InputOptions{Messages: []event.Message{client.UserMessage(text)}, Answer: client.ResolveAll(json.RawMessage(`{"ok":true}`))})
		}
	}
	turns := []turn{
		{"first", func(*view.View) *event.RunAgentInput {
			return &event.RunAgentInput{ThreadID: "t1", Messages: []event.Message{client.UserMessage("hello")}}
		}, false},
		{"continued", next("and then?"), true},
		{"asks an interrupt", next("please interrupt"), true},
		{"answers it", next("yes, go on"), true},
		{"changes the state", func(v *view.View) *event.RunAgentInput {
			in := next("with a new state")(v)
			in.State = json.RawMessage(`{"turns":99,"mine":"x"}`)
			return in
		}, true},
		{"edits a message", func(v *view.View) *event.RunAgentInput {
			in := next("after an edit")(v)
			in.Messages[3].Content = json.RawMessage(`"edited"`)
			return in
		}, true},
		{"drops the last answer", func(v *view.View) *event.RunAgentInput {
			in := next("shorter")(v)
			in.Messages = append(in.Messages[:len(in.Messages)-3:len(in.Messages)-3], in.Messages[len(in.Messages)-1])
			return in
		}, true},
		{"rewrites the history", func(v *view.View) *event.RunAgentInput {
			in := next("from scratch")(v)
			in.Messages = []event.Message{client.UserMessage("another start"), in.Messages[len(in.Messages)-1]}
			in.State = json.RawMessage(`{}`)
			return in
		}, false},
		{"continues the rewrite", next("and on"), true},
	}
	for jname, j := range journals(t) {
		t.Run(jname, func(t *testing.T) {
			srv := agenttest.NewServer(turnAgent(), nil)
			defer srv.Close()
			c := client.New(srv.URL(), client.WithJournal(j, func(err error) { t.Errorf("journal: %v", err) }))
			defer c.Close()
			for _, tu := range turns {
				_, err := c.Run(t.Context(), tu.input(c.Store().View()))
				require.NoError(t, err, tu.name)
			}
			ins, partial := inputRecords(t, j, "t1")
			sent := srv.Inputs()
			require.Len(t, ins, len(turns))
			require.Len(t, sent, len(turns))
			for i, tu := range turns {
				assert.JSONEq(t, inputJSON(t, sent[i]), inputJSON(t, ins[i]), "%s: the record is the input sent", tu.name)
				assert.Equal(t, tu.partial, partial[i], "%s: recorded as what the journal did not hold", tu.name)
			}
			want := c.Store().View()
			got := attachIdle(t, j, "t1")
			assert.Equal(t, viewJSON(t, want), viewJSON(t, got), "the attached view is the client's")
			assert.JSONEq(t, string(want.State()), string(got.State()))
		})
	}
}

// TestInputRecordsOtherWriters continues one thread from three clients: one
// whose store was attached to the journal, one whose store is stale (it did
// not see the other's run), and one whose store holds a conversation the
// journal never saw. Each record still decodes to the input its agent
// received, and an attached view's messages and state are the last
// writer's.
func TestInputRecordsOtherWriters(t *testing.T) {
	for jname, j := range journals(t) {
		t.Run(jname, func(t *testing.T) {
			ctx := t.Context()
			srv := agenttest.NewServer(turnAgent(), nil)
			defer srv.Close()
			a := client.New(srv.URL(), client.WithJournal(j, nil))
			defer a.Close()
			_, err := a.Run(ctx, &event.RunAgentInput{ThreadID: "t1", Messages: []event.Message{client.UserMessage("from a")}})
			require.NoError(t, err)
			_, err = a.Continue(ctx, &client.InputOptions{Messages: []event.Message{client.UserMessage("a again")}})
			require.NoError(t, err)

			att, err := client.Attach(ctx, j, "t1", &client.AttachOptions{UntilIdle: true})
			require.NoError(t, err)
			<-att.Done()
			b := client.New(srv.URL(), client.WithJournal(j, nil), client.WithStore(att.Store()))
			defer att.Store().Close()
			_, err = b.Continue(ctx, &client.InputOptions{Messages: []event.Message{client.UserMessage("from b")}})
			require.NoError(t, err)
			_, err = b.Continue(ctx, &client.InputOptions{Messages: []event.Message{client.UserMessage("b again")}})
			require.NoError(t, err)

			// a did not see b's runs: its history is a prefix of the journal's.
			_, err = a.Continue(ctx, &client.InputOptions{Messages: []event.Message{client.UserMessage("a, stale")}})
			require.NoError(t, err)

			// c's store holds a conversation of its own.
			c := client.New(srv.URL(), client.WithJournal(j, nil))
			defer c.Close()
			_, err = c.Run(ctx, &event.RunAgentInput{ThreadID: "elsewhere", Messages: []event.Message{client.UserMessage("unjournaled")}})
			require.NoError(t, err)
			in := client.NextInput(a.Store().View(), &client.InputOptions{Messages: []event.Message{client.UserMessage("from c")}})
			_, err = c.Run(ctx, in)
			require.NoError(t, err)
			last := c.Store().View()
			_, err = c.Continue(ctx, &client.InputOptions{Messages: []event.Message{client.UserMessage("c again")}})
			require.NoError(t, err)

			ins, _ := inputRecords(t, j, "t1")
			var sent []*event.RunAgentInput
			for _, s := range srv.Inputs() {
				if s.ThreadID == "t1" {
					sent = append(sent, s)
				}
			}
			require.Len(t, ins, len(sent))
			for i := range sent {
				assert.JSONEq(t, inputJSON(t, sent[i]), inputJSON(t, ins[i]), "run %d: the record is the input sent", i+1)
			}
			got := attachIdle(t, j, "t1")
			want := c.Store().View()
			require.NotEqual(t, last.MessageCount(), want.MessageCount())
			assert.Equal(t, want.MessageList(), got.MessageList(), "the attached messages are the last writer's")
			assert.JSONEq(t, string(want.State()), string(got.State()))
		})
	}
}

// TestInputRecordsOldFormat attaches to a journal whose input records hold
// whole inputs, as every writer recorded them before: it folds as it did,
// and a client continuing the thread from it records only what is new.
func TestInputRecordsOldFormat(t *testing.T) {
	for jname, j := range journals(t) {
		t.Run(jname, func(t *testing.T) {
			ctx := t.Context()
			history := []event.Message{client.UserMessage("old one")}
			for run := 1; run <= 2; run++ {
				id := fmt.Sprintf("r%d", run)
				in := &event.RunAgentInput{ThreadID: "t1", RunID: id, Messages: history, State: json.RawMessage(`{"old":true}`)}
				data, err := json.Marshal(in)
				require.NoError(t, err)
				recs := []journal.Record{{Kind: journal.KindInput, Data: data}}
				for _, e := range []event.Event{
					&event.RunStarted{ThreadID: "t1", RunID: id},
					&event.TextMessageStart{MessageID: "a" + id, Role: event.Ptr(event.RoleAssistant)},
					&event.TextMessageContent{MessageID: "a" + id, Delta: "answer " + id},
					&event.TextMessageEnd{MessageID: "a" + id},
					&event.RunFinished{ThreadID: "t1", RunID: id},
				} {
					b, err := event.Encode(e)
					require.NoError(t, err)
					recs = append(recs, journal.Record{Kind: journal.KindEvent, Data: b})
				}
				recs = append(recs, journal.Record{Kind: journal.KindEnd, Data: json.RawMessage(`{}`)})
				w, err := j.Begin(ctx, journal.Lease{Thread: "t1", RunID: id})
				require.NoError(t, err)
				_, err = w.Append(ctx, recs...)
				require.NoError(t, err)
				require.NoError(t, w.End(ctx))
				history = append(history, event.Message{ID: "a" + id, Role: event.RoleAssistant, Content: json.RawMessage(`"answer ` + id + `"`)}, client.UserMessage("next "+id))
			}
			v := attachIdle(t, j, "t1")
			require.Equal(t, 4, v.MessageCount(), "the second input's history, then its answer")
			assert.JSONEq(t, `{"old":true}`, string(v.State()))

			att, err := client.Attach(ctx, j, "t1", &client.AttachOptions{UntilIdle: true})
			require.NoError(t, err)
			<-att.Done()
			defer att.Store().Close()
			srv := agenttest.NewServer(turnAgent(), nil)
			defer srv.Close()
			c := client.New(srv.URL(), client.WithJournal(j, nil), client.WithStore(att.Store()))
			_, err = c.Continue(ctx, &client.InputOptions{Messages: []event.Message{client.UserMessage("new one")}})
			require.NoError(t, err)
			ins, partial := inputRecords(t, j, "t1")
			require.Len(t, ins, 3)
			assert.Equal(t, []bool{false, false, true}, partial)
			assert.JSONEq(t, inputJSON(t, srv.Inputs()[0]), inputJSON(t, ins[2]))
			assert.Equal(t, viewJSON(t, c.Store().View()), viewJSON(t, attachIdle(t, j, "t1")))
		})
	}
}

// TestDecodeInputRecordRefusesForeignBase reads a record against a view
// that does not hold the history it continues: an *InputRecordError, and a
// JournalFolder folds the run's events without the input.
func TestDecodeInputRecordRefusesForeignBase(t *testing.T) {
	b := reducer.NewBuilder(view.New())
	held := []event.Message{client.UserMessage("one"), client.UserMessage("two")}
	require.NoError(t, b.Input(&event.RunAgentInput{ThreadID: "t1", RunID: "r0", Messages: held}))
	base := b.End(nil)
	in := &event.RunAgentInput{ThreadID: "t1", RunID: "r1", Messages: append(append([]event.Message{}, held...), client.UserMessage("three")), State: base.State()}
	data, err := client.EncodeInputRecord(base, in)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"agviewBase":2`)
	assert.Contains(t, string(data), `"agviewStateSame":true`)
	assert.NotContains(t, string(data), `"one"`, "the held history is not stored again")

	got, err := client.DecodeInputRecord(base, data)
	require.NoError(t, err)
	assert.JSONEq(t, inputJSON(t, in), inputJSON(t, got))

	for name, v := range map[string]*view.View{"empty": view.New(), "another history": func() *view.View {
		b := reducer.NewBuilder(view.New())
		require.NoError(t, b.Input(&event.RunAgentInput{ThreadID: "t1", Messages: []event.Message{held[0], client.UserMessage("not two")}}))
		return b.View()
	}()} {
		t.Run(name, func(t *testing.T) {
			_, err := client.DecodeInputRecord(v, data)
			var ie *client.InputRecordError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, 2, ie.Base)
			assert.Equal(t, held[1].ID, ie.BaseID)

			fb := reducer.NewBuilder(v)
			f := client.NewJournalFolder(fb, "t1")
			f.Fold(journal.Record{Kind: journal.KindInput, Data: data})
			assert.Equal(t, v.MessageCount(), fb.View().MessageCount(), "the input is not folded")
		})
	}
}

// BenchmarkInputRecordFold folds the input records of a long thread
// (recorded as the client records them) through a JournalFolder: each one
// costs what it adds, not the history before it.
func BenchmarkInputRecordFold(b *testing.B) {
	g := converse(b, b.TempDir(), 40, 8<<10, 1<<10)
	defer g.j.Close()
	ctx := context.Background()
	for b.Loop() {
		a, err := client.Attach(ctx, g.j, "t", &client.AttachOptions{UntilIdle: true})
		require.NoError(b, err)
		a.Stop()
		a.Store().Close()
	}
}

// TestInputAfterIsInput checks reducer.InputAfter against reducer.Input on
// the whole input, on swarm views (subagents, tool calls, reasoning,
// activity): continuing the whole history, a prefix of it, none of it, and
// tails that name a held message or carry activity.
func TestInputAfterIsInput(t *testing.T) {
	for _, seed := range []int64{1, 2, 5} {
		b := reducer.NewBuilder(view.New())
		sw := agenttest.Swarm(&agenttest.SwarmConfig{Seed: seed, Researchers: 3})
		in0 := &event.RunAgentInput{ThreadID: "t1", RunID: "r1", Messages: []event.Message{client.UserMessage("go")}}
		require.NoError(t, b.Input(in0))
		for f := range sw.Frames(in0) {
			_ = b.FoldJSON(f)
		}
		v := b.End(nil)
		var hist []event.Message
		activity := 0
		for m := range v.Messages() {
			if m.Role == event.RoleActivity {
				activity++
				continue
			}
			hist = append(hist, m)
		}
		require.Greater(t, len(hist), 3)
		for _, tc := range []struct {
			name string
			held int
			tail []event.Message
		}{
			{"all, then a new message", len(hist), []event.Message{client.UserMessage("next")}},
			{"all, nothing new", len(hist), nil},
			{"a prefix", len(hist) - 2, []event.Message{client.UserMessage("next")}},
			{"none", 0, []event.Message{client.UserMessage("anew")}},
			{"a tail naming a held message", len(hist) - 1, []event.Message{hist[len(hist)-1], client.UserMessage("next")}},
			{"a tail with activity", len(hist), []event.Message{{ID: "act-1", Role: event.RoleActivity, ActivityType: event.Ptr("x"), Content: json.RawMessage(`{}`)}}},
		} {
			t.Run(fmt.Sprintf("seed %d/%s", seed, tc.name), func(t *testing.T) {
				whole := &event.RunAgentInput{ThreadID: "t1", RunID: "r2", Messages: append(append([]event.Message{}, hist[:tc.held]...), tc.tail...), State: json.RawMessage(`{"s":1}`)}
				want, err := reducer.Input(v, whole)
				require.NoError(t, err)
				tail := *whole
				tail.Messages = tc.tail
				lastID := ""
				if tc.held > 0 {
					lastID = hist[tc.held-1].ID
				}
				got, err := reducer.InputAfter(v, tc.held, lastID, &tail)
				require.NoError(t, err)
				assert.Equal(t, viewJSON(t, want), viewJSON(t, got))
				assert.Equal(t, want.MessageList(), got.MessageList())
			})
		}
		_, err := reducer.InputAfter(v, len(hist)+1, "", &event.RunAgentInput{})
		var ie *reducer.InputError
		require.ErrorAs(t, err, &ie, "more held messages than the view holds")
		_, err = reducer.InputAfter(v, 2, "not-the-id", &event.RunAgentInput{})
		require.ErrorAs(t, err, &ie, "another message at the held end")
		t.Logf("seed %d: %d messages, %d activity", seed, len(hist), activity)
	}
}
