package index

import (
	"errors"
	"fmt"
	"sync"

	"github.com/memreview/memreview/review"
)

// Filling is what one writer filling a new bank tells BuildFilling, which
// builds the bank's index while the writer writes (sample gen): the
// writer inserts records in ascending id order, calls Committed after each
// transaction and Inserted once its inserts are over; whatever it writes
// after that (edits) the index's next open catches up from the change
// feed. Its methods are safe for concurrent use.
type Filling struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every call
	expect  int
	done    bool
	seq     int64
	err     error
}

// NewFilling returns a Filling for a writer that means to insert expect
// records (the build's progress total).
func NewFilling(expect int) *Filling {
	return &Filling{changed: make(chan struct{}), expect: expect}
}

// Committed says that more records are committed.
func (f *Filling) Committed(records int) { f.update(func() {}) }

// Inserted says that every record is in; seq is the bank's change sequence
// after the last insert, which the index stores.
func (f *Filling) Inserted(seq int64) { f.update(func() { f.done, f.seq = true, seq }) }

// Fail says that the writer stopped with err: the build stops too.
func (f *Filling) Fail(err error) {
	if err == nil {
		err = errors.New("the writer stopped")
	}
	f.update(func() { f.err = err })
}

func (f *Filling) update(change func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change()
	close(f.changed)
	f.changed = make(chan struct{})
}

// state is what the writer has said so far, with the channel closed at
// its next call.
func (f *Filling) state() (done bool, seq int64, next <-chan struct{}, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done, f.seq, f.changed, f.err
}

// BuildFilling builds the index in dir (BANK/index) of the bank src that
// f's writer is filling, reading each transaction of records once it is
// committed, while the writer writes the next. It holds the build lock as
// any build does, builds beside dir and swaps the index in only once the
// writer has inserted everything and every record is written: a build
// that fails or is cut short leaves no index that an open trusts. The
// index stores the sequence of f.Inserted; the next Open catches up what
// came after. src must read records by id in bulk (*review.Store does).
func BuildFilling(dir string, src Source, f *Filling) error {
	byID, ok := src.(recordsByID)
	if !ok {
		return fmt.Errorf("index: build %s: the bank cannot read records by id in bulk", dir)
	}
	release, err := buildLock(dir)
	if err != nil {
		return err
	}
	defer release()
	// buildFrom itself, not an Index's build: fill must see the
	// followSource, not a wrapper of it.
	fresh, err := buildFrom(dir+".new", &followSource{Source: src, byID: byID, f: f}, func(int, int) {}, BuildTuning{})
	if err != nil {
		return err
	}
	if err := fresh.Close(); err != nil {
		return fmt.Errorf("index: close the new index: %w", err)
	}
	idx, err := swapIn(dir)
	if err != nil {
		return err
	}
	if err := idx.Close(); err != nil {
		return fmt.Errorf("index: close %s: %w", dir, err)
	}
	return nil
}

// recordsByID is what a followed bank reads its records with.
type recordsByID interface {
	RecordsByID(ids []string) (map[string]*review.Record, error)
}

// followSource is a bank being filled, as a build reads it: it follows
// the bank's change feed, not the records' ids (a writer's ids need not
// sort in the order it writes them: Synth's millionth record, mem_1000000,
// sorts before mem_100001), handing over the records changed since the
// last page, and waits for the writer's next commit until its inserts are
// over. The sequence and the other items are read after the records
// (fill asks seqAfterItems).
type followSource struct {
	Source
	byID    recordsByID
	f       *Filling
	seq     int64    // the change feed is read up to here
	pending []string // ids of records changed up to seq, not yet handed over
}

// RecordsAfter hands over up to limit records changed since the last
// page, ignoring afterID (fill reads the pages in turn until one is
// empty), and an empty page once the writer is done and every record it
// inserted has been handed over.
func (s *followSource) RecordsAfter(_ string, limit int) ([]review.Record, error) {
	for {
		if len(s.pending) == 0 {
			done, last, next, err := s.f.state()
			if err != nil {
				return nil, fmt.Errorf("the bank's writer failed: %w", err)
			}
			changes, err := s.ChangesSince(s.seq)
			if err != nil {
				return nil, fmt.Errorf("index: read the bank's changes since %d: %w", s.seq, err)
			}
			for _, c := range changes {
				if done && c.Seq > last {
					continue // an edit after the inserts: the catch-up's
				}
				s.seq = max(s.seq, c.Seq)
				if c.Kind == "record" {
					s.pending = append(s.pending, c.ID)
				}
			}
			if len(s.pending) == 0 {
				if done { // done before the read: the read saw every insert
					return nil, nil
				}
				<-next
				continue
			}
		}
		ids := s.pending[:min(limit, len(s.pending))]
		s.pending = s.pending[len(ids):]
		got, err := s.byID.RecordsByID(ids)
		if err != nil {
			return nil, fmt.Errorf("index: read records: %w", err)
		}
		page := make([]review.Record, 0, len(ids))
		for _, id := range ids {
			if r := got[id]; r != nil {
				page = append(page, *r)
			}
		}
		if len(page) > 0 {
			return page, nil
		}
	}
}
func (s *followSource) RecordCount() (int, error) { return s.f.expect, nil }

// seqAfterItems is the sequence a build of s stores, known once its records
// are read (the writer's inserts are over by then).
func (s *followSource) seqAfterItems() (int64, error) {
	done, seq, _, err := s.f.state()
	if err != nil {
		return 0, fmt.Errorf("the bank's writer failed: %w", err)
	}
	if !done {
		return 0, errors.New("index: the bank's writer has not finished its inserts")
	}
	return seq, nil
}
