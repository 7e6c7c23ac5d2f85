package agenttest_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// swarmConfigs are the configurations every swarm test runs.
var swarmConfigs = []struct {
	name        string
	cfg         *agenttest.SwarmConfig
	researchers int // 0: whatever the seed picks (3 to 8)
}{
	{name: "nil config", cfg: nil},
	{name: "seed 1", cfg: &agenttest.SwarmConfig{Seed: 1}},
	{name: "seed 2", cfg: &agenttest.SwarmConfig{Seed: 2}},
	{name: "seed 42", cfg: &agenttest.SwarmConfig{Seed: 42}},
	{name: "one researcher raised to three", cfg: &agenttest.SwarmConfig{Seed: 3, Researchers: 1}, researchers: 3},
	{name: "eight researchers", cfg: &agenttest.SwarmConfig{Seed: 4, Researchers: 8}, researchers: 8},
	{name: "topics repeat beyond eight", cfg: &agenttest.SwarmConfig{Seed: 5, Researchers: 11, Rounds: 3}, researchers: 11},
	{name: "many rounds", cfg: &agenttest.SwarmConfig{Seed: 6, Researchers: 4, Rounds: 7}, researchers: 4},
	{name: "custom ids", cfg: &agenttest.SwarmConfig{Seed: 7, ThreadID: "th-x", RunID: "run-x"}},
}

func encodeSwarm(t testing.TB, events []event.Event) []string {
	t.Helper()
	out := make([]string, len(events))
	for i, e := range events {
		b, err := event.Encode(e)
		require.NoError(t, err, "event %d (%s) encodes", i, e.EventType())
		out[i] = string(b)
	}
	return out
}

func TestSwarmIsDeterministic(t *testing.T) {
	t.Parallel()
	a := encodeSwarm(t, agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 9}))
	b := encodeSwarm(t, agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 9}))
	assert.Equal(t, a, b, "the same configuration gives the same events")
	c := encodeSwarm(t, agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 10}))
	assert.NotEqual(t, a, c, "another seed gives another stream")
}

func TestSwarmEncodesAndDecodes(t *testing.T) {
	t.Parallel()
	for _, tc := range swarmConfigs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for i, e := range agenttest.SwarmEvents(tc.cfg) {
				b, err := event.Encode(e)
				require.NoError(t, err, "event %d (%s) encodes", i, e.EventType())
				d, err := event.Decode(b)
				require.NoError(t, err, "event %d decodes: %s", i, b)
				assert.Empty(t, d.Common().Warnings(), "event %d decodes without warnings", i)
				again, err := event.Encode(d)
				require.NoError(t, err)
				assert.JSONEq(t, string(b), string(again), "event %d survives a round trip", i)
			}
		})
	}
}

// swarmFacts is what a test reads off a swarm stream by itself, without the reducer.
type swarmFacts struct {
	started   map[string]*event.SubagentStarted
	errored   []string
	suspended []string
	finished  []string
	calls     map[string]*event.ToolCallStart
	args      map[string]string
	results   map[string]bool
	owners    map[string]bool // owners with attributed events, "" = the parent
	kinds     map[string]map[event.Type]bool
	finish    *event.RunFinished
}

func readSwarm(t *testing.T, events []event.Event) *swarmFacts {
	t.Helper()
	f := &swarmFacts{
		started: map[string]*event.SubagentStarted{}, calls: map[string]*event.ToolCallStart{},
		args: map[string]string{}, results: map[string]bool{}, owners: map[string]bool{},
		kinds: map[string]map[event.Type]bool{},
	}
	for _, e := range events {
		switch e := e.(type) {
		case *event.SubagentStarted:
			f.started[e.ID] = e
		case *event.SubagentError:
			f.errored = append(f.errored, e.ID)
		case *event.SubagentFinished:
			if e.Outcome != nil && e.Outcome.Type == event.SubagentSuspended {
				f.suspended = append(f.suspended, e.ID)
			} else {
				f.finished = append(f.finished, e.ID)
			}
		case *event.ToolCallStart:
			f.calls[e.ToolCallID] = e
		case *event.ToolCallArgs:
			f.args[e.ToolCallID] += e.Delta
		case *event.ToolCallResult:
			f.results[e.ToolCallID] = true
		case *event.RunFinished:
			f.finish = e
		}
		if e.EventType().Attributable() {
			owner, _ := e.SubagentRunID()
			f.owners[owner] = true
			if f.kinds[owner] == nil {
				f.kinds[owner] = map[event.Type]bool{}
			}
			f.kinds[owner][e.EventType()] = true
		}
	}
	return f
}

