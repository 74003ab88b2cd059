package app

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Retrievals at fleet load. Every agent's memory_search is a retrieval
// that is all CPU (the index's postings, the bank's record reads). Run
// as many at once as there are callers, the Go scheduler shares the cores
// among them all: each takes as long as every call in flight together,
// and an expensive task (many terms, the top-scores path) takes many
// times its own cost — the tail. Admitted a few at a time, first come
// first served, a call waits behind the calls ahead of it and then runs
// alone on its core: the mean is the same, the tail is the queue.

// retrieveSlots bounds the retrievals that run at once.
type retrieveSlots struct {
	once    sync.Once
	ch      chan struct{} // nil: unbounded
	waiting atomic.Int32  // callers waiting for a slot
}

// acquire waits for a slot (FIFO: a channel's waiting senders are served
// in order) and returns its release; a cancelled ctx gives up waiting.
func (s *Service) acquireRetrieve(ctx context.Context) (func(), error) {
	s.rslots.once.Do(func() {
		n := s.opt.RetrieveSlots
		if n == 0 {
			n = runtime.GOMAXPROCS(0)
		}
		if n > 0 {
			s.rslots.ch = make(chan struct{}, n)
		}
	})
	ch := s.rslots.ch
	if ch == nil {
		return func() {}, nil
	}
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	default:
	}
	s.rslots.waiting.Add(1)
	defer s.rslots.waiting.Add(-1)
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
