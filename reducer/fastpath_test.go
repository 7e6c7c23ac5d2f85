package reducer_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// The fast paths (streamed deltas read in place by FoldJSON, changes made in
// place by a Builder) must give exactly what decoding each event and folding
// it with Fold gives. paths folds one stream four ways and checks that they
// agree after every event, on the error and on the whole view; the views a
// Builder handed out must never change afterwards.
type paths struct {
	t       testing.TB
	ref     *view.View // Fold(Decode(line))
	js      *view.View // FoldJSON(line)
	bj, be  *reducer.Builder
	handed  []*view.View // views the builders handed out
	handedJ [][]byte     // and their JSON when handed out
	every   int          // compare FoldJSON's view after every every-th event only (0: all)
}

func newPaths(t testing.TB) *paths {
	return &paths{t: t, ref: view.New(), js: view.New(),
		bj: reducer.NewBuilder(view.New()), be: reducer.NewBuilder(view.New())}
}

// line folds one wire event; hand asks the builders for their view after it
// and compares it with Fold's, as it compares FoldJSON's but on large
// streams, where every p.every-th event is compared only.
func (p *paths) line(i int, line []byte, hand bool) {
	t := p.t
	var refErr error
	if e, err := event.Decode(line); err == nil {
		p.ref, refErr = reducer.Fold(p.ref, e)
		beErr := p.be.Fold(e)
		sameErr(t, i, "Builder.Fold", refErr, beErr)
	} else {
		var ute *event.UnknownTypeError
		if errors.As(err, &ute) {
			p.ref = reducer.Refuse(p.ref, ute.Type, err)
			p.be.Refuse(ute.Type, err)
		} else {
			p.ref, refErr = reducer.FoldJSON(p.ref, line)
			p.be.Refuse("", err)
		}
	}
	var jsErr error
	p.js, jsErr = reducer.FoldJSON(p.js, line)
	sameErr(t, i, "FoldJSON", refErr, jsErr)
	sameErr(t, i, "Builder.FoldJSON", refErr, p.bj.FoldJSON(line))
	if hand {
		want := viewJSON(t, p.ref)
		for name, b := range map[string]*reducer.Builder{"Builder.FoldJSON": p.bj, "Builder.Fold": p.be} {
			v := b.View()
			if got := viewJSON(t, v); !bytes.Equal(want, got) {
				t.Fatalf("event %d (%s): %s differs from Fold:\n%s\n%s", i, line, name, want, got)
			}
			sameVersions(t, i, name, p.ref, v)
			p.handed, p.handedJ = append(p.handed, v), append(p.handedJ, want)
		}
	}
	if p.every > 1 && i%p.every != 0 {
		return
	}
	if got := viewJSON(t, p.js); !bytes.Equal(viewJSON(t, p.ref), got) {
		t.Fatalf("event %d (%s): FoldJSON differs from Fold:\n%s\n%s", i, line, viewJSON(t, p.ref), got)
	}
}

// end ends the stream on every path and checks the results and the views
// handed out before.
func (p *paths) end() {
	t := p.t
	want := viewJSON(t, reducer.End(p.ref, nil))
	for name, v := range map[string]*view.View{
		"FoldJSON": reducer.End(p.js, nil), "Builder.FoldJSON": p.bj.End(nil), "Builder.Fold": p.be.End(nil),
	} {
		if got := viewJSON(t, v); !bytes.Equal(want, got) {
			t.Fatalf("final view of %s differs from Fold:\n%s\n%s", name, want, got)
		}
	}
	for k, v := range p.handed {
		if got := viewJSON(t, v); !bytes.Equal(p.handedJ[k], got) {
			t.Fatalf("view %d a Builder handed out changed afterwards:\n%s\n%s", k, p.handedJ[k], got)
		}
	}
}

// sameVersions checks that every invocation has the same version in got
// as in want (the JSON form leaves versions out).
func sameVersions(t testing.TB, i int, name string, want, got *view.View) {
	t.Helper()
	if w, g := want.Root().Version(), got.Root().Version(); w != g {
		t.Fatalf("event %d: %s: root version %d, Fold gives %d", i, name, g, w)
	}
	var ws, gs []*view.Invocation // in first-seen order; an id may recur (G10)
	for inv := range want.Invocations() {
		ws = append(ws, inv)
	}
	for inv := range got.Invocations() {
		gs = append(gs, inv)
	}
	if len(ws) != len(gs) {
		t.Fatalf("event %d: %s: %d invocations, Fold gives %d", i, name, len(gs), len(ws))
	}
	for k, w := range ws {
		if g := gs[k]; g.ID() != w.ID() || g.Version() != w.Version() {
			t.Fatalf("event %d: %s: invocation %d is %s version %d, Fold gives %s version %d", i, name, k, g.ID(), g.Version(), w.ID(), w.Version())
		}
	}
}

