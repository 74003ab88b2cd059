package bleveext

import (
	"fmt"
	"sort"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/numeric"
	index "github.com/blevesearch/bleve_index_api"
)

// Stored reads the stored fields of documents by doc number from one
// scorch snapshot: one decode of the document's stored block, where
// Bleve's collector finds the id (one decode) and then the document by
// its id (a term lookup and a second decode).
type Stored struct {
	snap    *scorch.IndexSnapshot
	offsets []uint64 // the first doc number of each segment
}

// NewStored is a Stored on r; ok is false when r is not a scorch
// snapshot.
func NewStored(r index.IndexReader) (*Stored, bool) {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, false
	}
	st := &Stored{snap: snap}
	var at uint64
	for _, seg := range snap.Segments() {
		st.offsets = append(st.offsets, at)
		at += uint64(seg.FullSize())
	}
	return st, true
}

// Visit calls f with each stored field of document doc (the "_id" field
// included): its name, its type (Bleve's: 't' text, 'n' number, …) and
// its value, valid only during the call.
func (st *Stored) Visit(doc uint64, f func(field string, typ byte, value []byte)) error {
	i := sort.Search(len(st.offsets), func(x int) bool { return st.offsets[x] > doc }) - 1
	segs := st.snap.Segments()
	if i < 0 || i >= len(segs) || doc-st.offsets[i] >= uint64(segs[i].FullSize()) {
		return fmt.Errorf("document number %d is not in the snapshot", doc)
	}
	return segs[i].VisitDocument(doc-st.offsets[i], func(field string, typ byte, value []byte, _ []uint64) bool {
		f(field, typ, value)
		return true
	})
}

// ID is document doc's id (its stored "_id" field).
func (st *Stored) ID(doc uint64) (string, error) {
	var id string
	err := st.Visit(doc, func(field string, _ byte, value []byte) {
		if field == "_id" {
			id = string(value)
		}
	})
	return id, err
}

// StoredNumber is the number a stored numeric field ('n') holds.
func StoredNumber(value []byte) (float64, error) {
	i, err := numeric.PrefixCoded(value).Int64()
	if err != nil {
		return 0, err
	}
	return numeric.Int64ToFloat64(i), nil
}
