package index

import (
	"fmt"

	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// Snapshot is an in-memory index of a given set of records — a bank as it
// stood at some moment, or as it would be were every open proposal
// accepted — that ranks them for a task exactly as Retrieve ranks the
// bank's own (memreview eval's bank@… and bank+pending conditions). It
// holds only records: give it the retired ones too, which count in the
// term statistics but are never retrieved. Its BM25 statistics are over
// those records alone, where the bank's index also counts its proposals
// and trajectories, so a snapshot of the bank as it is now can rank close
// calls differently from Retrieve.
type Snapshot struct{ ix *Index }

// NewSnapshot indexes recs in memory.
func NewSnapshot(recs []review.Record) (*Snapshot, error) {
	idx, err := schema.NewMem()
	if err != nil {
		return nil, err
	}
	b := idx.NewBatch()
	for i := range recs {
		if err := schema.Add(idx, b, schema.DocID("record", recs[i].ID), schema.RecordDoc(&recs[i])); err != nil {
			_ = idx.Close()
			return nil, fmt.Errorf("index: record %s: %w", recs[i].ID, err)
		}
	}
	if err := idx.Batch(b); err != nil {
		_ = idx.Close()
		return nil, fmt.Errorf("index: write the snapshot: %w", err)
	}
	return &Snapshot{ix: &Index{idx: idx}}, nil
}

// Retrieve is Index.Retrieve over the snapshot's records.
func (s *Snapshot) Retrieve(task string, scope review.Scope, k int) ([]Scored, error) {
	if k <= 0 {
		k = 5
	}
	return s.ix.retrieve(task, scope, k, nil)
}

// Close releases the snapshot.
func (s *Snapshot) Close() error {
	s.ix.mu.Lock()
	defer s.ix.mu.Unlock()
	if s.ix.idx == nil {
		return nil
	}
	err := s.ix.idx.Close()
	s.ix.idx = nil
	return err
}