func sameErr(t testing.TB, i int, name string, want, got error) {
	t.Helper()
	if (want == nil) != (got == nil) || want != nil && want.Error() != got.Error() {
		t.Fatalf("event %d: %s returned %v; Fold returned %v", i, name, got, want)
	}
}

func viewJSON(t testing.TB, v *view.View) []byte {
	t.Helper()
	b, err := v.MarshalJSON()
	require.NoError(t, err)
	return b
}

// TestFastPathsAgreeOnVectors folds every conformance vector four ways,
// handing out views at every third event.
func TestFastPathsAgreeOnVectors(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	for _, vec := range vecs {
		t.Run(vec.Name, func(t *testing.T) {
			p := newPaths(t)
			for i, line := range bytes.Split(bytes.TrimSpace(vec.JSONL()), []byte{'\n'}) {
				p.line(i, line, i%3 == 2)
			}
			p.end()
		})
	}
}

// TestFastPathsAgreeOnWorkloads folds the generated chat and swarm streams
// four ways, handing out views now and then.
func TestFastPathsAgreeOnWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, profile := range []string{"chat", "swarm"} {
		t.Run(profile, func(t *testing.T) {
			stream, manifest := benchwork.Stream(t, profile, 10000)
			p := newPaths(t)
			p.every = 499
			for i, line := range benchwork.Lines(t, stream) {
				p.line(i, line, i%997 == 0)
			}
			p.end()
			checkManifest(t, p.bj.View(), manifest)
		})
	}
}

// TestFastPathCases covers the shapes the fast paths must leave to the full
// path, and the escapes they decode themselves.
func TestFastPathCases(t *testing.T) {
	head := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"w"}`,
		`{"type":"TEXT_MESSAGE_START","subagentRunId":"s1","messageId":"m1","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant"}`,
		`{"type":"TOOL_CALL_START","subagentRunId":"s1","toolCallId":"c1","toolCallName":"f"}`,
		`{"type":"REASONING_START","messageId":"r0"}`,
		`{"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"}`,
	}
	cases := map[string][]string{
		"plain":              {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"b"}`},
		"escapes":            {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"\"q\"\n\t\\ \u00e9\u4e2d\/"}`},
		"surrogate pair":     {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"\ud83d\ude00"}`},
		"lone surrogate":     {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"\ud83d"}`},
		"long escaped":       {`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"` + string(bytes.Repeat([]byte(`\n`), 2000)) + `"}`},
		"escaped id":         {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m\u0031","delta":"x"}`},
		"escaped tag":        {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s\u0031","messageId":"m1","delta":"x"}`},
		"untagged parent":    {`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"p"}`},
		"wrong owner":        {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s2","messageId":"m1","delta":"x"}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"y"}`},
		"unknown message":    {`{"type":"TEXT_MESSAGE_CONTENT","messageId":"nope","delta":"x"}`},
		"new tag":            {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s9","messageId":"m2","delta":"x"}`},
		"metadata":           {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"x","metadata":{"k":1}}`},
		"timestamp":          {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"x","timestamp":17}`},
		"fraction timestamp": {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"x","timestamp":1.5}`},
		"unknown member":     {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"x","extra":[1,{"a":null}]}`},
		"duplicate member":   {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"x","delta":"y"}`},
		"null tag":           {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":null,"messageId":"m1","delta":"x"}`},
		"empty delta":        {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":""}`},
		"tool args":          {`{"type":"TOOL_CALL_ARGS","subagentRunId":"s1","toolCallId":"c1","delta":"{\"a\":"}`, `{"type":"TOOL_CALL_ARGS","subagentRunId":"s1","toolCallId":"c1","delta":"1}"}`},
		"tool args other":    {`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"x"}`},
		"reasoning":          {`{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"think"}`, `{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":" more"}`},
		"after end":          {`{"type":"TEXT_MESSAGE_END","subagentRunId":"s1","messageId":"m1"}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"x"}`},
		"chunk pending":      {`{"type":"TEXT_MESSAGE_CHUNK","messageId":"k1","delta":"c"}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"x"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"k1","delta":"x"}`},
		"removed by snapshot": {`{"type":"MESSAGES_SNAPSHOT","messages":[]}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"x"}`,
			`{"type":"TOOL_CALL_ARGS","subagentRunId":"s1","toolCallId":"c1","delta":"x"}`},
		"refused after closing a lane": {`{"type":"TEXT_MESSAGE_CHUNK","messageId":"k1","delta":"c"}`, `{"type":"STEP_FINISHED","stepName":"nope"}`,
			`{"type":"TEXT_MESSAGE_CHUNK","delta":"d"}`, `{"type":"TOOL_CALL_CHUNK","subagentRunId":"s1","toolCallId":"c2","toolCallName":"g","delta":"{"}`,
			`{"type":"STEP_FINISHED","subagentRunId":"s1","stepName":"nope"}`, `{"type":"TOOL_CALL_CHUNK","subagentRunId":"s1","delta":"}"}`},
		"tags alternate": {`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"c"}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s2","messageId":"m1","delta":"x"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"d"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"e"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m2","delta":"x"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"f"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m2"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"x"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m3","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"g"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":""}`, `{"type":"TOOL_CALL_START","subagentRunId":"s1","toolCallId":"c3","toolCallName":"h"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"h"}`},
		"after run":    {`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"x"}`},
		"not json":     {`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"x"`},
		"whitespace":   {` { "type" : "TEXT_MESSAGE_CONTENT" , "messageId" : "m2" , "delta" : "x" } `},
		"invalid utf8": {"{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m2\",\"delta\":\"\xff\"}"},
	}
	for name, tail := range cases {
		t.Run(name, func(t *testing.T) {
			for hand := range 2 {
				p := newPaths(t)
				for i, l := range append(append([]string{}, head...), tail...) {
					p.line(i, []byte(l), hand == 1)
				}
				p.end()
			}
		})
	}
}