func TestSwarmShape(t *testing.T) {
	t.Parallel()
	for _, tc := range swarmConfigs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			events := agenttest.SwarmEvents(tc.cfg)
			require.NotEmpty(t, events)
			f := readSwarm(t, events)

			first, ok := events[0].(*event.RunStarted)
			require.True(t, ok, "the stream opens with RUN_STARTED")
			wantThread, wantRun := "thread-demo", "run-demo"
			if tc.cfg != nil && tc.cfg.ThreadID != "" {
				wantThread, wantRun = tc.cfg.ThreadID, tc.cfg.RunID
			}
			assert.Equal(t, wantThread, first.ThreadID)
			assert.Equal(t, wantRun, first.RunID)
			require.NotNil(t, f.finish, "the stream ends with RUN_FINISHED")
			assert.Same(t, events[len(events)-1], event.Event(f.finish))

			var researchers, summarizers []string
			for id, s := range f.started {
				switch s.Name {
				case "researcher":
					researchers = append(researchers, id)
					assert.Nil(t, s.ParentSubagentRunID, "researchers are spawned by the supervisor")
				case "summarizer":
					summarizers = append(summarizers, id)
					require.NotNil(t, s.ParentSubagentRunID, "a summarizer names its researcher")
					assert.Equal(t, "researcher", f.started[*s.ParentSubagentRunID].Name)
				default:
					t.Errorf("unexpected subagent name %q", s.Name)
				}
				require.NotNil(t, s.Description, "%s has a description", id)
				require.NotNil(t, s.ParentToolCallID, "%s names the tool call that spawned it", id)
				require.NotNil(t, s.ParentMessageID)
				call := f.calls[*s.ParentToolCallID]
				require.NotNil(t, call, "%s's parent tool call is in the stream", id)
				require.NotNil(t, call.ParentMessageID)
				assert.Equal(t, *call.ParentMessageID, *s.ParentMessageID, "%s's parent message holds its tool call", id)
				callOwner, _ := call.SubagentRunID()
				if s.ParentSubagentRunID == nil {
					assert.Empty(t, callOwner, "the supervisor makes the call that spawns a researcher")
				} else {
					assert.Equal(t, *s.ParentSubagentRunID, callOwner, "the researcher makes the call that spawns its summarizer")
				}
			}
			if tc.researchers > 0 {
				assert.Len(t, researchers, tc.researchers)
			} else {
				assert.GreaterOrEqual(t, len(researchers), 3)
				assert.LessOrEqual(t, len(researchers), 8)
			}
			assert.NotEmpty(t, summarizers, "at least one researcher delegates to a summarizer")
			assert.Len(t, f.errored, 1, "one researcher fails")
			assert.Len(t, f.suspended, 1, "one researcher suspends")
			assert.Len(t, f.finished, len(f.started)-2, "every other invocation finishes")

			require.NotNil(t, f.finish.Outcome)
			assert.Equal(t, event.OutcomeInterrupt, f.finish.Outcome.Type)
			require.Len(t, f.finish.Outcome.Interrupts, 1)
			in := f.finish.Outcome.Interrupts[0]
			require.NotNil(t, in.Subagent, "the interrupt is attributed")
			assert.Equal(t, f.suspended[0], *in.Subagent, "to the suspended researcher")
			require.NotNil(t, in.ToolCallID)
			assert.False(t, f.results[*in.ToolCallID], "the call awaiting approval has no result")

			for id, args := range f.args {
				assert.True(t, json.Valid([]byte(args)), "the streamed arguments of %s are JSON: %s", id, args)
			}
			for _, id := range researchers {
				for _, k := range []event.Type{event.TypeStepStarted, event.TypeReasoningStart, event.TypeReasoningMessageContent,
					event.TypeTextMessageContent, event.TypeToolCallArgs, event.TypeToolCallResult, event.TypeStateDelta} {
					assert.True(t, f.kinds[id][k], "researcher %s has %s events", id, k)
				}
			}
			for _, k := range []event.Type{event.TypeStateSnapshot, event.TypeActivitySnapshot, event.TypeActivityDelta,
				event.TypeReasoningStart, event.TypeStepStarted} {
				assert.True(t, f.kinds[""][k], "the supervisor has %s events", k)
			}
			assert.True(t, swarmInterleaved(events), "the invocations' events interleave")
		})
	}
}

