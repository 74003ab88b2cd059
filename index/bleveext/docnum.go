package bleveext

import (
	"encoding/binary"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
)

// Scorch numbers the documents of an index snapshot 0, 1, … across its
// segments in order (a segment's deleted documents keep their numbers
// until a merge drops them), and a hit's internal id is its number as 8
// big-endian bytes. The searchers here read those numbers.

// DocSpace is how many doc numbers r spans, deleted documents included:
// the sum of its segments' full sizes, or 0 when r is not a scorch index
// snapshot.
func DocSpace(r index.IndexReader) uint64 {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return 0
	}
	var space uint64
	for _, seg := range snap.Segments() {
		space += uint64(seg.FullSize())
	}
	return space
}

// DocNumber is the doc number of a hit's internal id; ok is false when it
// is not one of scorch's.
func DocNumber(id index.IndexInternalID) (n uint64, ok bool) {
	if len(id) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(id), true
}

// docID is the internal id of doc number n.
func docID(n uint64) index.IndexInternalID {
	id := make(index.IndexInternalID, 8)
	binary.BigEndian.PutUint64(id, n)
	return id
}

// Snapshot calls f with a reader of idx's current snapshot, closed after.
func Snapshot(idx bleve.Index, f func(r index.IndexReader) error) error {
	adv, err := idx.Advanced()
	if err != nil {
		return err
	}
	r, err := adv.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	return f(r)
}

// SegmentIDs names the segments of idx's current snapshot, in order: it
// changes when a merge or a write replaces one (tests compare searches
// only on one set of segments, as a merge renumbers the documents).
func SegmentIDs(idx bleve.Index) (string, error) {
	var ids []uint64
	err := Snapshot(idx, func(r index.IndexReader) error {
		snap, ok := r.(*scorch.IndexSnapshot)
		if !ok {
			return fmt.Errorf("not a scorch index")
		}
		for _, seg := range snap.Segments() {
			ids = append(ids, seg.Id())
		}
		return nil
	})
	return fmt.Sprint(ids), err
}