// TestBuilderHandsOutFrozenViews checks that a view a Builder handed out
// keeps its streamed text and invocation nodes while the Builder goes on.
func TestBuilderHandsOutFrozenViews(t *testing.T) {
	b := reducer.NewBuilder(view.New())
	for _, l := range []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"w"}`,
		`{"type":"TEXT_MESSAGE_START","subagentRunId":"s1","messageId":"m1","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"one"}`,
	} {
		require.NoError(t, b.FoldJSON([]byte(l)))
	}
	v1 := b.View()
	inv1 := v1.Invocation("s1")
	require.NoError(t, b.FoldJSON([]byte(`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":" two"}`)))
	v2 := b.View()
	inv2 := v2.Invocation("s1")
	m1, _ := v1.Message("m1")
	m2, _ := v2.Message("m1")
	assert.JSONEq(t, `"one"`, string(m1.Content))
	assert.JSONEq(t, `"one two"`, string(m2.Content))
	assert.NotSame(t, inv1, inv2, "a changed invocation is a new node")
	assert.Greater(t, inv2.Version(), inv1.Version())
	assert.Equal(t, 4, v1.EventCount())
	assert.Equal(t, 5, v2.EventCount())
	assert.Same(t, v2, b.View(), "View without folding returns the same view")
}

// FuzzFoldPaths folds event sequences from FuzzReduceEvents' vocabulary,
// sent as JSON lines (some hand-written with escapes), four ways.
func FuzzFoldPaths(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 5, 0, 1, 0, 6, 0, 1, 3, 6, 0, 1, 4, 7, 0, 0, 0, 1, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 28, 3, 0, 0, 5, 0, 1, 0, 6, 0, 1, 1, 8, 1, 1, 0, 9, 1, 1, 7, 9, 1, 2, 2, 20, 0, 0, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		data = fuzzPrefix(data)
		p := newPaths(t)
		for i := 0; i+4 <= len(data); i += 4 {
			e := fuzzEvent(data[i], data[i+1], data[i+2], data[i+3])
			line, err := event.Encode(e)
			if err != nil {
				t.Fatal(err)
			}
			if data[i+3]%5 == 4 {
				line = escapeDelta(line)
			}
			p.line(i/4, line, data[i+3]%3 == 0)
		}
		p.end()
	})
}