// swarmInterleaved reports whether some invocation's events are interrupted by
// another invocation's and then resume.
func swarmInterleaved(events []event.Event) bool {
	last := ""
	done := map[string]bool{}
	for _, e := range events {
		if !e.EventType().Attributable() {
			continue
		}
		owner, ok := e.SubagentRunID()
		if !ok || owner == last {
			continue
		}
		if done[owner] {
			return true
		}
		if last != "" {
			done[last] = true
		}
		last = owner
	}
	return false
}

// TestSwarmFoldsCleanly folds the swarm with the reducer: no event is
// refused, no warning is raised, and the statuses are the ones promised.
func TestSwarmFoldsCleanly(t *testing.T) {
	t.Parallel()
	for _, tc := range swarmConfigs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			events := agenttest.SwarmEvents(tc.cfg)
			v := view.New()
			for i, e := range events {
				var err error
				v, err = reducer.Fold(v, e)
				require.NoError(t, err, "event %d (%s) is accepted", i, e.EventType())
			}
			v = reducer.End(v, nil)
			assert.Empty(t, v.Diagnostics(), "no violation and no warning")

			runs := v.Runs()
			require.Len(t, runs, 1)
			assert.Equal(t, view.RunInterrupted, runs[0].Status)

			counts := map[string]map[view.Status]int{}
			for inv := range v.Invocations() {
				if counts[inv.Name()] == nil {
					counts[inv.Name()] = map[view.Status]int{}
				}
				counts[inv.Name()][inv.Status()]++
			}
			researchers := 0
			for _, n := range counts["researcher"] {
				researchers += n
			}
			assert.Equal(t, map[view.Status]int{view.Errored: 1, view.Suspended: 1, view.Finished: researchers - 2}, counts["researcher"])
			require.Contains(t, counts, "summarizer")
			assert.Equal(t, []view.Status{view.Finished}, swarmKeys(counts["summarizer"]), "every summarizer finishes")

			pending := v.PendingInterrupts()
			require.Len(t, pending, 1)
			require.NotNil(t, pending[0].Subagent)
			inv := v.Invocation(*pending[0].Subagent)
			require.NotNil(t, inv)
			assert.Equal(t, view.Suspended, inv.Status(), "the pending interrupt belongs to the suspended researcher")

			var state map[string]any
			require.NoError(t, json.Unmarshal(v.State(), &state))
			assert.Equal(t, "awaiting-approval", state["phase"])
			rs, ok := state["researchers"].(map[string]any)
			require.True(t, ok)
			assert.Len(t, rs, researchers, "every researcher reported to the run state")

			var texts int
			for m := range v.Messages() {
				if m.Role == event.RoleAssistant && len(m.Content) > 2 {
					texts++
					var s string
					require.NoError(t, json.Unmarshal(m.Content, &s))
					assert.NotContains(t, s, "  ", "message %s is cleanly assembled", m.ID)
				}
			}
			assert.Greater(t, texts, researchers, "researchers and the supervisor write messages")
		})
	}
}

