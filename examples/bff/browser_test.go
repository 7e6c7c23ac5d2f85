package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"iter"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// screenshotPath is the screenshot the README shows; -update rewrites it.
var screenshotPath = filepath.Join("testdata", "bff.png")

// chromium returns the path of a Chromium binary. Without one the test is
// skipped, unless AGVIEW_REQUIRE_BROWSER=1 (CI), which makes it a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("AGVIEW_REQUIRE_BROWSER") == "1" {
		t.Fatal("AGVIEW_REQUIRE_BROWSER=1 but no chromium binary is on PATH (apt-get install chromium)")
	}
	t.Skip("no chromium binary on PATH: install Debian's chromium package to run the browser test (AGVIEW_REQUIRE_BROWSER=1 makes this a failure)")
	return ""
}

// browser starts a headless Chromium with a fresh profile and returns a
// context for one tab. Cleanup closes the tab, then the browser, and waits
// for its process to exit.
func browser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1440, 1000),
	)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc() // waits for the browser process to exit
	})
	return tabCtx
}

// pageSample is what the test reads from the page while the run goes on.
type pageSample struct {
	Active  string `json:"active"`  // body[data-active]
	Status  string `json:"status"`  // body[data-status]: the last agent run's status
	SubText int    `json:"subText"` // characters of text shown in subagent panes
	Open    int    `json:"open"`    // items still streaming
}

const sampleJS = `(() => {
	let subText = 0;
	for (const t of document.querySelectorAll('.pane[data-root="false"] .msg .text')) subText += t.textContent.length;
	return {
		active: document.body.dataset.active,
		status: document.body.dataset.status,
		subText,
		open: document.querySelectorAll('.pane .open').length,
	};
})()`

