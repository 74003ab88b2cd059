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
func (f *Filling) state() (done bool, seq int64, err error, next <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done, f.seq, f.err, f.changed
}

// BuildFilling builds the index in dir (BANK/index) of the bank src that
// f's writer is filling, reading each transaction of records once it is
// committed, while the writer writes the next. It holds the build lock as
// any build does, builds beside dir and swaps the index in only once the
// writer has inserted everything and every record is written: a build
// that fails or is cut short leaves no index that an open trusts. The
// index stores the sequence of f.Inserted; the next Open catches up what
// came after. src must read its records page by page (*review.Store does).
func BuildFilling(dir string, src Source, f *Filling) error {
	pager, ok := src.(recordPager)
	if !ok {
		return fmt.Errorf("index: build %s: the bank cannot be read page by page", dir)
	}
	release, err := buildLock(dir)
	if err != nil {
		return err
	}
	defer release()
	ix := &Index{dir: dir, src: &followSource{Source: src, pager: pager, f: f}}
	idx, err := ix.rebuild()
	if err != nil {
		return err
	}
	if err := idx.Close(); err != nil {
		return fmt.Errorf("index: close %s: %w", dir, err)
	}
	return nil
}

// followSource is a bank being filled, as a build reads it: a page of
// records shorter than asked for waits for the writer's next commit until
// the writer's inserts are over; the sequence and the other items are read
// after the records (fill asks seqAfterItems).
type followSource struct {
	Source
	pager recordPager
	f     *Filling
}

func (s *followSource) RecordsAfter(afterID string, limit int) ([]review.Record, error) {
	for {
		done, _, err, next := s.f.state()
		if err != nil {
			return nil, fmt.Errorf("the bank's writer failed: %w", err)
		}
		page, err := s.pager.RecordsAfter(afterID, limit)
		// Done before the read: the read saw every insert.
		if err != nil || len(page) >= limit || done {
			return page, err
		}
		<-next
	}
}

func (s *followSource) RecordCount() (int, error) { return s.f.expect, nil }

// seqAfterItems is the sequence a build of s stores, known once its records
// are read (the writer's inserts are over by then).
func (s *followSource) seqAfterItems() (int64, error) {
	done, seq, err, _ := s.f.state()
	if err != nil {
		return 0, fmt.Errorf("the bank's writer failed: %w", err)
	}
	if !done {
		return 0, errors.New("index: the bank's writer has not finished its inserts")
	}
	return seq, nil
}
