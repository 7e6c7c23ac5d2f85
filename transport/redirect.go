package transport

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ErrInsecureRedirect is wrapped by the KindConnect error of an SSE request
// that the server redirected from https to http: the source never follows
// such a redirect, which would send the request, its body and its headers in
// clear text.
var ErrInsecureRedirect = errors.New("transport: refused a redirect from https to http")

// maxRedirects is net/http's default limit on a chain of redirects, kept
// when the caller's client has no CheckRedirect of its own.
const maxRedirects = 10

// credentialHeaders are stripped from a redirect to another origin along
// with Options.Header (net/http already strips the first three for another
// domain, but keeps them for a subdomain or another port).
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "WWW-Authenticate", "Cookie2"}

// guardRedirects returns a copy of hc whose CheckRedirect refuses a
// downgrade from https to http and, on a redirect to another origin (scheme,
// host and port), removes the Options.Header keys and the credential headers
// from the request before it is sent. The caller's own CheckRedirect, if
// any, runs after that; without one, a chain stops after 10 redirects as
// net/http's default does.
func guardRedirects(hc *http.Client, header http.Header) *http.Client {
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		for _, prev := range via {
			if strings.EqualFold(prev.URL.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
				return fmt.Errorf("%w: %s redirected to %s", ErrInsecureRedirect, redact(via[len(via)-1].URL), redact(req.URL))
			}
		}
		if origin(req.URL) != origin(via[0].URL) {
			for k := range header {
				delete(req.Header, k) // as given, canonical or not
				req.Header.Del(k)
			}
			for _, k := range credentialHeaders {
				req.Header.Del(k)
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
	return &c
}

// origin returns u's origin as the web defines it: scheme, host and port,
// the port made explicit.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// redact returns u without its user information or query, for an error
// message.
func redact(u *url.URL) string {
	r := *u
	r.User = nil
	r.RawQuery = ""
	r.Fragment = ""
	return r.String()
}
