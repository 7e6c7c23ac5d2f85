package viewtest_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
	"github.com/agview/agview/viewtest"
)

// randomAgent is a scripted agent that mints its message, tool call and
// subagent ids at random on every run; result is what its tool returns.
func randomAgent(result string) agenttest.Script {
	return scripted(func(in *event.RunAgentInput, id func(prefix string) string) []string {
		sa, m1, m2, tc, res := id("sa"), id("msg"), id("msg"), id("tc"), id("res")
		return []string{
			fmt.Sprintf(`{"type":"RUN_STARTED","threadId":%q,"runId":%q}`, in.ThreadID, in.RunID),
			fmt.Sprintf(`{"type":"SUBAGENT_STARTED","subagentRunId":%q,"name":"researcher"}`, sa),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_START","messageId":%q,"role":"assistant","subagentRunId":%q}`, m1, sa),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":%q,"delta":"Looking it up."}`, m1),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_END","messageId":%q}`, m1),
			fmt.Sprintf(`{"type":"TOOL_CALL_START","toolCallId":%q,"toolCallName":"search","parentMessageId":%q,"subagentRunId":%q}`, tc, m1, sa),
			fmt.Sprintf(`{"type":"TOOL_CALL_ARGS","toolCallId":%q,"delta":"{\"q\":\"buses\"}"}`, tc),
			fmt.Sprintf(`{"type":"TOOL_CALL_END","toolCallId":%q}`, tc),
			fmt.Sprintf(`{"type":"TOOL_CALL_RESULT","messageId":%q,"toolCallId":%q,"content":%q,"subagentRunId":%q}`, res, tc, result, sa),
			fmt.Sprintf(`{"type":"STATE_SNAPSHOT","snapshot":{"found":3,"by":%q}}`, sa),
			fmt.Sprintf(`{"type":"SUBAGENT_FINISHED","subagentRunId":%q}`, sa),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_START","messageId":%q,"role":"assistant"}`, m2),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":%q,"delta":"Three sources."}`, m2),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_END","messageId":%q}`, m2),
			fmt.Sprintf(`{"type":"RUN_FINISHED","threadId":%q,"runId":%q}`, in.ThreadID, in.RunID),
		}
	})
}

// scripted is an agent that answers each input with the lines events
// returns, given the input and a function minting a random id with a prefix.
func scripted(events func(in *event.RunAgentInput, id func(prefix string) string) []string) agenttest.Script {
	return agenttest.ScriptFunc(func(in *event.RunAgentInput) iter.Seq[json.RawMessage] {
		lines := events(in, func(prefix string) string {
			b := make([]byte, 4)
			_, _ = rand.Read(b)
			return prefix + "-" + hex.EncodeToString(b)
		})
		return func(yield func(json.RawMessage) bool) {
			for _, l := range lines {
				if !yield(json.RawMessage(l)) {
					return
				}
			}
		}
	})
}

func runRandom(t *testing.T, result string) *view.View {
	srv := agenttest.NewServer(randomAgent(result), nil)
	t.Cleanup(srv.Close)
	return viewtest.Run(t, srv.URL(), nil) // the client mints thread and run ids
}

// TestSameGoldenEveryRun checks that two runs of an agent whose ids are all
// random give the same normalised view.
func TestSameGoldenEveryRun(t *testing.T) {
	a, err := viewtest.Normalize(runRandom(t, "3 sources"), viewtest.AgentIDs())
	require.NoError(t, err)
	b, err := viewtest.Normalize(runRandom(t, "3 sources"), viewtest.AgentIDs())
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
	assert.Contains(t, string(a), `"<thread-1>"`)
	assert.Contains(t, string(a), `"<run-1>"`)
	assert.Contains(t, string(a), `"<id-1>"`)
	assert.NotContains(t, string(a), "sa-", "no random id is left")

	viewtest.Golden(t, runRandom(t, "3 sources"), "random-agent.golden.json", viewtest.AgentIDs())
}

