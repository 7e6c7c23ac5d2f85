package viewtest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
	"github.com/agview/agview/viewtest"
)

// hotelAgent is an agent with a "hotels" subagent that mints every id at
// random and answers the user's question with answer; it echoes the input's
// history first, as many agents do (RUN_STARTED.input).
func hotelAgent(answer string) agenttest.Script {
	return scripted(func(in *event.RunAgentInput, id func(prefix string) string) []string {
		sa, plan, tc, res, ans, done := id("sa"), id("msg"), id("tc"), id("res"), id("msg"), id("msg")
		echo, err := json.Marshal(in)
		if err != nil {
			panic(err)
		}
		return []string{
			fmt.Sprintf(`{"type":"RUN_STARTED","threadId":%q,"runId":%q,"input":%s}`, in.ThreadID, in.RunID, echo),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_START","messageId":%q,"role":"assistant"}`, plan),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":%q,"delta":"Asking the hotels agent."}`, plan),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_END","messageId":%q}`, plan),
			fmt.Sprintf(`{"type":"SUBAGENT_STARTED","subagentRunId":%q,"name":"hotels","parentMessageId":%q}`, sa, plan),
			fmt.Sprintf(`{"type":"TOOL_CALL_START","toolCallId":%q,"toolCallName":"search_hotels","subagentRunId":%q}`, tc, sa),
			fmt.Sprintf(`{"type":"TOOL_CALL_ARGS","toolCallId":%q,"delta":"{\"city\":\"Lyon\"}"}`, tc),
			fmt.Sprintf(`{"type":"TOOL_CALL_END","toolCallId":%q}`, tc),
			fmt.Sprintf(`{"type":"TOOL_CALL_RESULT","messageId":%q,"toolCallId":%q,"content":"[\"Ibis\",\"Mercure\",\"Novotel\"]","subagentRunId":%q}`, res, tc, sa),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_START","messageId":%q,"role":"assistant","subagentRunId":%q}`, ans, sa),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":%q,"delta":%q}`, ans, answer),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_END","messageId":%q}`, ans),
			fmt.Sprintf(`{"type":"SUBAGENT_FINISHED","subagentRunId":%q}`, sa),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_START","messageId":%q,"role":"assistant"}`, done),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":%q,"delta":"Here are the hotels <& more>."}`, done),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_END","messageId":%q}`, done),
			fmt.Sprintf(`{"type":"RUN_FINISHED","threadId":%q,"runId":%q}`, in.ThreadID, in.RunID),
		}
	})
}

// runHotels runs hotelAgent with a history message from client.UserMessage
// (a client-minted id, as the README shows).
func runHotels(t *testing.T, answer string) *view.View {
	srv := agenttest.NewServer(hotelAgent(answer), nil)
	t.Cleanup(srv.Close)
	in := &event.RunAgentInput{Messages: []event.Message{client.UserMessage("Find me a hotel in Lyon")}}
	return viewtest.Run(t, srv.URL(), in)
}

// TestGoldenDiffPointsAtTheChange: with AgentIDs and a client-minted
// history id, one changed word in an answer is one line naming the answer,
// with no escaped placeholders (the golden file is re-normalised as it is,
// not renumbered), and the file written with -update is stable (golden test
// of the kit's own failure message).
func TestGoldenDiffPointsAtTheChange(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	require.NoError(t, os.Mkdir("testdata", 0o755))
	upd := viewtest.Updating()
	viewtest.SetUpdate(true)
	r := record(t, func(tb testing.TB) {
		viewtest.Golden(tb, runHotels(t, "Found 3 hotels near the station."), "hotels.golden.json", viewtest.AgentIDs())
	})
	viewtest.SetUpdate(upd)
	require.Empty(t, r.errors)
	written, err := os.ReadFile(filepath.Join("testdata", "hotels.golden.json"))
	require.NoError(t, err)
	assert.Contains(t, string(written), `"<minted-1>"`, "the history message's id is the client's")

	r = noUpdate(t, func(tb testing.TB) {
		viewtest.Golden(tb, runHotels(t, "Found 3 hotels near the station."), "hotels.golden.json", viewtest.AgentIDs())
	})
	assert.Empty(t, r.errors, "another run of the same agent matches")

	r = noUpdate(t, func(tb testing.TB) {
		viewtest.Golden(tb, runHotels(t, "Found 4 hotels near the station."), "hotels.golden.json", viewtest.AgentIDs())
	})
	require.Len(t, r.errors, 1)
	msg := r.errors[0]
	goldenAt(t, filepath.Join(wd, "testdata", "golden-diff-one-word.txt"), msg)
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	require.Len(t, lines, 2, "a heading and one difference:\n%s", msg)
	assert.Regexp(t, `^  hotels <id-\d+> › assistant message <id-\d+> › content: expected "Found 3 hotels near the station\.", got "Found 4 hotels near the station\."$`, lines[1])
	assert.NotContains(t, msg, `\u003c`)
}

