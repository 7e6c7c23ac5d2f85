package threads

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agview/agview/journal"
)

func (s *Service) servePage(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("id") != "" {
		owner, err := s.identify(r)
		if err == nil {
			_, err = s.lookup(r.Context(), r, owner)
		}
		if err != nil {
			e := AsError(err)
			http.Error(w, e.Message, e.Status())
			return
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(s.page)
}

func (s *Service) serveList(w http.ResponseWriter, r *http.Request) {
	owner, err := s.identify(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	limit, err := parseLimit(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	after := r.URL.Query().Get("after")
	if after != "" {
		if err := CheckID(after); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	all, err := s.stats(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	mine := slices.DeleteFunc(all, func(st journal.Thread) bool { return st.Meta.Owner != owner })
	// Newest first; ties by id, so that the cursor is stable.
	slices.SortFunc(mine, func(a, b journal.Thread) int {
		return cmp.Or(b.Meta.Created.Compare(a.Meta.Created), strings.Compare(a.ID, b.ID))
	})
	start := 0
	if after != "" {
		i := slices.IndexFunc(mine, func(st journal.Thread) bool { return st.ID == after })
		if i < 0 {
			s.fail(w, r, fail(ErrBadRequest, nil, "The cursor names no thread of yours; start from the first page."))
			return
		}
		start = i + 1
	}
	page := mine[start:min(len(mine), start+limit)]
	out := ThreadList{Threads: make([]ThreadInfo, 0, len(page))}
	for _, st := range page {
		out.Threads = append(out.Threads, s.listed(r.Context(), st))
	}
	if start+limit < len(mine) {
		out.Next = page[len(page)-1].ID
	}
	writeJSON(w, http.StatusOK, out)
}

// listed describes a thread of the list: the status from its folded view
// when this replica holds it, else from its last record.
func (s *Service) listed(ctx context.Context, st journal.Thread) ThreadInfo {
	s.mu.Lock()
	t := s.threads[st.ID]
	s.mu.Unlock()
	var info ThreadInfo
	if t != nil {
		info = s.threadInfo(t)
	} else {
		info = s.info(st.ID)
		info.Created = st.Meta.Created
		if st.Last > 0 {
			for rec, err := range s.j.Read(ctx, st.ID, st.Last) {
				if err != nil || rec.Kind != journal.KindEnd {
					break
				}
				var e journal.End
				_ = json.Unmarshal(rec.Data, &e)
				switch {
				case e.Canceled:
					info.Status = "cancelled"
				case e.Error != "":
					info.Status = "failed"
				default:
					info.Status = "ended"
				}
			}
		}
	}
	info.Updated = st.Updated
	if st.Active != nil {
		info.Active, info.Status = true, "running"
	}
	return info
}

func (s *Service) serveStart(w http.ResponseWriter, r *http.Request) {
	owner, err := s.identify(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var req StartRequest
	if err := readBody(w, r, s.opts.MaxBodyBytes, s.opts.BodyTimeout, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	info, err := s.Start(r.Context(), owner, req.Message)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", info.Page)
	writeJSON(w, http.StatusCreated, info)
}

// withThread serves a route on the thread its path names, once the asker
// is known to own it.
func (s *Service) withThread(fn func(w http.ResponseWriter, r *http.Request, t *thread, owner string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		owner, err := s.identify(r)
		if err == nil {
			var t *thread
			if t, err = s.lookup(r.Context(), r, owner); err == nil {
				err = fn(w, r, t, owner)
			}
		}
		if err != nil {
			s.fail(w, r, err)
		}
	}
}

func (s *Service) serveNext(w http.ResponseWriter, r *http.Request) {
	s.withThread(func(w http.ResponseWriter, r *http.Request, t *thread, _ string) error {
		var req NextRequest
		if err := readBody(w, r, s.opts.MaxBodyBytes, s.opts.BodyTimeout, &req); err != nil {
			return err
		}
		if err := s.next(r.Context(), t, req); err != nil {
			return err
		}
		writeJSON(w, http.StatusAccepted, s.threadInfo(t))
		return nil
	})(w, r)
}

func (s *Service) serveStop(w http.ResponseWriter, r *http.Request) {
	s.withThread(func(w http.ResponseWriter, r *http.Request, t *thread, _ string) error {
		if _, err := s.j.Stop(r.Context(), t.id); err != nil {
			return err
		}
		writeJSON(w, http.StatusAccepted, s.threadInfo(t))
		return nil
	})(w, r)
}

func (s *Service) serveDelete(w http.ResponseWriter, r *http.Request) {
	s.withThread(func(w http.ResponseWriter, r *http.Request, t *thread, _ string) error {
		if err := s.j.Delete(r.Context(), t.id); err != nil {
			if errors.Is(err, journal.ErrBusy) {
				return fail(ErrBusy, err, "A run of this thread is in progress; stop it before deleting the thread.")
			}
			return err
		}
		s.unload(t)
		w.WriteHeader(http.StatusNoContent)
		return nil
	})(w, r)
}

func (s *Service) serveView(w http.ResponseWriter, r *http.Request) {
	s.withThread(func(w http.ResponseWriter, r *http.Request, t *thread, _ string) error {
		writeJSON(w, http.StatusOK, t.view())
		return nil
	})(w, r)
}

// serveEvents is GET /threads/{id}/events, the pane stream (docs/panes.md):
// a snapshot, then a patch per frame; a viewer that reconnects with
// Last-Event-ID (as EventSource does) from this replica's frames gets the
// patches it missed while the hub keeps them, a snapshot otherwise. Each
// viewer writes, when ready, every patch since its last write, then waits
// FlushInterval: frames coalesce per viewer, and a slow viewer never slows
// the thread or the other viewers.
func (s *Service) serveEvents(w http.ResponseWriter, r *http.Request) {
	s.withThread(func(w http.ResponseWriter, r *http.Request, t *thread, owner string) error {
		release, err := s.acquireViewer(owner)
		if err != nil {
			return err
		}
		defer release()
		h := t.hub
		last := uint64(0)
		if epoch, seq, ok := strings.Cut(r.Header.Get("Last-Event-ID"), "-"); ok && epoch == h.epoch {
			last = parseUint(seq)
		}
		tb, leave := h.join()
		defer leave()
		rc := http.NewResponseController(w)
		startSSE(w, rc)
		var keepAlive <-chan time.Time
		if s.opts.KeepAlive > 0 {
			tk := time.NewTicker(s.opts.KeepAlive)
			defer tk.Stop()
			keepAlive = tk.C
		}
		for {
			if evs, seq := h.since(last); len(evs) > 0 {
				if s.write(rc, w, evs...) != nil {
					return nil
				}
				last = seq
				if !s.pause(r, h) {
					return nil
				}
			}
			select {
			case <-tb.bell:
			case <-keepAlive:
				if s.write(rc, w, []byte(": keep-alive\n\n")) != nil {
					return nil
				}
			case <-h.done:
				return nil
			case <-r.Context().Done():
				return nil
			}
		}
	})(w, r)
}

func parseUint(s string) uint64 {
	var n uint64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' || n > (1<<63)/10 {
			return 0
		}
		n = n*10 + uint64(s[i]-'0')
	}
	return n
}

// write sends bufs to a viewer and flushes them, each write within the
// write timeout.
func (s *Service) write(rc *http.ResponseController, w http.ResponseWriter, bufs ...[]byte) error {
	for _, b := range bufs {
		if err := rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return rc.Flush()
}

// pause waits FlushInterval after a write and reports whether the stream
// goes on.
func (s *Service) pause(r *http.Request, h *hub) bool {
	if s.opts.FlushInterval <= 0 {
		return true
	}
	tm := time.NewTimer(s.opts.FlushInterval)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-h.done:
	case <-r.Context().Done():
	}
	return false
}

// startSSE sends an event stream's headers at once.
func startSSE(w http.ResponseWriter, rc *http.ResponseController) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
}

// checkOrigin refuses a request whose Host the service does not serve (DNS
// rebinding), and a POST or DELETE a browser sends from another origin.
func (s *Service) checkOrigin(r *http.Request) error {
	if len(s.hosts) > 0 && !s.allowedHost(r.Host) {
		return fail(ErrForbidden, nil, "This service does not answer for the host %q.", bound(r.Host, 80))
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
		return nil
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			return fail(ErrForbidden, nil, "A cross-site request changes nothing here.")
		}
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail(ErrForbidden, err, "The request's origin is not an http(s) origin.")
	}
	if !strings.EqualFold(u.Host, r.Host) && !s.hosts[strings.ToLower(u.Host)] {
		return fail(ErrForbidden, nil, "A request from another site changes nothing here.")
	}
	return nil
}

// allowedHost reports whether host (a Host header) is a loopback name on
// any port or one of AllowedHosts (with its port, or any port).
func (s *Service) allowedHost(host string) bool {
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
