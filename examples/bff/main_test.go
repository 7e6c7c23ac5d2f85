package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agview/agview/threads"
	"github.com/agview/agview/transport"
)

var update = flag.Bool("update", false, "rewrite the screenshot under testdata")

func TestMain(m *testing.M) {
	// Say it where plain `go test` shows it: without Chromium the browser
	// tests are skipped.
	if chromiumPath() == "" {
		fmt.Fprintln(os.Stderr, "bff: no chromium on PATH: the browser tests are SKIPPED (install chromium; AGVIEW_REQUIRE_BROWSER=1 makes this a failure)")
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if binDir != "" {
			os.RemoveAll(binDir)
		}
	}))
}

// chromiumPath returns the path of a Chromium binary, "" when none.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// testCtx returns a context that ends with the test or after a generous
// deadline.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// viewer applies the pane stream (docs/panes.md) as the page does.
type viewer struct {
	header threads.Header
	panes  map[string]*threads.Pane
	order  []string
	events int
}

func (v *viewer) apply(ev transport.SSEEvent) error {
	v.events++
	switch ev.Event {
	case threads.EventSnapshot:
		var s threads.Snapshot
		if err := json.Unmarshal([]byte(ev.Data), &s); err != nil {
			return err
		}
		v.header, v.panes, v.order = s.Run, map[string]*threads.Pane{}, nil
		for i := range s.Panes {
			v.put(&s.Panes[i])
		}
	case threads.EventPatch:
		var p threads.Patch
		if err := json.Unmarshal([]byte(ev.Data), &p); err != nil {
			return err
		}
		if p.Run != nil {
			if err := json.Unmarshal(p.Run, &v.header); err != nil {
				return err
			}
		}
		for _, pp := range p.Panes {
			if pp.Pane != nil {
				v.put(pp.Pane)
				continue
			}
			cur := v.panes[pp.Key]
			if cur == nil {
				return fmt.Errorf("a patch of unknown pane %s", pp.Key)
			}
			if pp.Meta != nil {
				items := cur.Items
				cur.PaneMeta = threads.PaneMeta{}
				if err := json.Unmarshal(pp.Meta, &cur.PaneMeta); err != nil {
					return err
				}
				cur.Items = items
			}
			for _, op := range pp.Ops {
				if !cur.Apply(op) {
					return fmt.Errorf("op %+v names no item of pane %s", op, pp.Key)
				}
			}
		}
	}
	return nil
}

func (v *viewer) put(p *threads.Pane) {
	if v.panes[p.Key] == nil {
		v.order = append(v.order, p.Key)
	}
	v.panes[p.Key] = p
}

// watch reads the events stream of body into v until stop says so.
func (v *viewer) watch(body io.Reader, stop func(*viewer) bool) error {
	for ev, err := range transport.ParseSSE(body, &transport.Options{MaxEventBytes: 64 << 20}) {
		if err != nil {
			return err
		}
		if err := v.apply(ev); err != nil {
			return err
		}
		if stop(v) {
			return nil
		}
	}
	return io.ErrUnexpectedEOF
}

// idle stops a viewer once the header says no run is in progress.
func idle(v *viewer) bool { return len(v.header.Runs) > 0 && !v.header.Active }

// browserClient is an HTTP client with a cookie jar: one browser.
func browserClient(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar}
}

