package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
)

// TestWatchClientVectors runs every client history vector through
// "agview watch --json --input … --next … [--answer '{"approved":true}']"
// served by agenttest: the printed view starts from the input's history and
// ends as the reference client's, and the --next file is the reference's
// next input (its run id aside, which is new on every run).
func TestWatchClientVectors(t *testing.T) {
	vecs, err := conformance.LoadClient()
	require.NoError(t, err)
	for _, vec := range vecs {
		t.Run(vec.Name, func(t *testing.T) {
			srv := agenttest.NewServer(agenttest.Frames(vec.Events...), nil)
			defer srv.Close()
			dir := t.TempDir()
			in := filepath.Join(dir, "input.json")
			require.NoError(t, os.WriteFile(in, vec.Input(), 0o644))

			type variant struct {
				args []string
				want json.RawMessage
			}
			variants := []variant{{nil, vec.Expect.NextInput}}
			if vec.Resumed() {
				variants = append(variants, variant{[]string{"--answer", conformance.ClientPayload}, vec.Expect.NextInputResumed})
			} else {
				variants = append(variants, variant{[]string{"--answer", conformance.ClientPayload}, vec.Expect.NextInput})
			}
			for _, vr := range variants {
				next := filepath.Join(dir, "next.json")
				args := append([]string{"watch", "--json", "--input", in, "--next", next}, vr.args...)
				code, out, stderr := runCLI(t, nil, append(args, srv.URL())...)
				var form struct {
					Messages          json.RawMessage `json:"messages"`
					State             json.RawMessage `json:"state"`
					PendingInterrupts json.RawMessage `json:"pendingInterrupts"`
					Runs              []struct {
						Status string `json:"status"`
					} `json:"runs"`
				}
				require.NoError(t, json.Unmarshal([]byte(out), &form), stderr)
				// watch exits 0 only when the last run finished or awaits an
				// answer (a RUN_ERROR, a cancelled or cut run: 1).
				wantCode := exitRejected
				if n := len(form.Runs); n > 0 && (form.Runs[n-1].Status == "finished" || form.Runs[n-1].Status == "interrupted") {
					wantCode = exitOK
				}
				assert.Equal(t, wantCode, code, "%v: %s", vr.args, stderr)
				for _, d := range vec.CheckFinal(form.Messages, form.State, form.PendingInterrupts) {
					t.Errorf("%v: %s", vr.args, d)
				}
				ins := srv.Inputs()
				sent, err := json.Marshal(ins[len(ins)-1].Messages)
				require.NoError(t, err)
				assert.JSONEq(t, string(vec.Expect.SentInput.Messages), string(sent), "the agent receives the history")

				b, err := os.ReadFile(next)
				require.NoError(t, err)
				var got map[string]any
				require.NoError(t, json.Unmarshal(b, &got))
				runID, _ := got["runId"].(string)
				assert.NotEmpty(t, runID)
				assert.NotEqual(t, conformance.ClientRunID, runID, "the next run has a new id")
				got["runId"] = conformance.ClientNextRunID
				b, err = json.Marshal(got)
				require.NoError(t, err)
				for _, d := range conformance.CheckInput("--next", vr.want, b) {
					t.Errorf("%v: %s", vr.args, d)
				}
				if vec.Resumed() && vr.args == nil {
					assert.Contains(t, stderr, "await an answer", "the user is told the next run must answer")
				}
			}
		})
	}
}

