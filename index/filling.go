package index

import (
	"errors"
	"fmt"
	"sync"

	"github.com/memreview/memreview/review"
)

// Filling is what one writer filling a bank tells the index that follows
// it (BuildFilling for a new bank's index, Index.Follow for an open one),
// which indexes what the writer writes while it writes: the writer calls
// Committed after each transaction and Inserted once its inserts are
// over, or Fail when it stops; whatever it writes after Inserted (edits)
// the index catches up from the change feed afterwards. Its methods are
// safe for concurrent use.
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
// came after. src must read records by id in bulk (*store.Store does).
func BuildFilling(dir string, src Store, f *Filling) error {
	return buildFilling(dir, src, f, BuildTuning{})
}

// buildFilling is BuildFilling under bt (tests use small batches).
func buildFilling(dir string, src Store, f *Filling, bt BuildTuning) error {
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
	fresh, err := buildFrom(dir+".new", &followSource{Store: src, byID: byID, f: f}, func(int, int) {}, bt)
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

// Follow indexes what a writer writes into the bank while it writes, the
// open index's side of an import: the writer reports each transaction it
// commits and the end of its inserts through f (or its failure), and
// Follow returns once the index holds everything up to f.Inserted's
// sequence, or the writer's failure, or errStopped when the index closes
// first. Searches meanwhile answer from the index and the tail
// (CatchingUp is true).
//
// A writer that means to write more records (NewFilling's expect) than
// rebuildMin and than a quarter of the index's documents (the first
// import into a new bank, a large one into a small bank) has the index
// built again beside the open one as BuildFilling builds one: the bank's
// change feed followed from its start, each transaction's records read by
// id once it commits while the writer writes the next, the proposals and
// trajectories after; it is swapped in once the writer is done and every
// record is written, and the changes after f.Inserted are replayed. For
// a smaller writer the index catches up after each transaction as Sync
// does (the changed items read in bulk). A writer that commits once (an
// import writes one transaction) is followed after its commit.
func (ix *Index) Follow(f *Filling) error { return ix.writing(func() error { return ix.follow(f) }) }

// follow is Follow for a caller holding writeMu.
func (ix *Index) follow(f *Filling) error {
	if docs, err := ix.idx.DocCount(); err == nil && f.expect > ix.rebuildMin() && uint64(f.expect) > docs/4 {
		if byID, ok := ix.src.(recordsByID); ok {
			release, err := buildLock(ix.dir)
			if err != nil {
				return err
			}
			defer release()
			return ix.buildAndSwapFrom(&followSource{Store: ix.src, byID: byID, f: f, stop: ix.stop})
		}
	}
	for {
		done, _, next, err := f.state()
		if err != nil {
			return fmt.Errorf("the bank's writer failed: %w", err)
		}
		if err := ix.catchUp(); err != nil {
			return err
		}
		if done { // the catch-up read the feed after the inserts were over
			return nil
		}
		select {
		case <-next:
		case <-ix.stop:
			return errStopped
		}
	}
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
	Store
	byID    recordsByID
	f       *Filling
	stop    <-chan struct{} // closed when the index closes (nil: never)
	seq     int64           // the change feed is read up to here
	pending []string        // ids of records changed up to seq, not yet handed over
	final   bool            // the feed was read after the writer was done: pending is the last of it
}

// RecordsAfter hands over up to limit records changed since the last
// page, ignoring afterID (fill reads the pages in turn until one is
// empty), and an empty page once the writer is done and every record it
// inserted has been handed over.
//
// The feed gives each object's latest change only, so a record inserted
// before the writer's last insert and edited after it, both since the
// last read (a build that fell behind its writer), shows there only at
// its edit, after f.Inserted's sequence: the first read after the writer
// is done takes every record it lists, whatever its sequence, and is the
// last read. A record handed over before and edited since is handed over
// again, in its latest version; the catch-up after the build replays the
// edit all the same, so the index ends up the same whichever of the two
// pages is written last.
func (s *followSource) RecordsAfter(_ string, limit int) ([]review.Record, error) {
	for {
		if len(s.pending) == 0 {
			if s.final {
				return nil, nil
			}
			done, _, next, err := s.f.state()
			if err != nil {
				return nil, fmt.Errorf("the bank's writer failed: %w", err)
			}
			changes, err := s.ChangesSince(s.seq)
			if err != nil {
				return nil, fmt.Errorf("index: read the bank's changes since %d: %w", s.seq, err)
			}
			for _, c := range changes {
				s.seq = max(s.seq, c.Seq)
				if c.Kind == "record" {
					s.pending = append(s.pending, c.ID)
				}
			}
			// done before the read: the read saw every insert (edits
			// after it are the catch-up's).
			s.final = done
			if len(s.pending) == 0 {
				if done {
					return nil, nil
				}
				select {
				case <-next:
				case <-s.stop:
					return nil, errStopped
				}
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