// domPane is one pane as the page shows it.
type domPane struct {
	Key     string `json:"key"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	Badge   string `json:"badge"`
	Status  string `json:"status"`
	Parent  string `json:"parent"`  // key of the enclosing pane, "" for none
	Visible bool   `json:"visible"` // laid out with a non-zero size
}

const panesJS = `[...document.querySelectorAll('.pane')].map(p => {
	const parent = p.parentElement.closest('.pane');
	const r = p.getBoundingClientRect();
	return {
		key: p.dataset.key,
		id: p.dataset.id || '',
		name: p.querySelector(':scope > .pane-head .pane-name').textContent,
		badge: p.querySelector(':scope > .pane-head .badge').textContent,
		status: p.dataset.status,
		parent: parent ? parent.dataset.key : '',
		visible: r.width > 0 && r.height > 0,
	};
})`

// conversationJS reads the conversation as the page shows it: the user's
// messages in the parent's pane, the thread id, the run ids under "Runs",
// and the step chips of every pane.
const conversationJS = `(() => ({
	said: [...document.querySelectorAll('.pane[data-root="true"] > .items > .msg.user .text')].map(t => t.textContent),
	thread: (document.querySelector('#summary .thread-id') || {}).textContent || '',
	runsThread: document.querySelector('#runs-thread').textContent,
	runs: [...document.querySelectorAll('#runs li')].map(li => li.dataset.runId),
	steps: Object.fromEntries([...document.querySelectorAll('.pane')].map(p =>
		[p.dataset.key, [...p.querySelectorAll(':scope > .steps .step')].map(s => s.textContent)])),
	interrupts: document.querySelectorAll('#interrupts .interrupt').length,
}))()`

// domConversation is what conversationJS returns.
type domConversation struct {
	Said       []string            `json:"said"`
	Thread     string              `json:"thread"`
	RunsThread string              `json:"runsThread"`
	Runs       []string            `json:"runs"`
	Steps      map[string][]string `json:"steps"`
	Interrupts int                 `json:"interrupts"`
}

// TestBrowser holds a conversation in headless Chromium with the demo swarm,
// paced so that a run takes a few seconds: a question typed on the home page
// starts a thread and is what the agent is sent; it shows in the parent's
// pane; streamed text shows while the run goes on; the run ends on the
// swarm's approval interrupt, which the page's Approve button answers; the
// swarm finishes on the same thread, in the same panes (a pane for every
// subagent, nested as the tree nests, with its name and final status), the
// continued researcher's steps shown once each, and the run ids under
// "Runs" the ones the agent was sent.
func TestBrowser(t *testing.T) {
	ctx := testCtx(t)
	tab := browser(t, ctx)
	e := newEnv(t, nil, &agenttest.Options{Delay: 4 * time.Millisecond}, &Options{FlushInterval: 25 * time.Millisecond})
	const question = "Can our city electrify its buses?"

	require.NoError(t, chromedp.Do(tab,
		chromedp.Navigate(e.ts.URL+"/"),
		chromedp.WaitVisible(`#ask-input`),
		chromedp.SetValue(`#ask-input`, question),
		chromedp.Click(`#ask-button`),
		chromedp.WaitVisible(`.pane[data-root="true"]`),
	), "the question typed on the home page starts a thread and opens its page")
	loc, err := chromedp.Run(tab, chromedp.Location())
	require.NoError(t, err)
	require.Regexp(t, `/threads/[0-9a-f-]+$`, loc)
	id := loc[strings.LastIndex(loc, "/")+1:]

	// Sample the page until the run is over. Streamed text must show in a
	// subagent's pane while the run is still going, and grow.
	var streaming []pageSample
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		s, err := chromedp.Run(tab, chromedp.Evaluate[pageSample](sampleJS))
		require.NoError(t, err)
		if s.Active == "true" && s.SubText > 0 {
			streaming = append(streaming, s)
		}
		if s.Active == "false" && s.Status != "" && s.Status != string(view.RunRunning) {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("the page never showed the end of the run: last sample %+v", s)
		}
	}
	require.NotEmpty(t, streaming, "subagent text shown while the run was still going")
	first, last := streaming[0], streaming[len(streaming)-1]
	assert.Greater(t, last.SubText, first.SubText, "subagent text grew while the run was going: %d samples", len(streaming))
	opened := false
	for _, s := range streaming {
		opened = opened || s.Open > 0
	}
	assert.True(t, opened, "some item was shown streaming (open) during the run")

	// What was typed is what was sent, and it shows in the parent's pane.
	inputs := e.agent.Inputs()
	require.Len(t, inputs, 1)
	require.Len(t, inputs[0].Messages, 1)
	assert.JSONEq(t, `"`+question+`"`, string(inputs[0].Messages[0].Content), "what is typed is what is sent")
	conv, err := chromedp.Run(tab, chromedp.Evaluate[domConversation](conversationJS))
	require.NoError(t, err)
	assert.Equal(t, []string{question}, conv.Said, "the question in the parent's pane")
	assert.Equal(t, id, conv.Thread, "the page names the thread")
	assert.Equal(t, id, conv.RunsThread)
	assert.Equal(t, []string{inputs[0].RunID}, conv.Runs, "the run under Runs is the run the agent was sent")
	assert.Equal(t, 1, conv.Interrupts, "the swarm awaits an answer")

	// Answer the interrupt: the swarm finishes, on the same thread.
	require.NoError(t, chromedp.Do(tab,
		chromedp.Click(`#interrupts .btn:not(.secondary)`),
		chromedp.WaitVisible(`body[data-active="false"][data-status="finished"]`),
	), "Approve continues the thread and the swarm finishes")
	final, err := e.svc.Wait(ctx, id)
	require.NoError(t, err)
	inputs = e.agent.Inputs()
	require.Len(t, inputs, 2, "Approve started a second run")
	assert.Equal(t, id, inputs[1].ThreadID, "on the same thread")
	require.Len(t, inputs[1].Resume, 1, "answering the interrupt")
	assert.JSONEq(t, `{"approved":true}`, string(inputs[1].Resume[0].Payload))
	conv, err = chromedp.Run(tab, chromedp.Evaluate[domConversation](conversationJS))
	require.NoError(t, err)
	assert.Equal(t, []string{question}, conv.Said, "the user's message, once, in the parent's pane")
	assert.Equal(t, []string{inputs[0].RunID, inputs[1].RunID}, conv.Runs, "two runs of the thread, by the ids sent")
	assert.Zero(t, conv.Interrupts, "nothing awaits an answer")
	for key, steps := range conv.Steps {
		seen := map[string]bool{}
		for _, s := range steps {
			assert.False(t, seen[s], "pane %s shows step %q once", key, s)
			seen[s] = true
		}
	}

	require.Positive(t, final.InvocationCount())
	panes, err := chromedp.Run(tab, chromedp.Evaluate[[]domPane](panesJS))
	require.NoError(t, err)
	byKey := map[string]domPane{}
	for _, p := range panes {
		byKey[p.Key] = p
	}
	assert.Len(t, panes, final.InvocationCount()+1, "one pane per subagent, and the parent agent's")
	root, ok := byKey[RootKey]
	require.True(t, ok, "the parent agent's pane")
	assert.Equal(t, "", root.Parent)
	for inv := range final.Invocations() {
		p, ok := byKey[PaneKey(inv)]
		if !assert.True(t, ok, "a pane for subagent %s", inv.ID()) {
			continue
		}
		assert.True(t, p.Visible, "pane %s is visible", inv.ID())
		assert.Equal(t, inv.ID(), p.ID)
		assert.Equal(t, inv.Name(), p.Name, "pane %s shows the subagent's name", inv.ID())
		assert.Equal(t, string(inv.Status()), p.Badge, "pane %s's badge shows the final status", inv.ID())
		assert.Equal(t, string(inv.Status()), p.Status)
		assert.NotEqual(t, string(view.Running), p.Status, "pane %s no longer runs", inv.ID())
		wantParent := RootKey
		if ps, ok := inv.ParentSubagentRunID(); ok {
			wantParent = subKey(ps)
		}
		assert.Equal(t, wantParent, p.Parent, "pane %s is nested in its parent's", inv.ID())
	}

	shot, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	checkScreenshot(t, shot)

	// The home page lists the thread.
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(e.ts.URL+"/"), chromedp.WaitVisible(`#thread-list a`)))
	listed, err := chromedp.Run(tab, chromedp.Text(`#thread-list a`))
	require.NoError(t, err)
	assert.Equal(t, id, listed)
}

