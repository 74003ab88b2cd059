package app

import (
	"sync"

	"github.com/memreview/memreview/review"
)

// The standings cache. A hybrid retrieval weighs up to a hundred
// candidates by their standing (status, category, priority, confidence,
// a failing check); reading them from bank.db was a fifth of the call's
// CPU at 100,000 records (every retrieval's log write starts SQLite's
// readers on a cold page cache). A fleet's retrievals keep meeting the
// same records, and a record's standing changes only with a change of
// the bank's sequence naming it (a new version, new check results), so
// standings are kept here by record id and the changes since the last
// look evict the ids they name: what a call is given is what the store
// would give it at the sequence it read first.

// maxStandings bounds the cache (about 100 bytes an entry); past it the
// cache starts again empty.
const maxStandings = 1 << 18

// maxStandingsGap is how far the bank may move between two looks before
// the cache is emptied instead of reading the changes between them.
const maxStandingsGap = 4096

type standingCache struct {
	mu  sync.Mutex
	seq int64 // the bank's sequence the entries are valid at (or after)
	m   map[string]review.RecordStanding
}

// standingsCached is standings through the cache: the candidates it does
// not hold are read from the store, and kept when the bank did not move
// meanwhile.
func (s *Service) standingsCached(ids []string) (map[string]review.RecordStanding, error) {
	seq, err := s.b.LastSeq()
	if err != nil {
		return s.standings(ids)
	}
	c := &s.scache
	out := make(map[string]review.RecordStanding, len(ids))
	var miss []string
	c.mu.Lock()
	if err := c.syncLocked(s.b, seq); err != nil {
		c.mu.Unlock()
		return s.standings(ids)
	}
	for _, id := range ids {
		if st, ok := c.m[id]; ok {
			out[id] = st
		} else {
			miss = append(miss, id)
		}
	}
	c.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	got, err := s.standings(miss)
	if err != nil {
		return nil, err
	}
	for id, st := range got {
		out[id] = st
	}
	c.mu.Lock()
	// Read at seq or later: kept only if no later change has been seen
	// meanwhile, whose eviction this read could have missed.
	if c.seq == seq {
		if len(c.m)+len(got) > maxStandings {
			c.m = map[string]review.RecordStanding{}
		}
		for id, st := range got {
			c.m[id] = st
		}
	}
	c.mu.Unlock()
	return out, nil
}

// syncLocked brings the cache to the bank's sequence seq: the records
// changed since its own are evicted (all of them when the bank moved
// further than maxStandingsGap, or back).
func (c *standingCache) syncLocked(b Store, seq int64) error {
	switch {
	case c.m == nil || seq < c.seq || seq-c.seq > maxStandingsGap:
		c.m = map[string]review.RecordStanding{}
	case seq > c.seq:
		chs, err := b.ChangesSince(c.seq)
		if err != nil {
			return err
		}
		for _, ch := range chs {
			if ch.Kind == "record" {
				delete(c.m, ch.ID)
			}
			seq = max(seq, ch.Seq)
		}
	default:
		return nil
	}
	c.seq = seq
	return nil
}
