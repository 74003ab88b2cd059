package index

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/blevesearch/bleve/v2"

	"github.com/memreview/memreview/review"
)

// Sync catches the index up with the bank's change feed. Call it after each
// bank write; it costs one ChangesSince call when nothing changed.
func (ix *Index) Sync() error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if ix.idx == nil {
		return errClosed
	}
	return ix.catchUp()
}

// catchUp applies every change after the stored sequence, batchSize changes
// to a bleve batch; each batch also stores the sequence of its last change,
// so an interrupted catch-up resumes where it stopped. Callers hold writeMu.
func (ix *Index) catchUp() error {
	changes, err := ix.src.ChangesSince(ix.seq.Load())
	if err != nil {
		return fmt.Errorf("index: read the bank's changes since %d: %w", ix.seq.Load(), err)
	}
	for len(changes) > 0 {
		n := min(len(changes), batchSize)
		if err := ix.apply(changes[:n]); err != nil {
			return err
		}
		changes = changes[n:]
	}
	return nil
}

// apply writes one batch of changes: each changed item is read as it is now
// and indexed again, or removed when the bank no longer has it.
func (ix *Index) apply(changes []review.Change) error {
	b := ix.idx.NewBatch()
	done := map[string]bool{}
	last := ix.seq.Load()
	for _, c := range changes {
		last = max(last, c.Seq)
		id := docID(c.Kind, c.ID)
		if done[id] {
			continue
		}
		done[id] = true
		d, err := ix.load(c)
		if errors.Is(err, review.ErrNotFound) {
			b.Delete(id)
			continue
		}
		if err != nil {
			return err
		}
		if d == nil { // a kind the index does not hold
			continue
		}
		if err := b.Index(id, d); err != nil {
			return fmt.Errorf("index: %s: %w", id, err)
		}
	}
	b.SetInternal(seqKey, []byte(strconv.FormatInt(last, 10)))
	err := ix.write(b)
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

// load reads the item a change names and returns its document; nil, nil for
// kinds the index does not hold.
func (ix *Index) load(c review.Change) (doc, error) {
	switch c.Kind {
	case "record":
		r, err := ix.src.Record(c.ID)
		if err != nil {
			return nil, fmt.Errorf("index: read record %s: %w", c.ID, err)
		}
		return recordDoc(r), nil
	case "proposal":
		p, err := ix.src.Proposal(c.ID)
		if err != nil {
			return nil, fmt.Errorf("index: read proposal %s: %w", c.ID, err)
		}
		return proposalDoc(p), nil
	case "trajectory":
		t, err := ix.src.Trajectory(c.ID)
		if err != nil {
			return nil, fmt.Errorf("index: read trajectory %s: %w", c.ID, err)
		}
		return trajectoryDoc(t), nil
	}
	return nil, nil
}
