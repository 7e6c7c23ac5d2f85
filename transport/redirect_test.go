package transport_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/transport"
)

// agentRecorder is an SSE agent that serves sample and records the headers
// of every request it gets.
type agentRecorder struct {
	mu      sync.Mutex
	headers []http.Header
}

func (a *agentRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.headers = append(a.headers, r.Header.Clone())
	a.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = w.Write([]byte(asSSE(sample)))
}

func (a *agentRecorder) requests() []http.Header {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]http.Header(nil), a.headers...)
}

// redirector redirects every request to target with code.
func redirector(target string, code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/agent" {
			http.Redirect(w, r, target, code)
			return
		}
	})
}

// redirectPair starts an agent and a server redirecting /agent to target
// (the agent's URL with path, or with the host rewritten by retarget); it
// returns the redirecting server's /agent URL and the agent.
func redirectPair(t *testing.T, code int, path string, retarget func(string) string) (string, *agentRecorder) {
	other := &agentRecorder{}
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)
	target := otherSrv.URL + path
	if retarget != nil {
		target = retarget(target)
	}
	home := httptest.NewServer(redirector(target, code))
	t.Cleanup(home.Close)
	return home.URL + "/agent", other
}

// TestRedirectKeepsSecretsAtHome checks that Options.Header and the
// credential headers reach the agent's origin only, and that an https → http
// redirect is refused, with two httptest servers, one redirecting to the
// other.
func TestRedirectKeepsSecretsAtHome(t *testing.T) {
	t.Parallel()
	header := http.Header{}
	header.Set("X-Api-Key", "secret-key")
	header.Set("Authorization", "Bearer secret-token")

	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusFound, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(code)+"/another origin gets no secrets", func(t *testing.T) {
			t.Parallel()
			// Both listen on 127.0.0.1: the same host, another port, which
			// net/http counts as the same domain (it keeps Authorization).
			home, other := redirectPair(t, code, "/elsewhere", nil)
			c := collect(transport.NewSSE(home, &transport.Options{Header: header}).Run(t.Context(), nil))
			require.NoError(t, c.fatal, "the redirect is followed")
			assert.Len(t, c.events, len(sample))
			reqs := other.requests()
			require.Len(t, reqs, 1)
			for _, k := range []string{"X-Api-Key", "Authorization", "Cookie"} {
				assert.Empty(t, reqs[0].Get(k), "%s must not reach another origin", k)
			}
		})
	}
	t.Run("the same origin keeps them", func(t *testing.T) {
		t.Parallel()
		agent := &agentRecorder{}
		mux := http.NewServeMux()
		mux.Handle("/agent", redirector("/v2/agent", http.StatusTemporaryRedirect))
		mux.Handle("/v2/agent", agent)
		srv := httptest.NewServer(mux)
		defer srv.Close()

		c := collect(transport.NewSSE(srv.URL+"/agent", &transport.Options{Header: header}).Run(t.Context(), nil))
		require.NoError(t, c.fatal)
		reqs := agent.requests()
		require.Len(t, reqs, 1)
		assert.Equal(t, "secret-key", reqs[0].Get("X-Api-Key"))
		assert.Equal(t, "Bearer secret-token", reqs[0].Get("Authorization"))
	})
	t.Run("https to http is never followed", func(t *testing.T) {
		t.Parallel()
		plain := &agentRecorder{}
		plainSrv := httptest.NewServer(plain)
		defer plainSrv.Close()
		tlsSrv := httptest.NewTLSServer(redirector(plainSrv.URL+"/agent-in-clear", http.StatusTemporaryRedirect))
		defer tlsSrv.Close()

		c := collect(transport.NewSSE(tlsSrv.URL+"/agent", &transport.Options{Header: header, HTTPClient: tlsSrv.Client()}).Run(t.Context(), nil))
		var te *transport.Error
		require.ErrorAs(t, c.fatal, &te)
		assert.Equal(t, transport.KindConnect, te.Kind)
		assert.ErrorIs(t, c.fatal, transport.ErrInsecureRedirect)
		assert.Contains(t, te.Error(), "agent-in-clear", "the error names the target")
		assert.Empty(t, plain.requests(), "nothing is sent in clear text")
	})
	t.Run("the caller's CheckRedirect still decides", func(t *testing.T) {
		t.Parallel()
		home, other := redirectPair(t, http.StatusTemporaryRedirect, "", nil)
		hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		c := collect(transport.NewSSE(home, &transport.Options{HTTPClient: hc}).Run(t.Context(), nil))
		var te *transport.Error
		require.ErrorAs(t, c.fatal, &te)
		assert.Equal(t, transport.KindStatus, te.Kind, "the redirect itself is the answer")
		assert.Equal(t, http.StatusTemporaryRedirect, te.Status)
		assert.Empty(t, other.requests())
	})
}

func TestRedirectHeaderNamesAreCaseInsensitive(t *testing.T) {
	t.Parallel()
	home, other := redirectPair(t, http.StatusTemporaryRedirect, "", func(u string) string {
		return strings.Replace(u, "127.0.0.1", "localhost", 1) // another host
	})
	header := http.Header{"x-lowercase-key": {"secret"}}
	c := collect(transport.NewSSE(home, &transport.Options{Header: header}).Run(t.Context(), nil))
	require.NoError(t, c.fatal)
	reqs := other.requests()
	require.Len(t, reqs, 1)
	for k := range reqs[0] {
		assert.NotEqual(t, "x-lowercase-key", strings.ToLower(k), "a non-canonical key is removed too")
	}
}
