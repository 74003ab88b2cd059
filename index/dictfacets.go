package index

import (
	"context"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// termCounts returns, for every term of field, how many live documents
// hold it: the terms from the field's dictionary, each count from the
// term's postings less the deleted documents (a postings lookup per term
// and segment, no walk over documents). The dictionary's own counts are
// not used: they include deleted documents, and zapx reports 1 for terms
// read after a single-document term in the same segment. Callers hold
// ix.mu.
func (ix *Index) termCounts(field string) (map[string]uint64, error) {
	fd, err := ix.idx.FieldDict(field)
	if err != nil {
		return nil, err
	}
	var terms []string
	for {
		e, err := fd.Next()
		if err != nil {
			fd.Close()
			return nil, err
		}
		if e == nil {
			break
		}
		terms = append(terms, e.Term)
	}
	fd.Close()
	adv, err := ix.idx.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	counts := make(map[string]uint64, len(terms))
	for _, t := range terms {
		n, err := termCount(r, field, t)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			counts[t] = n
		}
	}
	return counts, nil
}

func termCount(r bindex.IndexReader, field, term string) (uint64, error) {
	tfr, err := r.TermFieldReader(context.Background(), []byte(term), field, false, false, false)
	if err != nil {
		return 0, err
	}
	defer tfr.Close()
	return tfr.Count(), nil
}

// dictFacets answers the facets of a blank query over one type (or all)
// from each facet term's document count (termCounts) instead of reading
// the facet fields of every hit, which was most of the cost of the bank
// browser's first page at 100,000 records. The documents of the other
// types are few (otherTypes decides) and are counted the usual way, then
// subtracted. ok is false when it cannot answer (the other types are not
// few, or a read failed): the caller counts hits. Callers hold ix.mu.
func (ix *Index) dictFacets(typ string, fields []string) (facets map[string][]FacetCount, ok bool) {
	var others map[string]map[string]int
	if typ != "" {
		excl := ix.otherTypesIn(ix.typeCountsLocked(), typ)
		if excl == nil {
			return nil, false
		}
		for _, q := range excl {
			zeroBoost(q)
		}
		sr := bleve.NewSearchRequestOptions(query.NewDisjunctionQuery(excl), 0, 0, false)
		for _, f := range fields {
			sr.AddFacet(f, bleve.NewFacetRequest(f, 1<<20))
		}
		res, err := searchGuarded(ix.idx, sr)
		if err != nil {
			return nil, false
		}
		others = map[string]map[string]int{}
		for name, fr := range res.Facets {
			m := map[string]int{}
			if fr.Terms != nil {
				for _, t := range fr.Terms.Terms() {
					m[t.Term] = t.Count
				}
			}
			others[name] = m
		}
	}
	facets = map[string][]FacetCount{}
	for _, f := range fields {
		counts, err := ix.termCounts(f)
		if err != nil {
			return nil, false
		}
		list := []FacetCount{}
		for term, c := range counts {
			if n := int(c) - others[f][term]; n > 0 {
				list = append(list, FacetCount{Term: term, Count: n})
			}
		}
		slices.SortFunc(list, func(a, b FacetCount) int {
			if a.Count != b.Count {
				return b.Count - a.Count
			}
			return strings.Compare(a.Term, b.Term)
		})
		if len(list) > facetSize {
			list = list[:facetSize]
		}
		facets[f] = list
	}
	return facets, true
}
