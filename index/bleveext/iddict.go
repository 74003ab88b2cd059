package bleveext

import (
	"context"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// The "_id" field's dictionary holds every document's id in order, also
// the ids of documents replaced or deleted since their segment was
// written (until a merge drops them): the two walks below read ids in
// order from it, keeping the live ones, instead of loading and sorting
// the ids of every hit.

// LiveTerms returns the terms of field with prefix, in dictionary order,
// that a live document holds, skipping the first from of them, at most
// size. ok is false when a read failed.
func LiveTerms(idx bleve.Index, field, prefix string, from, size int) (terms []string, ok bool) {
	fd, err := idx.FieldDictPrefix(field, []byte(prefix))
	if err != nil {
		return nil, false
	}
	defer fd.Close()
	terms = []string{}
	err = Snapshot(idx, func(r index.IndexReader) error {
		for n := 0; len(terms) < size; {
			e, err := fd.Next()
			if err != nil {
				return err
			}
			if e == nil {
				break
			}
			live, err := TermCount(r, field, e.Term)
			if err != nil {
				return err
			}
			if live == 0 {
				continue
			}
			if n++; n <= from {
				continue
			}
			terms = append(terms, e.Term)
		}
		return nil
	})
	if err != nil {
		return nil, false
	}
	return terms, true
}

// MarkedIDs pages root's hits in id order without sorting them: it marks
// the hits' doc numbers (an unscored search, which bleve runs on term
// postings as bitmaps; their number is the exact total), then walks the
// "_id" dictionary from prefix, keeping the ids whose document is marked,
// skipping the first from, until it has size. ok is false when it cannot
// answer (not a scorch index, a read failed, a damaged segment), or when
// the walk would look up more ids than there are hits (a rare root:
// sorting its few hits costs less); the total is then not set either.
func MarkedIDs(idx bleve.Index, root query.Query, prefix string, from, size int) (total uint64, ids []string, ok bool, err error) {
	defer func() {
		if p := recover(); p != nil { // a damaged segment (the caller's search reports it)
			total, ids, ok, err = 0, nil, false, nil
		}
	}()
	need := from + size
	adv, err := idx.Advanced()
	if err != nil {
		return 0, nil, false, nil
	}
	r, err := adv.Reader()
	if err != nil {
		return 0, nil, false, nil
	}
	defer r.Close()
	if _, ok := r.(*scorch.IndexSnapshot); !ok {
		return 0, nil, false, nil
	}
	space := DocSpace(r)
	ctx := context.Background()
	s, err := root.Searcher(ctx, r, idx.Mapping(), bsearch.SearcherOptions{Score: "none"})
	if err != nil {
		return 0, nil, false, err
	}
	defer s.Close()
	sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0)}
	marked := make([]uint64, (space+63)/64)
	for {
		d, err := s.Next(sctx)
		if err != nil {
			return 0, nil, false, err
		}
		if d == nil {
			break
		}
		n, _ := DocNumber(d.IndexInternalID)
		if n/64 >= uint64(len(marked)) {
			return 0, nil, false, nil
		}
		marked[n/64] |= 1 << (n % 64)
		total++
		sctx.DocumentMatchPool.Put(d)
	}
	ids = []string{}
	if total == 0 {
		return 0, ids, true, nil
	}
	// The walk looks up about need × space / total ids; sorting the hits
	// loads total of them.
	if float64(min(uint64(need), total))*float64(space)/float64(total) > float64(total) {
		return 0, nil, false, nil
	}
	fd, err := idx.FieldDictPrefix("_id", []byte(prefix))
	if err != nil {
		return 0, nil, false, nil
	}
	defer fd.Close()
	seen := 0
	for len(ids) < size && uint64(seen) < total {
		e, err := fd.Next()
		if err != nil {
			return 0, nil, false, nil
		}
		if e == nil {
			break
		}
		tfr, err := r.TermFieldReader(ctx, []byte(e.Term), "_id", false, false, false)
		if err != nil {
			return 0, nil, false, nil
		}
		tfd, err := tfr.Next(nil)
		_ = tfr.Close()
		if err != nil {
			return 0, nil, false, nil
		}
		if tfd == nil { // a deleted document's id
			continue
		}
		n, isDoc := DocNumber(tfd.ID)
		if !isDoc || n/64 >= uint64(len(marked)) || marked[n/64]&(1<<(n%64)) == 0 {
			continue
		}
		if seen++; seen > from {
			ids = append(ids, e.Term)
		}
	}
	return total, ids, true, nil
}
