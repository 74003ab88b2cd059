package app

import "context"

// Notifier is a backend whose commits wake other processes at once: the
// PostgreSQL store, through LISTEN/NOTIFY (pgstore.(*Store).Watch).
type Notifier interface {
	Watch(ctx context.Context) <-chan struct{}
}

// Wake returns a channel that receives soon after any commit to the bank
// by any process, when the backend can tell (PostgreSQL), until ctx ends;
// nil otherwise. A nil channel never receives, so a loop that selects on
// Wake and a ticker wakes at once where it can and polls where it cannot.
func (s *Service) Wake(ctx context.Context) <-chan struct{} {
	if n, ok := s.b.(Notifier); ok {
		return n.Watch(ctx)
	}
	return nil
}
