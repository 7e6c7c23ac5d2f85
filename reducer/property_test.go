package reducer_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// streamGen builds a random stream that follows every rule: several runs,
// nested subagents announced and attribution-only, interleaved text, tool
// calls with results, reasoning, steps, chunk streams, attributed state
// deltas, suspended invocations continued in a later run, RUN_ERROR.
type streamGen struct {
	t   *rapid.T
	evs []event.Event
	n   int

	suspended []string // suspended in an earlier run: may be continued
	// per run
	active     []string
	started    map[string]bool
	closed     map[string]bool
	attributed map[string]bool
	ghosts     []string // attribution-only ids of this run
	text       map[string][]string
	rsn        map[string][]string
	tools      map[string][]string
	steps      map[string][]string
	lane       map[string]string // owner → message id of its pending text chunk stream
	// stream-wide
	msgs      map[string][]string // owner → assistant messages it owns (for parentMessageId)
	answered  []string            // tool calls closed and not yet answered
	stateKeys int
}

func (g *streamGen) id(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

func (g *streamGen) emit(e event.Event) { g.evs = append(g.evs, e) }

func (g *streamGen) draw(n int, label string) int { return rapid.IntRange(0, n-1).Draw(g.t, label) }

func (g *streamGen) coin(label string) bool { return rapid.Bool().Draw(g.t, label) }

// tag returns the attribution for owner o ("" = the parent agent); when
// optional, a subagent's continuation may leave it out (untagged agrees).
func (g *streamGen) tag(o string, optional bool) event.Attribution {
	if o == "" || (optional && g.coin("untagged")) {
		return event.Attribution{}
	}
	return event.By(o)
}

// closesLane records that an explicit event with this attribution closes the
// chunk lane of its tag (absent: the parent's).
func (g *streamGen) closesLane(a event.Attribution) {
	key := ""
	if a.Subagent != nil {
		key = *a.Subagent
	}
	if id, ok := g.lane[key]; ok {
		g.text[key] = slices.DeleteFunc(g.text[key], func(s string) bool { return s == id })
		delete(g.lane, key)
	}
}

func (g *streamGen) owners() []string {
	out := []string{""}
	out = append(out, g.active...)
	return append(out, g.ghosts...)
}

func (g *streamGen) startRun(run int) {
	g.active, g.ghosts = nil, nil
	g.started, g.closed, g.attributed = map[string]bool{}, map[string]bool{}, map[string]bool{}
	g.text, g.rsn, g.tools, g.steps = map[string][]string{}, map[string][]string{}, map[string][]string{}, map[string][]string{}
	g.lane = map[string]string{}
	g.emit(&event.RunStarted{ThreadID: "th", RunID: fmt.Sprintf("run-%d", run)})
}

func (g *streamGen) mark(owner string) {
	if owner != "" {
		g.attributed[owner] = true
	}
}

func (g *streamGen) step() {
	owners := g.owners()
	o := owners[g.draw(len(owners), "owner")]
	switch g.draw(16, "action") {
	case 0: // announce a subagent, maybe nested, maybe spawned by a tool call
		id := g.id("sa")
		e := &event.SubagentStarted{ID: id, Name: "worker"}
		if len(g.active) > 0 && g.coin("nested") {
			p := g.active[g.draw(len(g.active), "parent")]
			e.ParentSubagentRunID = &p
		}
		g.emit(e)
		g.active = append(g.active, id)
		g.started[id] = true
	case 1: // continue a suspended invocation of an earlier run
		if len(g.suspended) == 0 {
			return
		}
		i := g.draw(len(g.suspended), "suspended")
		id := g.suspended[i]
		if g.started[id] || g.attributed[id] || g.closed[id] {
			return
		}
		g.suspended = slices.Delete(g.suspended, i, i+1)
		g.emit(&event.SubagentStarted{ID: id, Name: "worker"})
		g.active = append(g.active, id)
		g.started[id] = true
	case 2: // end a subagent (its open entities may stay open: R20)
		if len(g.active) == 0 {
			return
		}
		i := g.draw(len(g.active), "finish")
		id := g.active[i]
		g.active = slices.Delete(g.active, i, i+1)
		g.closed[id] = true
		if lid, ok := g.lane[id]; ok { // SUBAGENT_FINISHED/ERROR ends its lane's stream
			g.text[id] = slices.DeleteFunc(g.text[id], func(s string) bool { return s == lid })
			delete(g.lane, id)
		}
		switch g.draw(3, "how") {
		case 0:
			g.emit(&event.SubagentFinished{ID: id, Result: json.RawMessage(`{"ok":true}`)})
		case 1:
			g.emit(&event.SubagentFinished{ID: id, Outcome: &event.SubagentOutcome{Type: event.SubagentSuspended, InterruptIDs: []string{"int-" + id}}})
			g.suspended = append(g.suspended, id)
		default:
			g.emit(&event.SubagentError{ID: id, Message: "failed"})
		}
	case 3: // an attribution-only producer appears
		g.ghosts = append(g.ghosts, g.id("ghost"))
	case 4: // open a text message
		id := g.id("m")
		a := g.tag(o, false)
		g.closesLane(a)
		g.emit(&event.TextMessageStart{Attribution: a, MessageID: id})
		g.mark(o)
		g.text[o] = append(g.text[o], id)
		g.msgs[o] = append(g.msgs[o], id)
	case 5, 6: // stream into an open text message
		if id, ok := g.openNotLane(o); ok {
			a := g.tag(o, true)
			g.closesLane(a)
			if !slices.Contains(g.text[o], id) {
				return // the lane closing took it
			}
			g.emit(&event.TextMessageContent{Attribution: a, MessageID: id, Delta: g.id("w") + " "})
		}
	case 7: // end a text message
		if id, ok := g.openNotLane(o); ok {
			a := g.tag(o, true)
			g.closesLane(a)
			if !slices.Contains(g.text[o], id) {
				return
			}
			g.emit(&event.TextMessageEnd{Attribution: a, MessageID: id})
			g.text[o] = slices.DeleteFunc(g.text[o], func(s string) bool { return s == id })
		}
	case 8: // a tool call, in one of the owner's messages or its own
		id := g.id("tc")
		a := g.tag(o, false)
		g.closesLane(a)
		e := &event.ToolCallStart{Attribution: a, ToolCallID: id, ToolCallName: "search"}
		if ms := g.msgs[o]; len(ms) > 0 && g.coin("parent message") {
			p := ms[g.draw(len(ms), "message")]
			e.ParentMessageID = &p
		} else {
			g.msgs[o] = append(g.msgs[o], id)
		}
		g.emit(e)
		g.mark(o)
		g.tools[o] = append(g.tools[o], id)
	case 9: // stream arguments or end a tool call
		if ts := g.tools[o]; len(ts) > 0 {
			id := ts[g.draw(len(ts), "tool")]
			a := g.tag(o, true)
			g.closesLane(a)
			if g.coin("end") {
				g.emit(&event.ToolCallEnd{Attribution: a, ToolCallID: id})
				g.tools[o] = slices.DeleteFunc(g.tools[o], func(s string) bool { return s == id })
				g.answered = append(g.answered, id)
			} else {
				g.emit(&event.ToolCallArgs{Attribution: a, ToolCallID: id, Delta: `{"q":1}`})
			}
		}
	case 10: // a result, attributed to whoever executed it
		if len(g.answered) > 0 {
			i := g.draw(len(g.answered), "result")
			a := g.tag(o, false)
			g.closesLane(a)
			g.emit(&event.ToolCallResult{Attribution: a, MessageID: g.id("res"), ToolCallID: g.answered[i], Content: json.RawMessage(`"done"`)})
			g.mark(o)
			g.answered = slices.Delete(g.answered, i, i+1)
		}
	case 11: // steps
		a := g.tag(o, false)
		g.closesLane(a)
		if ss := g.steps[o]; len(ss) > 0 && g.coin("finish step") {
			name := ss[len(ss)-1]
			g.emit(&event.StepFinished{Attribution: a, StepName: name})
			g.steps[o] = ss[:len(ss)-1]
		} else {
			name := g.id("step")
			g.emit(&event.StepStarted{Attribution: a, StepName: name})
			g.steps[o] = append(g.steps[o], name)
		}
		g.mark(o)
	case 12: // run-scoped state, from anyone
		a := g.tag(o, false)
		g.closesLane(a)
		g.stateKeys++
		g.emit(&event.StateDelta{Attribution: a, Delta: json.RawMessage(fmt.Sprintf(`[{"op":"add","path":"/k%d","value":%d}]`, g.stateKeys, g.stateKeys))})
		g.mark(o)
	case 13: // reasoning
		a := g.tag(o, false)
		g.closesLane(a)
		if rs := g.rsn[o]; len(rs) > 0 {
			id := rs[0]
			if g.coin("end reasoning") {
				g.emit(&event.ReasoningMessageEnd{Attribution: a, MessageID: id})
				g.rsn[o] = rs[1:]
			} else {
				g.emit(&event.ReasoningMessageContent{Attribution: a, MessageID: id, Delta: "hmm "})
			}
		} else {
			id := g.id("r")
			g.emit(&event.ReasoningMessageStart{Attribution: a, MessageID: id, Role: event.RoleReasoning})
			g.rsn[o] = append(g.rsn[o], id)
		}
		g.mark(o)
	case 14, 15: // a chunk stream in the owner's lane
		if o == "" {
			return // untagged id-less chunks may resolve to another lane
		}
		a := event.By(o)
		d := g.id("c") + " "
		if _, ok := g.lane[o]; ok && g.coin("continue chunk") {
			g.emit(&event.TextMessageChunk{Attribution: a, Delta: &d})
		} else {
			if old, ok := g.lane[o]; ok {
				g.text[o] = slices.DeleteFunc(g.text[o], func(s string) bool { return s == old })
			}
			id := g.id("cm")
			g.emit(&event.TextMessageChunk{Attribution: a, MessageID: &id, Delta: &d})
			g.lane[o] = id
			g.text[o] = append(g.text[o], id)
			g.msgs[o] = append(g.msgs[o], id)
		}
		g.mark(o)
	}
}

// openNotLane returns an open text message of o that no chunk lane holds.
func (g *streamGen) openNotLane(o string) (string, bool) {
	var ids []string
	for _, id := range g.text[o] {
		if g.lane[o] != id {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "", false
	}
	return ids[g.draw(len(ids), "message")], true
}

// closeAll ends everything still open so that RUN_FINISHED is valid.
func (g *streamGen) closeAll() {
	for _, o := range g.allOwners() {
		for _, id := range g.text[o] {
			if g.lane[o] == id {
				continue // RUN_FINISHED closes the lane
			}
			g.emit(&event.TextMessageEnd{MessageID: id})
		}
		for _, id := range g.tools[o] {
			g.emit(&event.ToolCallEnd{Attribution: g.tag(o, false), ToolCallID: id})
			g.answered = append(g.answered, id)
		}
		for _, id := range g.rsn[o] {
			g.emit(&event.ReasoningMessageEnd{MessageID: id})
		}
		for i := len(g.steps[o]) - 1; i >= 0; i-- {
			g.emit(&event.StepFinished{Attribution: g.tag(o, false), StepName: g.steps[o][i]})
		}
	}
	for i := len(g.active) - 1; i >= 0; i-- {
		g.emit(&event.SubagentFinished{ID: g.active[i]})
	}
}

// allOwners returns every owner with bookkeeping, in a fixed order.
func (g *streamGen) allOwners() []string {
	set := map[string]bool{}
	for _, m := range []map[string][]string{g.text, g.tools, g.rsn, g.steps} {
		for o := range m {
			set[o] = true
		}
	}
	var out []string
	for o := range set {
		out = append(out, o)
	}
	slices.Sort(out)
	return out
}

func genStream(t *rapid.T) []event.Event {
	g := &streamGen{t: t, msgs: map[string][]string{}}
	runs := rapid.IntRange(1, 3).Draw(t, "runs")
	for run := range runs {
		g.startRun(run)
		steps := rapid.IntRange(0, 60).Draw(t, "steps")
		for range steps {
			g.step()
		}
		if run < runs-1 && g.coin("run error") {
			g.emit(&event.RunError{Message: "boom"})
			// Abandoned, not suspended: only ids suspended before stay continuable.
			continue
		}
		g.closeAll()
		g.emit(&event.RunFinished{ThreadID: "th", RunID: fmt.Sprintf("run-%d", run)})
	}
	return g.evs
}

func marshal(t require.TestingT, v *view.View) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestPropertyValidStreams: every random valid stream is accepted; folding
// from random branch points (after folding something else from the same
// view) gives the same result as folding from scratch; and no published view
// ever changes.
func TestPropertyValidStreams(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		evs := genStream(t)
		views := make([]*view.View, 0, len(evs)+1)
		v := view.New()
		views = append(views, v)
		for i, e := range evs {
			next, err := reducer.Reduce(v, e)
			require.NoError(t, err, "event %d (%s) of a valid stream", i, e.EventType())
			v = next
			views = append(views, v)
		}
		final := marshal(t, v)
		assert.Zero(t, v.ViolationCount())

		// Record some views' JSON now, to check later that they never change.
		probes := rapid.SliceOfN(rapid.IntRange(0, len(evs)), 1, 4).Draw(t, "probes")
		recorded := map[int]string{}
		for _, p := range probes {
			recorded[p] = marshal(t, views[p])
		}
		for _, b := range rapid.SliceOfN(rapid.IntRange(0, len(evs)), 1, 3).Draw(t, "branches") {
			// A different continuation first: the suffix in reverse (mostly
			// refused, partly folded), sharing memory with the original.
			w := views[b]
			for i := len(evs) - 1; i >= b; i-- {
				w, _ = reducer.Fold(w, evs[i])
			}
			_ = marshal(t, w)
			// Then the real suffix, twice.
			for range 2 {
				u := views[b]
				for i := b; i < len(evs); i++ {
					var err error
					u, err = reducer.Reduce(u, evs[i])
					require.NoError(t, err, "replaying event %d from branch %d", i, b)
				}
				require.Equal(t, final, marshal(t, u), "folding from branch point %d must equal folding from scratch", b)
			}
		}
		for p, want := range recorded {
			require.Equal(t, want, marshal(t, views[p]), "view %d changed after it was published", p)
		}
	})
}