// TestRunMain runs the program: it listens, serves the page, gives each
// browser its own threads, and exits 0 when its context ends; bad flags
// exit 2.
func TestRunMain(t *testing.T) {
	t.Run("bad flags", func(t *testing.T) {
		for _, args := range [][]string{{"-nope"}, {"extra"}, {"-agent", "ftp://x", "-journal", "memory", "-addr", "127.0.0.1:0"}} {
			var stderr strings.Builder
			assert.Equal(t, exitUsage, run(t.Context(), args, io.Discard, &stderr), "args %q", args)
			assert.NotEmpty(t, stderr.String(), "args %q: an explanation on stderr", args)
		}
	})
	t.Run("bad journal", func(t *testing.T) {
		var stderr strings.Builder
		assert.Equal(t, exitUsage, run(t.Context(), []string{"-journal", "postgres://x", "-addr", "127.0.0.1:0"}, io.Discard, &stderr))
		assert.Contains(t, stderr.String(), "names no journal")
	})
	t.Run("no NATS server", func(t *testing.T) {
		var stderr strings.Builder
		ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
		defer cancel()
		assert.Equal(t, exitError, run(ctx, []string{"-journal", "nats://127.0.0.1:1", "-addr", "127.0.0.1:0", "-cookie-key", filepath.Join(t.TempDir(), "k")}, io.Discard, &stderr))
		assert.Contains(t, stderr.String(), "nats-server -js", "the error says how to start NATS")
	})
	t.Run("default journal and key", func(t *testing.T) {
		t.Setenv("XDG_DATA_HOME", "/data/home")
		if runtime.GOOS == "linux" {
			assert.Equal(t, "file:/data/home/agview/bff/threads", defaultJournal(), "the per-user data directory")
		}
		assert.Equal(t, filepath.Join("/j", "bff-cookie.key"), defaultKeyFile("file:/j/threads"), "the key beside the journal")
	})
	t.Run("serves", func(t *testing.T) {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(testCtx(t))
		defer cancel()
		out, w := io.Pipe()
		code := make(chan int, 1)
		go func() {
			code <- run(ctx, []string{"-addr", "127.0.0.1:0", "-delay", "0", "-journal", "file:" + filepath.Join(dir, "threads")}, w, io.Discard)
			w.Close()
		}()
		line, err := bufio.NewReader(out).ReadString('\n')
		require.NoError(t, err)
		url, _, ok := strings.Cut(strings.TrimPrefix(line, "agview BFF on "), " ")
		require.True(t, ok, "first line names the URL: %q", line)
		go func() { _, _ = io.Copy(io.Discard, out) }()

		key, err := os.Stat(filepath.Join(dir, "bff-cookie.key"))
		require.NoError(t, err, "the cookie key is kept beside the journal")
		assert.Equal(t, os.FileMode(0o600), key.Mode().Perm())

		alice, bob := browserClient(t), browserClient(t)
		res, err := alice.Post(url+"threads", "application/json", strings.NewReader(`{}`))
		require.NoError(t, err)
		var info threads.ThreadInfo
		require.NoError(t, json.NewDecoder(res.Body).Decode(&info))
		res.Body.Close()
		require.Equal(t, http.StatusCreated, res.StatusCode)
		ck := res.Cookies()
		require.Len(t, ck, 1)
		assert.True(t, ck[0].HttpOnly)
		assert.Equal(t, http.SameSiteLaxMode, ck[0].SameSite)

		for _, path := range []string{info.Page, info.View, info.Events, info.Legacy} {
			res, err := bob.Get(url + strings.TrimPrefix(path, "/"))
			require.NoError(t, err)
			res.Body.Close()
			assert.Equal(t, http.StatusNotFound, res.StatusCode, "another browser: GET %s", path)
		}
		res, err = bob.Get(url + "threads")
		require.NoError(t, err)
		var l threads.ThreadList
		require.NoError(t, json.NewDecoder(res.Body).Decode(&l))
		res.Body.Close()
		assert.Empty(t, l.Threads, "another browser lists none of alice's threads")

		req, err := http.NewRequestWithContext(testCtx(t), http.MethodGet, url+strings.TrimPrefix(info.Events, "/"), nil)
		require.NoError(t, err)
		res, err = alice.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var v viewer
		require.NoError(t, v.watch(res.Body, idle))
		assert.Len(t, v.panes, 6, "the demo swarm of seed 1: the parent agent and 5 subagents")

		cancel()
		assert.Equal(t, exitOK, <-code)
		_, err = io.Copy(io.Discard, res.Body)
		assert.NoError(t, err, "the stream ends cleanly when the program stops")
	})
}

// A cookie signed with another key, or tampered with, names no one: the
// browser gets a new identity and none of the old owner's threads.
func TestCookieIdentity(t *testing.T) {
	file := filepath.Join(t.TempDir(), "k")
	id, err := newCookieIdentity(file)
	require.NoError(t, err)
	again, err := newCookieIdentity(file)
	require.NoError(t, err)
	assert.Equal(t, id.key, again.key, "the key is kept")
	other, err := newCookieIdentity("")
	require.NoError(t, err)
	for _, tc := range []struct {
		name, value, want string
	}{
		{"signed", id.sign("alice"), "alice"},
		{"another key", other.sign("alice"), ""},
		{"tampered", "mallory" + strings.TrimPrefix(id.sign("alice"), "alice"), ""},
		{"unsigned", "alice", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := http.NewRequest("GET", "/", nil)
			r.AddCookie(&http.Cookie{Name: cookieName, Value: tc.value})
			owner, err := id.owner(r)
			if tc.want == "" {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, owner)
		})
	}
	require.NoError(t, os.WriteFile(file+"2", []byte("short"), 0o600))
	_, err = newCookieIdentity(file + "2")
	assert.Error(t, err, "a key file too short is refused")
}