// domMessage is a text or reasoning item as the page shows it.
type domMessage struct {
	Pane   string `json:"pane"`   // the key of the pane showing it
	ID     string `json:"id"`     // the message id
	Status string `json:"status"` // data-status
	Badge  string `json:"badge"`  // the text of its badge, "" for none
}

const messagesJS = `[...document.querySelectorAll('.items > .msg, .items > .reasoning')].map(m => {
	const b = m.querySelector('.badge');
	return {
		pane: m.closest('.pane').dataset.key,
		id: m.dataset.id,
		status: m.dataset.status || '',
		badge: b ? b.textContent : '',
	};
})`

// TestBrowserCutOff plays a run that RUN_ERROR ends while a text and a
// reasoning message stream, and checks that the page badges both "cut off"
// and leaves the message that ended normally without a badge.
func TestBrowserCutOff(t *testing.T) {
	ctx := testCtx(t)
	tab := browser(t, ctx)
	frames := make([]json.RawMessage, len(cutStream))
	for i, l := range cutStream {
		frames[i] = json.RawMessage(l)
	}
	e := newEnv(t, agenttest.Frames(frames...), nil, nil)
	info := e.start(t, `{"message":"Go"}`)
	_, err := e.svc.Wait(ctx, info.ID)
	require.NoError(t, err)

	require.NoError(t, chromedp.Do(tab,
		chromedp.Navigate(e.ts.URL+info.Page),
		chromedp.WaitVisible(`body[data-active="false"] .pane[data-key="sub:sa1"][data-status="abandoned"]`),
	), "the page shows the run's end")
	got, err := chromedp.Run(tab, chromedp.Evaluate[[]domMessage](messagesJS))
	require.NoError(t, err)
	byID := map[string]domMessage{}
	for _, m := range got {
		byID[m.ID] = m
	}
	cases := []struct {
		id   string
		want domMessage
	}{
		{"m1", domMessage{Pane: RootKey, ID: "m1", Status: "closed"}},
		{"m2", domMessage{Pane: RootKey, ID: "m2", Status: "abandoned", Badge: "cut off"}},
		{"think1", domMessage{Pane: "sub:sa1", ID: "think1", Status: "abandoned", Badge: "cut off"}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, byID[c.id], "message %s as the page shows it: %+v", c.id, got)
	}
}

// checkScreenshot checks that shot is a PNG of the page, writes it to
// testdata with -update, and that the README's copy exists and is a PNG.
func checkScreenshot(t *testing.T, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err, "the screenshot is a PNG")
	assert.GreaterOrEqual(t, img.Bounds().Dx(), 1000)
	if *update {
		require.NoError(t, os.WriteFile(screenshotPath, shot, 0o644))
	}
	saved, err := os.ReadFile(screenshotPath)
	require.NoError(t, err, "the README's screenshot exists (go test -run TestBrowser -update writes it)")
	_, err = png.Decode(bytes.NewReader(saved))
	assert.NoError(t, err, "the README's screenshot is a PNG")
}