// escapeDelta rewrites a "delta":"x" member with \u escapes, which encoders
// do not produce but senders may.
func escapeDelta(line []byte) []byte {
	i := bytes.Index(line, []byte(`"delta":"`))
	if i < 0 || i+10 > len(line) || line[i+9] == '"' || line[i+9] == '\\' {
		return line
	}
	c := line[i+9]
	return fmt.Appendf(nil, "%s\\u%04x\\n%s", line[:i+9], c, line[i+10:])
}

// FuzzFoldJSONPaths folds arbitrary JSON Lines four ways (see paths).
func FuzzFoldJSONPaths(f *testing.F) {
	vecs, err := conformance.Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, vec := range vecs {
		if len(vec.Events) <= 40 {
			f.Add(vec.JSONL())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newPaths(t)
		for i, line := range bytes.Split(data, []byte{'\n'}) {
			p.line(i, line, i%4 == 3)
		}
		p.end()
	})
}

// TestBuilderArgsAfterView checks that tool call arguments streamed after a
// view was handed out (a change to the node and an empty delta between)
// leave that view alone.
func TestBuilderArgsAfterView(t *testing.T) {
	b := reducer.NewBuilder(view.New())
	for _, l := range []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"a\":"}`,
	} {
		require.NoError(t, b.FoldJSON([]byte(l)))
	}
	v1 := b.View()
	want := string(viewJSON(t, v1))
	for _, l := range []string{
		// The step makes a new root node that shares the hot message.
		`{"type":"STEP_STARTED","stepName":"s"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":""}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"1"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"}"}`,
	} {
		require.NoError(t, b.FoldJSON([]byte(l)))
	}
	assert.Equal(t, want, string(viewJSON(t, v1)), "the view handed out changed")
	call, ok := b.View().ToolCall("c1")
	require.True(t, ok)
	assert.Equal(t, `{"a":1}`, call.Arguments)
	old, _ := v1.ToolCall("c1")
	assert.Equal(t, `{"a":`, old.Arguments)
}

