// Package openset is what the journal backends share about their own
// life: whether they are closed, a channel closed when they are, and the
// writers they have open.
//
// # Concurrency
//
// A Set is safe for concurrent use.
package openset

import "sync"

// Set is what the file and NATS journals share about their own life:
// whether they are closed, a channel closed when they are, and the writers
// they have open (closed with them). Its zero value is not ready: use
// New.
type Set[W comparable] struct {
	mu      sync.Mutex
	closed  bool
	done    chan struct{}
	writers map[W]struct{}
}

func New[W comparable]() Set[W] {
	return Set[W]{done: make(chan struct{}), writers: map[W]struct{}{}}
}

// IsClosed reports whether Close was called.
func (s *Set[W]) IsClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Add records an open writer; false when the journal is closed.
func (s *Set[W]) Add(w W) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.writers[w] = struct{}{}
	return true
}

// Remove forgets a writer.
func (s *Set[W]) Remove(w W) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.writers, w)
}

// Close marks the journal closed and returns the writers still open, which
// the caller closes; nil and false when it was closed already.
func (s *Set[W]) Close() (map[W]struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false
	}
	s.closed = true
	close(s.done)
	ws := s.writers
	s.writers = nil
	return ws, true
}

// Done is closed when the set is closed.
func (s *Set[W]) Done() <-chan struct{} { return s.done }
