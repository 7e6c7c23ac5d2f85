package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/transport"
)

// TestWatchIdleDefault: watch waited for ever on an agent that went quiet
// unless --idle-timeout was given. Now a run has an idle timeout by default
// (transport.DefaultIdleTimeout; made short here), --idle-timeout D sets
// another and --idle-timeout 0 still waits for ever.
func TestWatchIdleDefault(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(`data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // then silence
	}))
	defer srv.Close()

	watch := func(ctx context.Context, args ...string) (int, string, time.Duration) {
		var out, errb bytes.Buffer
		e := &env{stdin: bytes.NewReader(nil), stdout: &out, stderr: &errb, idleTimeout: 300 * time.Millisecond}
		start := time.Now()
		code := e.dispatch(ctx, append([]string{"watch", "--json"}, append(args, srv.URL)...))
		return code, errb.String(), time.Since(start)
	}

	t.Run("default", func(t *testing.T) {
		code, stderr, took := watch(t.Context())
		assert.Equal(t, exitRejected, code)
		assert.Contains(t, stderr, "idle", "the run ends for want of activity")
		assert.Less(t, took, 10*time.Second)
	})
	t.Run("flag overrides", func(t *testing.T) {
		code, stderr, took := watch(t.Context(), "--idle-timeout", "50ms")
		assert.Equal(t, exitRejected, code)
		assert.Contains(t, stderr, "idle")
		assert.Less(t, took, 10*time.Second)
	})
	t.Run("0 waits for ever", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
		defer cancel()
		code, stderr, took := watch(ctx, "--idle-timeout", "0")
		assert.Equal(t, exitRejected, code)
		assert.NotContains(t, stderr, "idle", "only the caller's cancel ended it: %s", stderr)
		assert.GreaterOrEqual(t, took, 1400*time.Millisecond)
	})
	t.Run("the CLI's default", func(t *testing.T) {
		code, out, _ := runCLI(t, nil, "watch", "--help")
		require.Equal(t, exitOK, code)
		assert.Contains(t, out, "(default "+transport.DefaultIdleTimeout.String()+")")
		assert.Equal(t, 15*time.Minute, transport.DefaultIdleTimeout)
	})
}