// TestConcurrentReaders folds streams while other goroutines read every
// published view through the whole read API (run it with -race).
func TestConcurrentReaders(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	var streams [][]event.Event
	for _, vec := range vecs {
		if vec.Name[:3] != "15-" {
			continue
		}
		var evs []event.Event
		for _, raw := range vec.Events {
			if e, err := event.Decode(raw); err == nil {
				evs = append(evs, e)
			}
		}
		streams = append(streams, evs)
	}
	var latest atomic.Pointer[view.View]
	latest.Store(view.New())
	var done atomic.Bool
	var wg sync.WaitGroup
	var reads [3]atomic.Int64
	for r := range reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				v := latest.Load()
				_, _ = json.Marshal(v)
				for inv := range v.Invocations() {
					_ = inv.ToolCalls()
					_ = inv.Reasoning()
					_ = inv.Activity()
					_ = inv.Steps()
					for m := range inv.Messages() {
						_ = m.Content
					}
				}
				_ = v.Root().MessageIDs()
				_ = v.State()
				reads[r].Add(1)
			}
		}()
	}
	// Fold the streams again and again until every reader has read a few
	// views (a reader may not be scheduled at first on a busy machine).
	least := func() int64 {
		m := reads[0].Load()
		for r := range reads {
			m = min(m, reads[r].Load())
		}
		return m
	}
	for pass := 0; pass < 1000 && least() < 5; pass++ {
		for _, evs := range streams {
			v := view.New()
			for _, e := range evs {
				v, _ = reducer.Fold(v, e)
				latest.Store(v)
			}
		}
	}
	done.Store(true)
	wg.Wait()
	for r := range reads {
		assert.GreaterOrEqual(t, reads[r].Load(), int64(5), "reader %d read views while they were folded", r)
	}
}