// TestNormalizeKeepsPlaceholders: normalising a normalised form changes
// nothing (no <minted-1> renamed <id-N>, no number shifted), and an id that
// a form mixing placeholders and raw ids holds takes a number no
// placeholder has.
func TestNormalizeKeepsPlaceholders(t *testing.T) {
	t.Parallel()
	once, err := viewtest.Normalize(runHotels(t, "Found 3 hotels."), viewtest.AgentIDs())
	require.NoError(t, err)
	twice, err := viewtest.NormalizeJSON(once, viewtest.AgentIDs())
	require.NoError(t, err)
	assert.Equal(t, string(once), string(twice))

	mixed := `{"messages":[{"id":"<id-1>","role":"user"},{"id":"raw-a","role":"assistant"},{"id":"<id-2>","role":"assistant"}]}`
	got, err := viewtest.NormalizeJSON([]byte(mixed), viewtest.AgentIDs())
	require.NoError(t, err)
	var doc struct {
		Messages []struct{ ID string } `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(got, &doc))
	require.Len(t, doc.Messages, 3)
	assert.Equal(t, []string{"<id-1>", "<id-3>", "<id-2>"},
		[]string{doc.Messages[0].ID, doc.Messages[1].ID, doc.Messages[2].ID})
}

// TestFailureMessagesReadWell: values in differences keep <, > and & as
// written (no \u003c), and counts of one are singular ("1 event", "1 more
// difference").
func TestFailureMessagesReadWell(t *testing.T) {
	t.Parallel()
	want := `{"messages":[{"id":"<id-1>","role":"assistant","content":"a <b> & c"},{"id":"<id-2>","role":"user","content":"x"}]}`
	got := `{"messages":[{"id":"<id-1>","role":"assistant","content":"a <b> & d"}]}`
	diffs, err := viewtest.Diff([]byte(want), []byte(got))
	require.NoError(t, err)
	assert.Equal(t, `  parent agent › assistant message <id-1> › content: expected "a <b> & c", got "a <b> & d"
  … and 1 more difference
`, viewtest.FormatDiffs(diffs, 1))
	assert.Equal(t, `  parent agent › assistant message <id-1> › content: expected "a <b> & c", got "a <b> & d"
  parent agent › user message <id-2>: expected {"content":"x","id":"<id-2>","role":"user"}, missing
`, viewtest.FormatDiffs(diffs, 5))

	v, _ := viewtest.RequireFile(t, filepath.Join("testdata", "rejected.sse"))
	r := record(t, func(tb testing.TB) { viewtest.ExpectNoViolation(tb, v) })
	require.Len(t, r.errors, 1)
	assert.True(t, strings.HasPrefix(r.errors[0], "viewtest: 1 event rejected:\n"), r.errors[0])

	p := filepath.Join(t.TempDir(), "one.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(`{"type":"NOT_A_TYPE"}`+"\n"), 0o644))
	_, _, err = viewtest.ReadFile(t.Context(), p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no run: 1 event, which did not start a run (RUN_STARTED)")
}