// TestGoldenFromReplay checks that what "agview replay --json" prints for
// a recording is a golden file as it is.
func TestGoldenFromReplay(t *testing.T) {
	v, _ := viewtest.RequireFile(t, filepath.Join("testdata", "nested.jsonl"))
	form, err := json.MarshalIndent(v, "", "  ") // what replay --json prints
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	require.NoError(t, os.Mkdir("testdata", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("testdata", "replayed.json"), form, 0o644))
	r := noUpdate(t, func(tb testing.TB) { viewtest.Golden(tb, v, "replayed.json") })
	assert.Empty(t, r.errors)
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	runtime.Goexit()
}

// record runs fn with a recorder on its own goroutine (Fatalf ends it).
func record(t *testing.T, fn func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	return r
}

// noUpdate is record with -update off, for tests of failures.
func noUpdate(t *testing.T, fn func(tb testing.TB)) *recorder {
	upd := viewtest.Updating()
	viewtest.SetUpdate(false)
	defer viewtest.SetUpdate(upd)
	return record(t, fn)
}

// TestGoldenFailureNamesThePlace checks that a changed tool result fails
// with its place in the tree, not a byte diff.
func TestGoldenFailureNamesThePlace(t *testing.T) {
	v := runRandom(t, "4 sources")
	r := noUpdate(t, func(tb testing.TB) { viewtest.Golden(tb, v, "random-agent.golden.json", viewtest.AgentIDs()) })
	require.Len(t, r.errors, 1)
	golden(t, "golden-failure.txt", r.errors[0])
	assert.Contains(t, r.errors[0], `researcher <id-3> › tool call <id-4> › result: expected "3 sources", got "4 sources"`)
}

// TestUpdateRewritesTheFile checks that -update writes exactly the golden
// file and that the test then passes.
func TestUpdateRewritesTheFile(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.Mkdir("testdata", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("testdata", "other.json"), []byte("keep"), 0o644))

	v := runRandom(t, "3 sources")
	r := noUpdate(t, func(tb testing.TB) { viewtest.Golden(tb, v, "new.golden.json") })
	require.True(t, r.fatal, "a missing golden file stops the test")
	assert.Contains(t, r.errors[0], "run the test with -update")

	upd := viewtest.Updating()
	viewtest.SetUpdate(true)
	r = record(t, func(tb testing.TB) { viewtest.Golden(tb, v, "new.golden.json") })
	viewtest.SetUpdate(upd)
	assert.Empty(t, r.errors)
	entries, err := os.ReadDir("testdata")
	require.NoError(t, err)
	assert.Len(t, entries, 2, "only the golden file was written")
	b, err := os.ReadFile(filepath.Join("testdata", "other.json"))
	require.NoError(t, err)
	assert.Equal(t, "keep", string(b))
	want, err := viewtest.Normalize(v)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join("testdata", "new.golden.json"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	r = noUpdate(t, func(tb testing.TB) { viewtest.Golden(tb, v, "new.golden.json") })
	assert.Empty(t, r.errors, "the rewritten file matches")
}

