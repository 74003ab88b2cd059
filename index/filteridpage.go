package index

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// idSorted reports whether sort orders a blank query's hits, which all
// score the same, by id alone.
func idSorted(sort []string) bool {
	return len(sort) == 1 && sort[0] == "_id" || len(sort) == 2 && sort[0] == "-_score" && sort[1] == "_id"
}

// filterIDPage answers a blank query's filters (root, from filterQuery)
// sorted by id (the bank screen's blank list with a facet chosen) without
// loading the id of every hit to sort them: it marks the hits' doc
// numbers (an unscored search, which bleve runs on the filters' postings
// as bitmaps; their number is the exact total), then walks the "_id"
// dictionary, which holds every id in order, keeping the ids whose
// document is marked until it has From+Size. typ, when set, limits the
// walk to that type's ids (root holds the type too). ok is false when it
// cannot answer, or when the walk would look up more ids than there are
// hits (a rare filter: sorting its few hits costs less). Callers hold
// ix.mu.
func (ix *Index) filterIDPage(root query.Query, typ string, from, size int) (res *bleve.SearchResult, ok bool, err error) {
	defer func() {
		if p := recover(); p != nil { // a damaged segment, as searchGuarded
			res, ok, err = nil, false, nil
		}
	}()
	start := time.Now()
	need := from + size
	if from > idPageMax {
		return nil, false, nil
	}
	adv, err := ix.idx.Advanced()
	if err != nil {
		return nil, false, nil
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, false, nil
	}
	defer r.Close()
	snap, isSnap := r.(*scorch.IndexSnapshot)
	if !isSnap {
		return nil, false, nil
	}
	var space uint64
	for _, seg := range snap.Segments() {
		space += uint64(seg.FullSize())
	}
	ctx := context.Background()
	s, err := root.Searcher(ctx, r, ix.idx.Mapping(), bsearch.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, false, err
	}
	defer s.Close()
	sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0)}
	marked := make([]uint64, (space+63)/64)
	var total uint64
	for {
		d, err := s.Next(sctx)
		if err != nil {
			return nil, false, err
		}
		if d == nil {
			break
		}
		n := binary.BigEndian.Uint64(d.IndexInternalID)
		if n/64 >= uint64(len(marked)) {
			return nil, false, nil
		}
		marked[n/64] |= 1 << (n % 64)
		total++
		sctx.DocumentMatchPool.Put(d)
	}
	out := &bleve.SearchResult{Total: total, Hits: bsearch.DocumentMatchCollection{}}
	// The walk looks up about need × space / total ids; sorting the hits
	// loads total of them.
	if total == 0 || float64(min(uint64(need), total))*float64(space)/float64(total) > float64(total) {
		if total == 0 {
			out.Took = time.Since(start)
			return out, true, nil
		}
		return nil, false, nil
	}
	prefix := ""
	if typ != "" {
		prefix = typ + "/"
	}
	fd, err := ix.idx.FieldDictPrefix("_id", []byte(prefix))
	if err != nil {
		return nil, false, nil
	}
	defer fd.Close()
	seen := 0
	for len(out.Hits) < size && uint64(seen) < total {
		e, err := fd.Next()
		if err != nil {
			return nil, false, nil
		}
		if e == nil {
			break
		}
		tfr, err := r.TermFieldReader(ctx, []byte(e.Term), "_id", false, false, false)
		if err != nil {
			return nil, false, nil
		}
		tfd, err := tfr.Next(nil)
		_ = tfr.Close()
		if err != nil {
			return nil, false, nil
		}
		if tfd == nil || len(tfd.ID) != 8 { // a deleted document's id
			continue
		}
		n := binary.BigEndian.Uint64(tfd.ID)
		if n/64 >= uint64(len(marked)) || marked[n/64]&(1<<(n%64)) == 0 {
			continue
		}
		if seen++; seen > from {
			out.Hits = append(out.Hits, &bsearch.DocumentMatch{ID: e.Term})
		}
	}
	out.Took = time.Since(start)
	return out, true, nil
}