// TestSwarmResumeFoldsCleanly folds the first run and the resumed run into
// one view: the suspended researcher is continued, not duplicated, and the
// thread ends with nothing pending.
func TestSwarmResumeFoldsCleanly(t *testing.T) {
	t.Parallel()
	for _, tc := range swarmConfigs {
		for _, approved := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/approved=%v", tc.name, approved), func(t *testing.T) {
				t.Parallel()
				first := agenttest.SwarmEvents(tc.cfg)
				second := agenttest.SwarmResumeEvents(tc.cfg, approved)
				f := readSwarm(t, first)
				require.Len(t, f.suspended, 1)
				suspended := f.suspended[0]

				v := view.New()
				for i, e := range append(first[:len(first):len(first)], second...) {
					var err error
					v, err = reducer.Fold(v, e)
					require.NoError(t, err, "event %d (%s) is accepted", i, e.EventType())
				}
				assert.Empty(t, v.Diagnostics(), "no violation and no warning")
				runs := v.Runs()
				require.Len(t, runs, 2)
				assert.Equal(t, view.RunInterrupted, runs[0].Status)
				assert.Equal(t, view.RunFinished, runs[1].Status)
				assert.Equal(t, runs[0].ThreadID, runs[1].ThreadID, "the same thread")
				assert.NotEqual(t, runs[0].RunID, runs[1].RunID, "a new run")
				assert.Empty(t, v.PendingInterrupts(), "the approval was answered")
				assert.Equal(t, len(f.started), swarmCount(v), "the suspended researcher was continued, not started anew")
				inv := v.Invocation(suspended)
				require.NotNil(t, inv)
				assert.Equal(t, view.Finished, inv.Status())

				var state map[string]any
				require.NoError(t, json.Unmarshal(v.State(), &state))
				assert.Equal(t, "done", state["phase"])

				g := readSwarm(t, second)
				in := f.finish.Outcome.Interrupts[0]
				assert.True(t, g.results[*in.ToolCallID], "the call that waited for approval has its result")
			})
		}
	}
}

func swarmCount(v *view.View) int {
	n := 0
	for range v.Invocations() {
		n++
	}
	return n
}

func TestSwarmScriptResumes(t *testing.T) {
	t.Parallel()
	cfg := &agenttest.SwarmConfig{Seed: 3}
	f := readSwarm(t, agenttest.SwarmEvents(cfg))
	interrupt := f.finish.Outcome.Interrupts[0].ID

	cases := []struct {
		name     string
		resume   []event.ResumeEntry
		resumed  bool
		approved bool
	}{
		{name: "no resume entry", resumed: false},
		{name: "another interrupt", resume: []event.ResumeEntry{{InterruptID: "other", Status: event.ResumeResolved}}},
		{name: "approved", resumed: true, approved: true,
			resume: []event.ResumeEntry{{InterruptID: interrupt, Status: event.ResumeResolved, Payload: json.RawMessage(`{"approved":true,"note":"go"}`)}}},
		{name: "declined", resumed: true,
			resume: []event.ResumeEntry{{InterruptID: interrupt, Status: event.ResumeResolved, Payload: json.RawMessage(`{"approved":false}`)}}},
		{name: "cancelled", resumed: true,
			resume: []event.ResumeEntry{{InterruptID: interrupt, Status: event.ResumeCancelled}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			input := &event.RunAgentInput{ThreadID: "thread-demo", RunID: "run-2", Resume: tc.resume}
			var got []event.Event
			for frame := range agenttest.Swarm(cfg).Frames(input) {
				e, err := event.Decode(frame)
				require.NoError(t, err)
				got = append(got, e)
			}
			require.NotEmpty(t, got)
			start, ok := got[0].(*event.RunStarted)
			require.True(t, ok)
			assert.Equal(t, "run-2", start.RunID, "the run takes the input's id")
			if !tc.resumed {
				assert.Len(t, got, len(agenttest.SwarmEvents(cfg)), "the first run is played")
				return
			}
			want := agenttest.SwarmResumeEvents(cfg, tc.approved)
			require.Len(t, got, len(want), "the resumed run is played")
			for i := range want {
				assert.Equal(t, want[i].EventType(), got[i].EventType(), "event %d", i)
			}
			require.NotNil(t, start.Input)
			assert.Equal(t, tc.resume, start.Input.Resume, "RUN_STARTED echoes the resume entries")
			var purchase string
			for _, e := range got {
				if r, ok := e.(*event.ToolCallResult); ok && r.ToolCallID == *f.finish.Outcome.Interrupts[0].ToolCallID {
					require.NoError(t, json.Unmarshal(r.Content, &purchase))
				}
			}
			if tc.approved {
				assert.Contains(t, purchase, "Purchased")
			} else {
				assert.Contains(t, purchase, "declined")
			}
		})
	}
}

func swarmKeys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestSwarmRoundsScaleTheStream(t *testing.T) {
	t.Parallel()
	small := len(agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 1, Researchers: 4, Rounds: 1}))
	large := len(agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 1, Researchers: 4, Rounds: 21}))
	perRound := float64(large-small) / 20 / 4
	assert.Greater(t, perRound, 10.0, "a round adds events for each researcher")
	assert.Less(t, perRound, 40.0, "a round adds a bounded number of events")
}

