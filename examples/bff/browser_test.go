package main

import (
	"context"
	"github.com/agview/agview/internal/testnote"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/threads"
)

// screenshotPath is the screenshot the README shows; -update rewrites it.
var screenshotPath = filepath.Join("testdata", "bff.png")

// chromium returns the path of a Chromium binary. Without one the test is
// skipped (TestMain says so on stderr), unless AGVIEW_REQUIRE_BROWSER=1
// (CI), which makes it a failure.
func chromium(t *testing.T) string {
	t.Helper()
	if p := chromiumPath(); p != "" {
		return p
	}
	if os.Getenv("AGVIEW_REQUIRE_BROWSER") == "1" {
		t.Fatal("AGVIEW_REQUIRE_BROWSER=1 but no chromium binary is on PATH (apt-get install chromium)")
	}
	testnote.Skip(t, "no chromium binary on PATH: install Debian's chromium package to run the browser test")
	return ""
}

// browser starts a headless Chromium with a fresh profile (a browser of
// its own, with its own cookies) and returns a context for one tab.
func browser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1440, 1000),
	)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	return tabCtx
}

// serve starts the BFF's wiring (the cookie identity in front of the
// thread service) over a memory journal and the paced demo swarm.
func serve(t *testing.T) *httptest.Server {
	t.Helper()
	agent := agenttest.NewServer(demoAgent(&agenttest.SwarmConfig{Seed: 1}), &agenttest.Options{Delay: 3 * time.Millisecond})
	t.Cleanup(agent.Close)
	j := journal.NewMemory("")
	t.Cleanup(func() { _ = j.Close() })
	id, err := newCookieIdentity("")
	require.NoError(t, err)
	svc, err := threads.New(j, agent.URL(), &threads.Options{Identify: id.owner, FlushInterval: 25 * time.Millisecond})
	require.NoError(t, err)
	ts := httptest.NewServer(id.middleware(svc))
	t.Cleanup(ts.Close)
	t.Cleanup(svc.Close)
	return ts
}

// TestBrowser holds a conversation in headless Chromium: a question typed
// on the home page starts a thread; the panes follow the latest output; the
// run ends on the swarm's approval interrupt, which Approve answers; the
// thread finishes with a pane per subagent invocation and no "Invalid
// Date" anywhere.
func TestBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	tab := browser(t, ctx)
	ts := serve(t)
	require.NoError(t, chromedp.Do(tab,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(`#home`), // the script ran
		chromedp.SetValue(`#ask-input`, "Can our city electrify its buses?"),
		chromedp.Click(`#ask-button`),
		chromedp.WaitVisible(`.pane[data-root="true"]`),
		chromedp.WaitVisible(`body[data-active="false"][data-status="interrupted"]`),
	))
	follows, err := chromedp.Run(tab, chromedp.Evaluate[bool](`[...document.querySelectorAll('.pane .items')].every(it =>
		it.scrollHeight <= it.clientHeight + 8 || it.scrollTop + it.clientHeight >= it.scrollHeight - 8)`))
	require.NoError(t, err)
	assert.True(t, follows, "every pane shows its latest output")
	require.NoError(t, chromedp.Do(tab,
		chromedp.Click(`#interrupts .btn:not(.secondary)`),
		chromedp.WaitVisible(`body[data-active="false"][data-status="finished"]`),
	))
	panes, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('.pane').length`))
	require.NoError(t, err)
	subagents, err := chromedp.Run(tab, chromedp.Evaluate[int](`parseInt(document.querySelector('#summary').textContent.match(/(\d+) subagent/)[1])`))
	require.NoError(t, err)
	text, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.body.innerText`))
	require.NoError(t, err)
	assert.Equal(t, subagents+1, panes, "one pane per invocation, and the parent's")
	assert.NotContains(t, text, "Invalid Date")
	assert.NotContains(t, text, "()")
	if *update {
		shot, err := chromedp.Run(tab, chromedp.FullScreenshot(90))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(screenshotPath, shot, 0o644))
	}
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(`#thread-list a`)))
	text, err = chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('#thread-list').innerText`))
	require.NoError(t, err)
	assert.NotContains(t, text, "Invalid Date")
	assert.Contains(t, text, "finished", "a finished thread reads finished, not idle")
}

// TestBrowserTwoOwners: two browsers, two owners: one cannot see, list or
// open the other's thread.
func TestBrowserTwoOwners(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	alice, bob := browser(t, ctx), browser(t, ctx)
	ts := serve(t)
	require.NoError(t, chromedp.Do(alice,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(`#home`), // the script ran
		chromedp.SetValue(`#ask-input`, "Mine"),
		chromedp.Click(`#ask-button`),
		chromedp.WaitVisible(`.pane[data-root="true"]`),
	))
	page, err := chromedp.Run(alice, chromedp.Location())
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(bob, chromedp.Navigate(page)))
	text, err := chromedp.Run(bob, chromedp.Evaluate[string](`document.body.innerText`))
	require.NoError(t, err)
	assert.Contains(t, text, "No such thread", "bob opens alice's thread: 404")
	require.NoError(t, chromedp.Do(bob, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(`#thread-list li`)))
	links, err := chromedp.Run(bob, chromedp.Evaluate[int](`document.querySelectorAll('#thread-list a').length`))
	require.NoError(t, err)
	assert.Zero(t, links, "bob lists none of alice's threads")
	require.NoError(t, chromedp.Do(alice, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(`#thread-list a`)))
	links, err = chromedp.Run(alice, chromedp.Evaluate[int](`document.querySelectorAll('#thread-list a').length`))
	require.NoError(t, err)
	assert.Equal(t, 1, links, "alice lists hers")
}