// TestAssertions checks the assertions' values and their failure messages
// (golden).
func TestAssertions(t *testing.T) {
	v := runRandom(t, "3 sources")
	inv, err := viewtest.Find(v, "researcher")
	require.NoError(t, err)
	assert.Equal(t, view.Finished, inv.Status())
	assert.Equal(t, []string{"Looking it up.", "3 sources"}, viewtest.Texts(inv))
	assert.Equal(t, []string{"Looking it up."}, viewtest.Texts(inv, event.RoleAssistant))
	call, err := viewtest.CallNamed(inv, "search")
	require.NoError(t, err)
	assert.JSONEq(t, `{"q":"buses"}`, call.Arguments)
	assert.Equal(t, "3 sources", call.Result)
	assert.True(t, call.Answered)
	found, err := viewtest.StateAt(v, "/found")
	require.NoError(t, err)
	assert.Equal(t, "3", string(found))
	root, err := viewtest.Find(v, "parent")
	require.NoError(t, err)
	assert.Equal(t, []string{"Three sources."}, viewtest.Texts(root))
	assert.Empty(t, viewtest.Violations(v))

	var msgs []string
	for _, fn := range []func(tb testing.TB){
		func(tb testing.TB) { viewtest.ExpectStatus(tb, v, "researcher", view.Errored) },
		func(tb testing.TB) { viewtest.ExpectStatus(tb, v, "writer", view.Finished) },
		func(tb testing.TB) { viewtest.ExpectText(tb, v, "researcher", "four sources") },
		func(tb testing.TB) { viewtest.ExpectState(tb, v, "/found", "4") },
		func(tb testing.TB) { viewtest.ExpectState(tb, v, "/missing", "4") },
		func(tb testing.TB) { viewtest.ExpectViolations(tb, v, "R15") },
		func(tb testing.TB) { viewtest.RequireInvocation(tb, v, "nobody") },
		func(tb testing.TB) {
			_, err := viewtest.CallNamed(inv, "fetch")
			tb.Errorf("%v", err)
		},
	} {
		r := record(t, fn)
		require.Len(t, r.errors, 1)
		msgs = append(msgs, r.errors[0])
	}
	out := strings.Join(msgs, "\n---\n")
	out = strings.ReplaceAll(out, inv.ID(), "<sa>")
	golden(t, "assertion-failures.txt", out)
}

// TestRecordingsAndTree checks ReadFile's view and verdict on recordings in
// two formats, and the compact tree (golden).
func TestRecordingsAndTree(t *testing.T) {
	v, verdict := viewtest.RequireFile(t, filepath.Join("testdata", "nested.jsonl"))
	assert.True(t, verdict.Accepted)
	assert.Equal(t, 23, verdict.Events)
	golden(t, "nested.tree.txt", viewtest.Tree(v))
	viewtest.ExpectNoViolation(t, v)

	v, verdict = viewtest.RequireFile(t, filepath.Join("testdata", "rejected.sse"))
	assert.False(t, verdict.Accepted)
	assert.Equal(t, []string{"R15"}, verdict.Rules)
	viewtest.ExpectViolations(t, v, "R15")

	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	t.Cleanup(srv.Close)
	golden(t, "swarm.tree.txt", viewtest.Tree(viewtest.Run(t, srv.URL(), &event.RunAgentInput{ThreadID: "t", RunID: "r"})))

	_, _, err := viewtest.ReadFile(t.Context(), filepath.Join("testdata", "nope.jsonl"))
	assert.Error(t, err)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenAt(t, filepath.Join("testdata", name), got)
}

// goldenAt is golden for the file at path.
func goldenAt(t *testing.T, p, got string) {
	t.Helper()
	if viewtest.Updating() {
		require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "run go test ./viewtest -update")
	assert.Equal(t, string(want), got)
}

// TestNormalizeStateKeyedByID: a state that keys its entries by subagent
// id (the demo swarm's "researchers") normalises the same whatever ids the
// agent minted.
func TestNormalizeStateKeyedByID(t *testing.T) {
	form := func(sa string) []byte {
		return fmt.Appendf(nil, `{"invocations":[{"subagentRunId":%q,"name":"researcher"}],`+
			`"state":{"researchers":{%q:{"status":"done","by":%q}}}}`, sa, sa, sa)
	}
	a, err := viewtest.NormalizeJSON(form("sa-1f2e3d4c"), viewtest.AgentIDs())
	require.NoError(t, err)
	b, err := viewtest.NormalizeJSON(form("sa-9a8b7c6d"), viewtest.AgentIDs())
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
	assert.NotContains(t, string(a), "sa-")
	assert.Contains(t, string(a), `"<id-1>": {`)
}

// TestReadFileNothingToJudge: an empty recording, or one with no run, is
// unusable input (as "agview verify" says), not an accepted stream that
// passes a "no rule broken" test.
func TestReadFileNothingToJudge(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"empty.jsonl":  "",
		"blank.jsonl":  "\n\n",
		"no-run.jsonl": `{"type":"NOT_A_TYPE"}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
			_, _, err := viewtest.ReadFile(t.Context(), p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p)
			assert.Contains(t, err.Error(), "no ")
		})
	}
}