// TestBuilderReusedWireBuffer folds streams through FoldJSON from one
// buffer that each line overwrites, as a reader that reuses its buffer does:
// whatever a Builder remembers between events must be the view's own
// strings, never the wire bytes. The ids of each pair have equal hashIDs
// (the same length and last eight bytes), so a stream table keyed by a
// string over the buffer would take one entity's delta for the other's.
func TestBuilderReusedWireBuffer(t *testing.T) {
	for name, lines := range map[string][]string{
		"tool calls of one message": {
			`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"xa-call-00000001","toolCallName":"f","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"xb-call-00000001","toolCallName":"g","parentMessageId":"m"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"xa-call-00000001","delta":"{\"a\":"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"xb-call-00000001","delta":"{\"b\":"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"xa-call-00000001","delta":"1"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"xb-call-00000001","delta":"2"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"xb-call-00000001","delta":"}"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"xa-call-00000001","delta":"}"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"xa-call-00000001"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"xb-call-00000001"}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		},
		"text of two subagents": {
			`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
			`{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"one"}`,
			`{"type":"SUBAGENT_STARTED","subagentRunId":"s2","name":"two"}`,
			`{"type":"TEXT_MESSAGE_START","subagentRunId":"s1","messageId":"xa-text-00000001","role":"assistant"}`,
			`{"type":"TEXT_MESSAGE_START","subagentRunId":"s2","messageId":"xb-text-00000001","role":"assistant"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"xa-text-00000001","delta":"one "}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"xb-text-00000001","delta":"two "}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"xa-text-00000001","delta":"three "}`,
			`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s2","messageId":"xb-text-00000001","delta":"four"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"xa-text-00000001"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"xb-text-00000001"}`,
			`{"type":"SUBAGENT_FINISHED","subagentRunId":"s1"}`,
			`{"type":"SUBAGENT_FINISHED","subagentRunId":"s2"}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := newPaths(t)
			buf := make([]byte, 0, 256)
			for i, l := range lines {
				buf = append(buf[:0], l...)
				// No view in between: a view handed out would end the streams.
				p.line(i, buf, false)
			}
			p.end()
		})
	}
}

// TestBuilderNilEvent checks that a Builder refuses a nil event as Fold does.
func TestBuilderNilEvent(t *testing.T) {
	b := reducer.NewBuilder(view.New())
	v, want := reducer.Fold(view.New(), nil)
	got := b.Fold(nil)
	require.Error(t, got)
	assert.Equal(t, want.Error(), got.Error())
	assert.Equal(t, string(viewJSON(t, v)), string(viewJSON(t, b.View())))
}

// TestBuilderConcurrentReaders hands the views a Builder makes to another
// goroutine, which reads each one whole while the Builder goes on: under
// -race, any change the Builder made in place to something a handed-out
// view reaches is reported.
func TestBuilderConcurrentReaders(t *testing.T) {
	var evs []string
	add := func(format string, args ...any) { evs = append(evs, fmt.Sprintf(format, args...)) }
	add(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)
	const subs = 6
	for s := range subs {
		add(`{"type":"SUBAGENT_STARTED","subagentRunId":"s%d","name":"w"}`, s)
	}
	for round := range 4 {
		for s := range subs {
			add(`{"type":"TEXT_MESSAGE_START","subagentRunId":"s%d","messageId":"m%d-%d","role":"assistant"}`, s, s, round)
			add(`{"type":"TOOL_CALL_START","subagentRunId":"s%d","toolCallId":"c%d-%d","toolCallName":"f"}`, s, s, round)
		}
		for i := range 30 {
			for s := range subs {
				switch (i + s) % 3 {
				case 0:
					add(`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s%d","messageId":"m%d-%d","delta":"w%d "}`, s, s, round, i)
				case 1:
					add(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m%d-%d","delta":"u%d "}`, s, round, i)
				default:
					add(`{"type":"TOOL_CALL_ARGS","subagentRunId":"s%d","toolCallId":"c%d-%d","delta":"%d,"}`, s, s, round, i)
				}
			}
			if i%10 == 9 {
				add(`{"type":"STATE_SNAPSHOT","snapshot":{"i":%d}}`, i)
			}
		}
		for s := range subs {
			add(`{"type":"TEXT_MESSAGE_END","subagentRunId":"s%d","messageId":"m%d-%d"}`, s, s, round)
			add(`{"type":"TOOL_CALL_END","toolCallId":"c%d-%d"}`, s, round)
		}
	}
	type handed struct {
		v    *view.View
		json []byte
	}
	ch := make(chan handed, 16)
	done := make(chan error)
	go func() {
		for h := range ch {
			got, err := h.v.MarshalJSON()
			if err != nil {
				done <- err
				return
			}
			if !bytes.Equal(got, h.json) {
				done <- fmt.Errorf("a handed-out view changed (event %d)", h.v.EventCount())
				return
			}
			for inv := range h.v.Invocations() {
				_ = inv.ToolCalls()
			}
		}
		done <- nil
	}()
	b := reducer.NewBuilder(view.New())
	ref := view.New()
	for i, l := range evs {
		require.NoError(t, b.FoldJSON([]byte(l)), "event %d", i)
		var err error
		ref, err = reducer.FoldJSON(ref, []byte(l))
		require.NoError(t, err)
		if i%7 == 6 {
			v := b.View()
			ch <- handed{v, viewJSON(t, v)}
		}
	}
	close(ch)
	require.NoError(t, <-done)
	assert.Equal(t, string(viewJSON(t, ref)), string(viewJSON(t, b.View())))
}

// TestBuilderPanicLeavesViewAsBefore checks that a fold that panics (here
// on a typed nil event) leaves the Builder as it was before the event.
func TestBuilderPanicLeavesViewAsBefore(t *testing.T) {
	b := reducer.NewBuilder(view.New())
	for _, l := range []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`,
	} {
		require.NoError(t, b.FoldJSON([]byte(l)))
	}
	before := string(viewJSON(t, b.View()))
	require.NoError(t, b.FoldJSON([]byte(`{"type":"STEP_STARTED","stepName":"s"}`)))
	require.NoError(t, b.FoldJSON([]byte(`{"type":"STEP_FINISHED","stepName":"s"}`)))
	mid := string(viewJSON(t, b.View()))
	assert.Panics(t, func() { _ = b.Fold((*event.StepStarted)(nil)) })
	assert.Equal(t, mid, string(viewJSON(t, b.View())))
	require.NoError(t, b.FoldJSON([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`)))
	assert.NotEqual(t, before, string(viewJSON(t, b.View())))
}