// TestWatchConversation holds a conversation from a script: turn 1 asks,
// ends on the swarm's interrupt and writes turn 2 with the answer; the user
// adds a message to turn 2 and runs it; the suspended researcher continues
// and the run finishes, the history first in the view.
func TestWatchConversation(t *testing.T) {
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer srv.Close()
	dir := t.TempDir()
	turn1, turn2, turn3 := filepath.Join(dir, "turn1.json"), filepath.Join(dir, "turn2.json"), filepath.Join(dir, "turn3.json")
	require.NoError(t, os.WriteFile(turn1, []byte(`{"threadId":"th-cli","runId":"r1","messages":[{"id":"q1","role":"user","content":"Which vendor?"}]}`), 0o644))

	code, out, stderr := runCLI(t, nil, "watch", "--json", "--input", turn1, "--next", turn2, "--answer", `{"approved":true}`, srv.URL())
	require.Equal(t, exitOK, code, stderr)
	var v1 struct {
		Messages []event.Message   `json:"messages"`
		Pending  []event.Interrupt `json:"pendingInterrupts"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v1))
	require.Equal(t, "q1", v1.Messages[0].ID, "the question is first in the view")
	require.Len(t, v1.Pending, 1)

	// The user adds the next message to turn2.json.
	b, err := os.ReadFile(turn2)
	require.NoError(t, err)
	in2, _, err := event.DecodeInput(b)
	require.NoError(t, err)
	assert.Equal(t, "th-cli", in2.ThreadID)
	require.Len(t, in2.Resume, 1)
	assert.Equal(t, v1.Pending[0].ID, in2.Resume[0].InterruptID)
	assert.JSONEq(t, `{"approved":true}`, string(in2.Resume[0].Payload))
	in2.Messages = append(in2.Messages, event.Message{ID: "q2", Role: event.RoleUser, Content: json.RawMessage(`"Thanks, go ahead."`)})
	b, err = json.Marshal(in2)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(turn2, b, 0o644))

	code, out, stderr = runCLI(t, nil, "watch", "--json", "--input", turn2, "--next", turn3, srv.URL())
	require.Equal(t, exitOK, code, stderr)
	var v2 struct {
		Messages []event.Message   `json:"messages"`
		Pending  []event.Interrupt `json:"pendingInterrupts"`
		Runs     []struct {
			Status string `json:"status"`
		} `json:"runs"`
		Invocations []struct {
			ID     string `json:"subagentRunId"`
			Status string `json:"status"`
		} `json:"invocations"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v2))
	require.Len(t, v2.Runs, 1)
	assert.Equal(t, "finished", v2.Runs[0].Status)
	assert.Empty(t, v2.Pending)
	assert.Equal(t, "q1", v2.Messages[0].ID, "the history comes first")
	ids := map[string]bool{}
	for _, m := range v2.Messages {
		ids[m.ID] = true
	}
	assert.True(t, ids["q2"], "the added message is in the view")
	for _, inv := range v2.Invocations {
		if inv.ID == *v1.Pending[0].Subagent {
			assert.Equal(t, "finished", inv.Status, "the suspended researcher continued")
		}
	}
	b, err = os.ReadFile(turn3)
	require.NoError(t, err)
	in3, _, err := event.DecodeInput(b)
	require.NoError(t, err)
	assert.Len(t, in3.Messages, len(v2.Messages)-countActivity(v2.Messages))
	assert.Nil(t, in3.Resume, "nothing to answer")
}

func countActivity(ms []event.Message) int {
	n := 0
	for _, m := range ms {
		if m.Role == event.RoleActivity {
			n++
		}
	}
	return n
}

