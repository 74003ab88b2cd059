package index

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/blevesearch/bleve/v2"

	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// Sync catches the index up with the bank's change feed. Call it after each
// bank write; it costs one ChangesSince call when nothing changed.
func (ix *Index) Sync() error { return ix.writing(ix.catchUp) }

// writing runs work holding writeMu, counted as a catch-up (CatchingUp),
// unless the index is closed.
func (ix *Index) writing(work func() error) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if ix.idx == nil {
		return errClosed
	}
	ix.busy.Add(1)
	defer ix.busy.Add(-1)
	return work()
}

// A change feed longer than rebuildMin changes and than a quarter of the
// index's documents is rebuilt, not replayed: a rebuild reads the bank a
// page of records per query and writes fresh segments, while a replay
// reads each changed item by id and replaces its document.
const rebuildMin = 2000

// rebuildMin is ix's rebuildMin (Tuning.RebuildMin).
func (ix *Index) rebuildMin() int { return cmp.Or(ix.tune.RebuildMin, rebuildMin) }

// catchUp brings the index up to the bank: a long feed by a rebuild, a
// short one by replay. Callers hold writeMu.
func (ix *Index) catchUp() error {
	changes, err := ix.src.ChangesSince(ix.seq.Load())
	if err != nil {
		return fmt.Errorf("index: read the bank's changes since %d: %w", ix.seq.Load(), err)
	}
	if len(changes) > ix.rebuildMin() {
		docs, err := ix.idx.DocCount()
		if err == nil && uint64(len(changes)) > docs/4 {
			return ix.rebuildLocked()
		}
	}
	return ix.replay(changes)
}

// replay applies changes, batchSize changes to a bleve batch; each batch
// also stores the sequence of its last change, so an interrupted catch-up
// resumes where it stopped.
func (ix *Index) replay(changes []review.Change) error {
	total := len(changes)
	for done := 0; done < total; {
		if ix.stopped() {
			return errStopped
		}
		n := min(total-done, batchSize)
		if err := ix.apply(changes[done : done+n]); err != nil {
			return err
		}
		done += n
		ix.report(done, total)
	}
	return nil
}

// SetProgress sets the function told how far a catch-up or rebuild has
// come: done of total items or changes written, after each batch, from the
// goroutine doing the work. nil stops the reports.
func (ix *Index) SetProgress(f func(done, total int)) {
	if f == nil {
		ix.progress.Store(nil)
		return
	}
	ix.progress.Store(&f)
}

func (ix *Index) report(done, total int) {
	if f := ix.progress.Load(); f != nil {
		(*f)(done, total)
	}
}

// Behind returns how many bank changes the index does not hold yet (0 when
// it is caught up): changes committed since the last Sync, or those a
// catch-up in progress has not reached.
func (ix *Index) Behind() (int64, error) {
	last, err := ix.src.LastSeq()
	if err != nil {
		return 0, fmt.Errorf("index: read the bank's change sequence: %w", err)
	}
	return max(last-ix.seq.Load(), 0), nil
}

// apply writes one batch of changes: each changed item is read as it is now
// and indexed again, or removed when the bank no longer has it.
func (ix *Index) apply(changes []review.Change) error {
	b := ix.idx.NewBatch()
	last := ix.seq.Load()
	for _, c := range changes {
		last = max(last, c.Seq)
	}
	docs, err := schema.LoadAll(ix.src, changes)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, c := range changes {
		id := schema.DocID(c.Kind, c.ID)
		if done[id] || !slices.Contains(schema.Types, c.Kind) { // a kind the index does not hold
			continue
		}
		done[id] = true
		d := docs[id]
		if d == nil { // the bank no longer holds it
			b.Delete(id)
			continue
		}
		if err := schema.Add(ix.idx, b, id, d); err != nil {
			return fmt.Errorf("index: %s: %w", id, err)
		}
	}
	b.SetInternal(seqKey, []byte(strconv.FormatInt(last, 10)))
	ix.gen.Add(1) // before the write too, making it odd while the write runs: a search that sees one even generation before and after it saw none of it (withoutTail)
	err = ix.write(b)
	ix.gen.Add(1) // after the write, even a failed one: searches that read the old generation may have seen part of it
	if err != nil {
		return err
	}
	ix.seq.Store(last)
	return nil
}

func (ix *Index) write(b *bleve.Batch) error {
	if err := ix.idx.Batch(b); err != nil {
		return fmt.Errorf("index: write batch: %w", err)
	}
	return nil
}
