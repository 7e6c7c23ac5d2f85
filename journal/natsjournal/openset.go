package natsjournal

import "sync"

// openSet is what the file and NATS journals share about their own life:
// whether they are closed, a channel closed when they are, and the writers
// they have open (closed with them). Its zero value is not ready: use
// newOpenSet.
type openSet[W comparable] struct {
	mu      sync.Mutex
	closed  bool
	done    chan struct{}
	writers map[W]struct{}
}

func newOpenSet[W comparable]() openSet[W] {
	return openSet[W]{done: make(chan struct{}), writers: map[W]struct{}{}}
}

func (s *openSet[W]) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// add records an open writer; false when the journal is closed.
func (s *openSet[W]) add(w W) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.writers[w] = struct{}{}
	return true
}

func (s *openSet[W]) remove(w W) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.writers, w)
}

// close marks the journal closed and returns the writers still open, which
// the caller closes; nil and false when it was closed already.
func (s *openSet[W]) close() (map[W]struct{}, bool) {
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