// TestBrowserTokens: the page shows a run's tokens in, out and total under
// Runs, when the run reported usage.
func TestBrowserTokens(t *testing.T) {
	ctx := testCtx(t)
	tab := browser(t, ctx)
	script := agenttest.ScriptFunc(func(in *event.RunAgentInput) iter.Seq[json.RawMessage] {
		return agenttest.Events(
			&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID},
			&event.TextMessageStart{MessageID: "m-" + in.RunID, Role: event.Ptr(event.RoleAssistant)},
			&event.TextMessageContent{MessageID: "m-" + in.RunID, Delta: "Hello."},
			&event.TextMessageEnd{MessageID: "m-" + in.RunID},
			&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID, Usage: []event.TokenUsage{
				{InputTokens: event.Ptr(int64(100)), OutputTokens: event.Ptr(int64(20))},
				{InputTokens: event.Ptr(int64(5)), OutputTokens: event.Ptr(int64(1)), TotalTokens: event.Ptr(int64(7))},
			}},
		).Frames(in)
	})
	e := newEnv(t, script, nil, nil)
	info := e.start(t, `{"message":"Hi"}`)
	_, err := e.svc.Wait(ctx, info.ID)
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(tab,
		chromedp.Navigate(e.ts.URL+info.Page),
		chromedp.WaitVisible(`body[data-status="finished"] #runs li .tokens`),
	))
	text, err := chromedp.Run(tab, chromedp.Text(`#runs li .tokens`))
	require.NoError(t, err)
	assert.Equal(t, "tokens: 105 in, 21 out, 127 total", text)
}

// TestBrowserStop: the page's "Stop the run" cancels the run in progress;
// the page shows it cancelled and the button goes away.
func TestBrowserStop(t *testing.T) {
	ctx := testCtx(t)
	tab := browser(t, ctx)
	e := newEnv(t, nil, &agenttest.Options{Delay: 20 * time.Millisecond}, &Options{FlushInterval: 25 * time.Millisecond})
	info := e.start(t, `{"message":"Take your time."}`)
	require.NoError(t, chromedp.Do(tab,
		chromedp.Navigate(e.ts.URL+info.Page),
		chromedp.WaitVisible(`body[data-active="true"] #stop`),
		chromedp.Click(`#stop`),
		chromedp.WaitVisible(`body[data-active="false"][data-status="cancelled"]`),
		chromedp.WaitNotVisible(`#stop`),
	), "Stop the run cancels it")
	v, err := e.svc.Wait(ctx, info.ID)
	require.NoError(t, err)
	run, ok := v.LastRun()
	require.True(t, ok)
	assert.Equal(t, view.RunCancelled, run.Status)
}

// domScroll is the parent's timeline as the page shows it.
type domScroll struct {
	Msgs   int    `json:"msgs"`   // messages in the timeline
	Top    int    `json:"top"`    // scrollTop
	Client int    `json:"client"` // clientHeight
	Height int    `json:"height"` // scrollHeight
	Above  string `json:"above"`  // the "more above" marker's text, "" when hidden
	Below  string `json:"below"`  // the "more below" marker's text, "" when hidden
}

// scrollJS reads the parent's timeline two frames after it is called, once
// the page has laid out and scrolled it.
const scrollJS = `new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
	const it = document.querySelector('.pane[data-root="true"] > .items');
	const shown = sel => { const m = it.querySelector(sel); return m && m.checkVisibility() ? m.textContent : ''; };
	done({
		msgs: it.querySelectorAll(':scope > .msg').length,
		top: Math.round(it.scrollTop),
		client: it.clientHeight,
		height: it.scrollHeight,
		above: shown(':scope > .more.above'),
		below: shown(':scope > .more.below'),
	});
})))`