func TestSwarmScript(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		cfg         *agenttest.SwarmConfig
		input       *event.RunAgentInput
		thread, run string
	}{
		{name: "no input", cfg: &agenttest.SwarmConfig{Seed: 1}, thread: "thread-demo", run: "run-demo"},
		{name: "ids from the input", cfg: &agenttest.SwarmConfig{Seed: 1},
			input: &event.RunAgentInput{ThreadID: "th-9", RunID: "r-9"}, thread: "th-9", run: "r-9"},
		{name: "ids from the config win", cfg: &agenttest.SwarmConfig{Seed: 1, ThreadID: "th-c", RunID: "r-c"},
			input: &event.RunAgentInput{ThreadID: "th-9", RunID: "r-9"}, thread: "th-c", run: "r-c"},
		{name: "nil config", cfg: nil, input: &event.RunAgentInput{ThreadID: "th-9", RunID: "r-9"}, thread: "th-9", run: "r-9"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := agenttest.SwarmConfig{ThreadID: tc.thread, RunID: tc.run}
			if tc.cfg != nil {
				want.Seed = tc.cfg.Seed
			}
			wantFrames := encodeSwarm(t, agenttest.SwarmEvents(&want))
			var got []string
			for f := range agenttest.Swarm(tc.cfg).Frames(tc.input) {
				got = append(got, string(f))
			}
			assert.Equal(t, wantFrames, got)
		})
	}

	// Stopping early is fine.
	n := 0
	for range agenttest.Swarm(nil).Frames(nil) {
		if n++; n == 3 {
			break
		}
	}
	assert.Equal(t, 3, n)
}

func TestSwarmTextReadsWell(t *testing.T) {
	t.Parallel()
	var text strings.Builder
	for _, e := range agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 1}) {
		if c, ok := e.(*event.TextMessageContent); ok {
			text.WriteString(c.Delta)
		}
	}
	s := text.String()
	assert.NotContains(t, strings.ToLower(s), "lorem")
	assert.Contains(t, s, "bus", "the demo talks about its question")
}

func BenchmarkSwarmEvents(b *testing.B) {
	for _, rounds := range []int{2, 50} {
		b.Run(fmt.Sprintf("rounds=%d", rounds), func(b *testing.B) {
			cfg := &agenttest.SwarmConfig{Seed: 1, Researchers: 8, Rounds: rounds}
			n := len(agenttest.SwarmEvents(cfg))
			b.ReportAllocs()
			for b.Loop() {
				agenttest.SwarmEvents(cfg)
			}
			b.ReportMetric(float64(n), "events/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
		})
	}
}

// The demo swarm, folded: a supervisor's researchers, one of which failed and
// one of which waits for approval, and a summarizer.
func ExampleSwarmEvents() {
	events := agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 1, Researchers: 3})
	v := view.New()
	for _, e := range events {
		v, _ = reducer.Fold(v, e)
	}
	for inv := range v.Invocations() {
		fmt.Printf("%s %s (%s)\n", inv.ID(), inv.Name(), inv.Status())
	}
	fmt.Println("run:", v.Runs()[0].Status)
	// Output:
	// sa-51a7afbd researcher (finished)
	// sa-0dd15648 researcher (errored)
	// sa-d323eef0 researcher (suspended)
	// sa-b4908297 summarizer (finished)
	// run: interrupted
}

// Swarm plays the demo for every run an agenttest server serves, with the
// thread and run ids of the run's input.
func ExampleSwarm() {
	script := agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1})
	var frames []json.RawMessage
	for frame := range script.Frames(&event.RunAgentInput{ThreadID: "th-1", RunID: "run-1"}) {
		frames = append(frames, frame)
	}
	first, _ := event.Decode(frames[0])
	last, _ := event.Decode(frames[len(frames)-1])
	fmt.Println(first.EventType(), first.(*event.RunStarted).RunID)
	fmt.Println(last.EventType(), last.(*event.RunFinished).Outcome.Type)
	// Output:
	// RUN_STARTED run-1
	// RUN_FINISHED interrupt
}
