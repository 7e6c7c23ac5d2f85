package main

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// checkOrigin refuses a request that does not name an allowed host in its
// Host header (DNS rebinding: a page of evil.example whose name resolves to
// 127.0.0.1 reaches a loopback service with Host: evil.example), and a
// POST that a browser sends from another origin than the service's own
// (Origin, or Sec-Fetch-Site: cross-site when Origin is absent). A request
// without Origin, as curl sends, is not refused for it.
func (s *Server) checkOrigin(r *http.Request) error {
	if !s.allowedHost(r.Host) {
		return &RequestError{Status: http.StatusForbidden, Where: "Host",
			Reason: "the service does not serve " + quote(r.Host) + " (allow it with Options.AllowedHosts, bff -allow-host)"}
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
		return nil
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			return &RequestError{Status: http.StatusForbidden, Where: "Origin", Reason: "a cross-site request changes nothing here"}
		}
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &RequestError{Status: http.StatusForbidden, Where: "Origin", Reason: quote(origin) + " is not an http(s) origin", Err: err}
	}
	if !strings.EqualFold(u.Host, r.Host) && !s.hosts[strings.ToLower(u.Host)] {
		return &RequestError{Status: http.StatusForbidden, Where: "Origin", Reason: "a request from " + quote(origin) + " changes nothing here (the service is " + quote(r.Host) + ")"}
	}
	return nil
}

// allowedHost reports whether the service answers requests for host, a
// Host header: a loopback name on any port, or one of Options.AllowedHosts
// (with its port, or on any port when given without one).
func (s *Server) allowedHost(host string) bool {
	host = strings.ToLower(host)
	if s.hosts[host] {
		return true
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	} else {
		name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	}
	if s.hosts[name] || (strings.Contains(name, ":") && s.hosts["["+name+"]"]) {
		return true
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

func quote(s string) string {
	const max = 200
	if len(s) > max {
		s = s[:max] + "…"
	}
	return "\"" + strings.ReplaceAll(s, "\"", "\\\"") + "\""
}

// viewerLimits counts the open event streams, in all and per client
// address.
type viewerLimits struct {
	max, perClient int

	mu       sync.Mutex
	total    int
	byClient map[string]int
}

// acquire counts a new stream from r's client, or returns ErrTooManyViewers;
// release undoes it (idempotent).
func (l *viewerLimits) acquire(r *http.Request) (release func(), err error) {
	client := r.RemoteAddr
	if h, _, err := net.SplitHostPort(client); err == nil {
		client = h
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.total >= l.max:
		return nil, ErrTooManyViewers
	case l.byClient[client] >= l.perClient:
		return nil, ErrTooManyViewers
	}
	l.total++
	l.byClient[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.total--
			if l.byClient[client]--; l.byClient[client] == 0 {
				delete(l.byClient, client)
			}
		})
	}, nil
}