// TestBrowserScroll: a pane's timeline reads like a chat log. It opens at
// its top, saying that more is below; scrolled to its end it follows new
// content and says that more is above; scrolled up it stays where the user
// reads as content arrives.
func TestBrowserScroll(t *testing.T) {
	ctx := testCtx(t)
	tab := browser(t, ctx)
	var runs atomic.Int32
	script := agenttest.ScriptFunc(func(in *event.RunAgentInput) iter.Seq[json.RawMessage] {
		run := runs.Add(1)
		n := 3
		if run == 1 {
			n = 30 // far more than the timeline shows
		}
		evs := []event.Event{&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}}
		for i := range n {
			id := fmt.Sprintf("m-%s-%d", in.RunID, i)
			evs = append(evs,
				&event.TextMessageStart{MessageID: id, Role: event.Ptr(event.RoleAssistant)},
				&event.TextMessageContent{MessageID: id, Delta: fmt.Sprintf("Answer %d of run %d.", i+1, run)},
				&event.TextMessageEnd{MessageID: id},
			)
		}
		evs = append(evs, &event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		return agenttest.Events(evs...).Frames(in)
	})
	e := newEnv(t, script, nil, nil)
	info := e.start(t, `{"message":"Tell me everything."}`)
	_, err := e.svc.Wait(ctx, info.ID)
	require.NoError(t, err)

	// timeline waits until the parent's timeline shows msgs messages.
	timeline := func(msgs int) domScroll {
		t.Helper()
		for {
			s, err := chromedp.Run(tab, chromedp.Evaluate[domScroll](scrollJS, chromedp.EvalAwaitPromise))
			require.NoError(t, err)
			if s.Msgs == msgs {
				return s
			}
			select {
			case <-time.After(20 * time.Millisecond):
			case <-ctx.Done():
				t.Fatalf("the timeline never showed %d messages: %+v", msgs, s)
			}
		}
	}
	scroll := func(to string) {
		t.Helper()
		_, err := chromedp.Run(tab, chromedp.Evaluate[any](`(() => { const it = document.querySelector('.pane[data-root="true"] > .items'); it.scrollTop = `+to+`; })()`))
		require.NoError(t, err)
	}
	next := func(message string) {
		t.Helper()
		res, err := http.Post(e.ts.URL+"/threads/"+info.ID+"/runs", "application/json", strings.NewReader(`{"message":"`+message+`"}`))
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusAccepted, res.StatusCode, "POST /threads/{id}/runs")
		_, err = e.svc.Wait(ctx, info.ID)
		require.NoError(t, err)
	}

	require.NoError(t, chromedp.Do(tab,
		chromedp.Navigate(e.ts.URL+info.Page),
		chromedp.WaitVisible(`body[data-status="finished"] .pane[data-root="true"]`),
	))
	s := timeline(31)
	require.Greater(t, s.Height, s.Client, "the timeline overflows: %+v", s)
	assert.Zero(t, s.Top, "a timeline opens at its top: %+v", s)
	assert.Empty(t, s.Above, "nothing is above the top: %+v", s)
	assert.Regexp(t, `^↓ \d+ more$`, s.Below, "the timeline says more is below: %+v", s)

	// Scrolled to its end, it follows new content.
	scroll("it.scrollHeight")
	s = timeline(31)
	assert.Empty(t, s.Below, "nothing is below the end: %+v", s)
	next("More.")
	s = timeline(35)
	// The page scrolls a followed timeline at the next animation frame
	// after new content (stickSoon): give it a few frames.
	for deadline := time.Now().Add(2 * time.Second); s.Top+s.Client < s.Height-8 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		s = timeline(35)
	}
	assert.GreaterOrEqual(t, s.Top+s.Client, s.Height-8, "a timeline scrolled to its end follows new content: %+v", s)
	assert.Regexp(t, `^↑ \d+ earlier$`, s.Above, "the timeline says more is above: %+v", s)
	assert.Empty(t, s.Below, "nothing is below the end: %+v", s)

	// Scrolled up, it stays where the user reads.
	scroll("120")
	s = timeline(35)
	require.Equal(t, 120, s.Top)
	// The page learns of the scroll from its scroll event, a frame later:
	// wait until it shows what is below before new content comes.
	for deadline := time.Now().Add(2 * time.Second); s.Below == "" && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		s = timeline(35)
	}
	require.NotEmpty(t, s.Below, "the page saw the scroll: %+v", s)
	next("Even more.")
	s = timeline(39)
	assert.Equal(t, 120, s.Top, "a timeline the user scrolled up does not move: %+v", s)
	assert.Regexp(t, `^↑ \d+ earlier$`, s.Above, "%+v", s)
	assert.Regexp(t, `^↓ \d+ more$`, s.Below, "the timeline says more is below: %+v", s)
}
