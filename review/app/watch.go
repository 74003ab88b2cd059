package app

import (
	"context"
	"time"

	"github.com/memreview/memreview/review"
)

// ChangeSet is what changed in the bank after From, up to To: one entry
// per item (its latest change), oldest first. Front ends use it for live
// updates: a proposal in Changes joined, or left, the queue.
type ChangeSet struct {
	From, To int64
	Changes  []review.Change
}

// Empty reports whether nothing changed.
func (c ChangeSet) Empty() bool { return c.To <= c.From }

// ChangesSince returns what changed after seq. It costs one cheap
// LastSeq query when nothing did, so a front end may call it every few
// hundred milliseconds.
func (s *Service) ChangesSince(seq int64) (ChangeSet, error) {
	last, err := s.b.LastSeq()
	if err != nil || last <= seq {
		return ChangeSet{From: seq, To: seq}, err
	}
	cs, err := s.b.ChangesSince(seq)
	if err != nil {
		return ChangeSet{From: seq, To: seq}, err
	}
	to := last
	for _, c := range cs {
		to = max(to, c.Seq)
	}
	return ChangeSet{From: seq, To: to, Changes: cs}, nil
}

// DefaultWatchEvery is how often Watch polls the change sequence.
const DefaultWatchEvery = 250 * time.Millisecond

// Watch polls the change sequence every every (0: DefaultWatchEvery), and
// at once when a notifying backend (PostgreSQL) says another process
// committed, from since on and sends each non-empty ChangeSet, until ctx ends; then it
// closes the channel. A slow reader gets the changes merged, not lost:
// the next set starts where the last one it received ended.
func (s *Service) Watch(ctx context.Context, since int64, every time.Duration) <-chan ChangeSet {
	if every <= 0 {
		every = DefaultWatchEvery
	}
	ch := make(chan ChangeSet)
	go func() {
		defer close(ch)
		t := time.NewTicker(every)
		defer t.Stop()
		wake := s.Wake(ctx) // nil (never ready) unless the backend notifies
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case _, ok := <-wake:
				if !ok {
					wake = nil // the notifier stopped: poll only
				}
			}
			cs, err := s.ChangesSince(since)
			if err != nil {
				s.opt.Logf("watch the bank's changes: %v", err)
				continue
			}
			if cs.Empty() {
				continue
			}
			select {
			case ch <- cs:
				since = cs.To
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}