// TestWatchRefusesBadConversationFiles: an --input that is not a usable
// RunAgentInput, a --next file that holds something else, and bad answer
// flags are usage errors naming the file or the message; nothing is sent
// and no file is clobbered.
func TestWatchRefusesBadConversationFiles(t *testing.T) {
	srv := agenttest.NewServer(agenttest.Events(
		&event.RunStarted{ThreadID: "t", RunID: "r"}, &event.RunFinished{ThreadID: "t", RunID: "r"}), nil)
	defer srv.Close()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	good := write("good.json", `{"threadId":"t","runId":"r","messages":[]}`)
	notes := write("notes.txt", "my precious notes\n")
	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"input not JSON", []string{"--input", write("a.json", "nope")}, []string{"a.json", "not a RunAgentInput"}},
		{"input not an input", []string{"--input", write("b.json", `{"type":"RUN_STARTED"}`)}, []string{"b.json", "not a RunAgentInput"}},
		{"input with a null subagentRunId", []string{"--input", write("c.json",
			`{"threadId":"t","runId":"r","messages":[{"id":"u0","role":"user","content":"a"},{"id":"u1","role":"user","content":"b","subagentRunId":null}]}`)},
			[]string{"c.json", "message 'u1'", "subagentRunId"}},
		{"input with a duplicate id", []string{"--input", write("d.json",
			`{"threadId":"t","runId":"r","messages":[{"id":"u0","role":"user","content":"a"},{"id":"u0","role":"user","content":"b"}]}`)},
			[]string{"d.json", "message 'u0'", "A1"}},
		{"input with a bad resume status", []string{"--input", write("e.json",
			`{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i1","status":"maybe"}]}`)},
			[]string{"e.json", "/resume/0/status"}},
		{"input answering one interrupt twice", []string{"--input", write("f.json",
			`{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i1","status":"cancelled"},{"interruptId":"i1","status":"resolved"}]}`)},
			[]string{"f.json", "i1", "more than once"}},
		{"next holds something else", []string{"--input", good, "--next", notes}, []string{"notes.txt", "not overwriting"}},
		{"next in no folder", []string{"--input", good, "--next", filepath.Join(dir, "nowhere", "n.json")}, []string{"nowhere", "no folder"}},
		{"answer without next", []string{"--answer", `{"approved":true}`}, []string{"--next"}},
		{"answer and cancel", []string{"--next", filepath.Join(dir, "n.json"), "--answer", `{}`, "--cancel"}, []string{"exclude"}},
		{"answer not JSON", []string{"--next", filepath.Join(dir, "n.json"), "--answer", `{approved}`}, []string{"--answer"}},
		{"answer null", []string{"--next", filepath.Join(dir, "n.json"), "--answer", `null`}, []string{"--answer"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, nil, append(append([]string{"watch", "--json"}, tc.args...), srv.URL())...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.JSONEq(t, `"error"`, mustJSONField(t, out, "verdict"), "--json says the input was unusable")
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
	assert.Empty(t, srv.Inputs(), "nothing was sent")
	b, err := os.ReadFile(notes)
	require.NoError(t, err)
	assert.Equal(t, "my precious notes\n", string(b), "the file is untouched")
	_, err = os.Stat(filepath.Join(dir, "n.json"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	// --next over an earlier RunAgentInput (the previous turn's) is fine.
	code, _, stderr := runCLI(t, nil, "watch", "--json", "--input", good, "--next", good, "--cancel", srv.URL())
	assert.Equal(t, exitOK, code, stderr)
}

// TestReplayShowsUsage: a run's token usage is in the text tree and in the
// JSON form.
func TestReplayShowsUsage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "usage.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(`{"type":"RUN_STARTED","threadId":"th","runId":"r1"}
{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello."}
{"type":"TEXT_MESSAGE_END","messageId":"m1"}
{"type":"RUN_FINISHED","threadId":"th","runId":"r1","usage":[{"provider":"openai","model":"gpt","inputTokens":120,"outputTokens":30,"totalTokens":150},{"model":"small","inputTokens":5,"outputTokens":2}]}
{"type":"RUN_STARTED","threadId":"th","runId":"r2"}
{"type":"RUN_ERROR","message":"quota","usage":[{"inputTokens":7}]}
`), 0o644))
	code, out, stderr := runCLI(t, nil, "replay", p)
	require.Equal(t, exitOK, code, stderr)
	golden(t, "usage.replay.golden", out)
	code, out, stderr = runCLI(t, nil, "replay", "--json", p)
	require.Equal(t, exitOK, code, stderr)
	golden(t, "usage.replay-json.golden", out)
}

// mustJSONField returns the JSON of one member of the object out.
func mustJSONField(t *testing.T, out, key string) string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &m), out)
	return string(m[key])
}

// TestWatchNextPaths: --next refuses a symbolic link (it wrote through
// it), a directory and a link that leads nowhere, before anything is sent,
// and leaves them as they were. (Devices: see TestCheckNextFileSpecial;
// running watch on /dev/null here would replace it, as root, were the check
// ever lost. Modes and owners: TestWatchNextKeepsModeAndOwner.)
func TestWatchNextPaths(t *testing.T) {
	srv := agenttest.NewServer(agenttest.Events(
		&event.RunStarted{ThreadID: "t", RunID: "r"}, &event.RunFinished{ThreadID: "t", RunID: "r"}), nil)
	defer srv.Close()
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	const old = `{"threadId":"old","runId":"r0","messages":[]}`
	require.NoError(t, os.WriteFile(real, []byte(old), 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("real.json", link))
	dangling := filepath.Join(dir, "dangling.json")
	require.NoError(t, os.Symlink("missing/next.json", dangling))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	for _, tc := range []struct{ name, path, want string }{
		{"link", link, "is a symbolic link; not writing through it"},
		{"directory", sub, "not a regular file"},
		{"dangling link", dangling, "symbolic link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(srv.Inputs())
			code, out, stderr := runCLI(t, nil, "watch", "--json", "--next", tc.path, srv.URL())
			assert.Equal(t, exitUsage, code, stderr)
			assert.JSONEq(t, `"error"`, mustJSONField(t, out, "verdict"))
			assert.Contains(t, stderr, tc.want)
			assert.Contains(t, stderr, tc.path)
			assert.Len(t, srv.Inputs(), n, "nothing was sent")
		})
	}
	b, err := os.ReadFile(real)
	require.NoError(t, err)
	assert.Equal(t, old, string(b), "the link's target is untouched")
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link stays a link")
}
