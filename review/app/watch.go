package app

import (
	"context"
	"sync"
	"time"

	"github.com/memreview/memreview/review"
)

// One change follower a process: the service's. It reads the bank's change
// sequence every Options.WatchEvery (one cheap query when nothing changed)
// and, on a store that notifies (PostgreSQL's LISTEN/NOTIFY), at once when
// another process commits; every front end's live updates (the TUI's
// screens, the MCP server's resource notifications) and the index owner's
// catch-up hang off it. It starts with the first subscriber and stops at
// Close.

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
// LastSeq query when nothing did.
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

// DefaultWatchEvery is how often the follower reads the change sequence.
const DefaultWatchEvery = 250 * time.Millisecond

// Notifier is a store whose commits wake other processes at once: the
// PostgreSQL store, through LISTEN/NOTIFY.
type Notifier interface {
	Watch(ctx context.Context) <-chan struct{}
}

// follower is the process's one change follower: subscribers get a
// signal (a one-slot channel, so a slow one is told once, not many times)
// whenever the change sequence moved.
type follower struct {
	mu   sync.Mutex
	subs map[chan struct{}]bool
	stop chan struct{}
	done chan struct{}
	last int64
}

// Changed returns a channel that receives soon after any commit to the
// bank by any process (within WatchEvery; at once where the store
// notifies) until ctx ends or the service closes; then it is closed.
func (s *Service) Changed(ctx context.Context) <-chan struct{} {
	f := &s.follow
	ch := make(chan struct{}, 1)
	f.mu.Lock()
	if f.stop == nil { // closed, or never started: start unless closed
		if f.done != nil {
			f.mu.Unlock()
			close(ch)
			return ch
		}
		f.stop, f.done, f.subs = make(chan struct{}), make(chan struct{}), map[chan struct{}]bool{}
		f.last, _ = s.b.LastSeq()
		go s.followChanges(f.stop, f.done)
	}
	f.subs[ch] = true
	f.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
		case <-f.done:
		}
		f.mu.Lock()
		if f.subs[ch] {
			delete(f.subs, ch)
			close(ch)
		}
		f.mu.Unlock()
	}()
	return ch
}

func (s *Service) followChanges(stop, done chan struct{}) {
	defer close(done)
	every := s.opt.WatchEvery
	if every <= 0 {
		every = DefaultWatchEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wake <-chan struct{}
	if n, ok := s.b.(Notifier); ok {
		wake = n.Watch(ctx)
	}
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		case _, ok := <-wake:
			if !ok {
				wake = nil // the notifier stopped: poll only
			}
		}
		last, err := s.b.LastSeq()
		if err != nil {
			s.opt.Logf("follow the bank's changes: %v", err)
			continue
		}
		f := &s.follow
		f.mu.Lock()
		if last != f.last {
			f.last = last
			for ch := range f.subs {
				select {
				case ch <- struct{}{}:
				default: // told already
				}
			}
		}
		f.mu.Unlock()
	}
}

// stopFollowing ends the follower and closes every subscriber's channel.
func (f *follower) stopFollowing() {
	f.mu.Lock()
	stop, done := f.stop, f.done
	if done == nil {
		f.done = make(chan struct{})
		close(f.done)
	}
	f.stop = nil
	f.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	f.mu.Lock()
	for ch := range f.subs {
		delete(f.subs, ch)
		close(ch)
	}
	f.mu.Unlock()
}

// Watch sends what changed after since, each time the follower says the
// bank moved, until ctx ends or the service closes; then it closes the
// channel. A slow reader gets the changes merged, not lost: the next set
// starts where the last one it received ended.
func (s *Service) Watch(ctx context.Context, since int64) <-chan ChangeSet {
	changed := s.Changed(ctx)
	out := make(chan ChangeSet)
	go func() {
		defer close(out)
		for range changed {
			cs, err := s.ChangesSince(since)
			if err != nil {
				s.opt.Logf("watch the bank's changes: %v", err)
				continue
			}
			if cs.Empty() {
				continue
			}
			select {
			case out <- cs:
				since = cs.To
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
