package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/threads"
	"github.com/agview/agview/view"
)

// The bff program built once for the tests that run it as a process of its
// own (to measure its memory, to kill it): binDir holds it, TestMain removes
// it.
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

// bffBinary builds the program (without -race: the tests measure its
// memory) and returns its path.
func bffBinary(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the process tests use POSIX signals and /proc")
	}
	binOnce.Do(func() {
		binDir, binError = os.MkdirTemp("", "bff-test-")
		if binError != nil {
			return
		}
		binPath = filepath.Join(binDir, "bff")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binError = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	require.NoError(t, binError)
	return binPath
}

// proc is a bff process.
type proc struct {
	cookie string // the identity cookie the test's requests carry
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT/
	host   string // 127.0.0.1:PORT
	stderr *syncBuffer
	done   chan struct{}
}

// syncBuffer is a bytes.Buffer safe for a process and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startBFF starts the program with args (after -addr 127.0.0.1:0 -journal
// memory, which args may override) and waits
// for the line naming its URL. The process is killed when the test ends,
// and its log shown if the test failed.
func startBFF(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bffBinary(t), append([]string{"-addr", "127.0.0.1:0", "-journal", "memory", "-cookie-key", testKey(t)}, args...)...)
	p.cookie = testCookie(t, "tester")
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("bff %v log:\n%s", args, p.stderr.String())
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "the program names its URL; log:\n%s", p.stderr.String())
	u, _, ok := strings.Cut(strings.TrimPrefix(line, "agview BFF on "), " ")
	require.True(t, ok, "first line names the URL: %q", line)
	p.url = u
	p.host = strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/")
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return p
}

// peakRSS returns the process's peak resident set size (VmHWM), in bytes.
func (p *proc) peakRSS(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err, "VmHWM line %q", line)
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", p.cmd.Process.Pid)
	return 0
}

// keyFiles holds each test's cookie key file: every process of a test
// shares it, as replicas do.
var keyFiles sync.Map

// testKey returns the test's cookie key file.
func testKey(t *testing.T) string {
	if f, ok := keyFiles.Load(t.Name()); ok {
		return f.(string)
	}
	f := filepath.Join(t.TempDir(), "bff-cookie.key")
	_, err := newCookieIdentity(f)
	require.NoError(t, err)
	keyFiles.Store(t.Name(), f)
	t.Cleanup(func() { keyFiles.Delete(t.Name()) })
	return f
}

// testCookie returns the identity cookie of owner under the test's key.
func testCookie(t *testing.T, owner string) string {
	id, err := newCookieIdentity(testKey(t))
	require.NoError(t, err)
	return cookieName + "=" + id.sign(owner)
}

// do sends a request as the test's owner (cookie, or p.cookie when "").
func (p *proc) do(t *testing.T, ctx context.Context, method, path, cookie, body string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != "" || method == http.MethodPost {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.url+strings.TrimPrefix(path, "/"), r)
	require.NoError(t, err)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	if cookie == "" {
		cookie = p.cookie
	}
	req.Header.Set("Cookie", cookie)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return res
}

// post POSTs body as JSON to the process and decodes its answer into out.
func (p *proc) post(t *testing.T, ctx context.Context, path, body string, want int, out any) {
	t.Helper()
	res := p.do(t, ctx, http.MethodPost, path, "", body)
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	require.Equal(t, want, res.StatusCode, "POST %s: %s", path, data)
	if out != nil {
		require.NoError(t, json.Unmarshal(data, out))
	}
}

// threads returns the process's GET /threads.
func (p *proc) threads(t *testing.T, ctx context.Context) []threads.ThreadInfo {
	t.Helper()
	res := p.do(t, ctx, http.MethodGet, "/threads", "", "")
	defer res.Body.Close()
	var out threads.ThreadList
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	return out.Threads
}

// waitIdle waits until thread id has no run in progress and the process
// has folded its end, and returns the thread as its view says.
func (p *proc) waitIdle(t *testing.T, ctx context.Context, id string) threads.ThreadInfo {
	t.Helper()
	for {
		for _, info := range p.threads(t, ctx) {
			if info.ID == id && !info.Active {
				if v := p.getView(t, ctx, id); len(v.Runs) > 0 && v.Runs[len(v.Runs)-1].Status != view.RunRunning {
					info.Status = string(v.Runs[len(v.Runs)-1].Status)
					return info
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("thread %s never went idle", id)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
