package index

import (
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// dictFacets answers the facets of a blank query over one type (or all)
// from the term dictionaries, which hold each term's document count,
// instead of reading the facet fields of every hit (most of the cost of
// the bank browser's first page at 100,000 records). The documents of the
// other types are few (otherTypes decides) and are counted the usual way,
// then subtracted.
//
// A dictionary's counts include documents replaced or deleted but not yet
// merged away; exact reports whether there are none (the live document
// count equals the sum of the type counts), so that the counts are exact.
// ok is false when the dictionaries cannot answer (the other types are not
// few, or a read failed): the caller counts hits. Callers hold ix.mu.
func (ix *Index) dictFacets(typ string, fields []string) (facets map[string][]FacetCount, exact, ok bool) {
	counts := ix.typeCountsLocked()
	if counts == nil {
		return nil, false, false
	}
	var all uint64
	for _, n := range counts {
		all += n
	}
	live, err := ix.idx.DocCount()
	if err != nil {
		return nil, false, false
	}
	var others map[string]map[string]int
	if typ != "" {
		excl := ix.otherTypesIn(counts, typ)
		if excl == nil {
			return nil, false, false
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
			return nil, false, false
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
		fd, err := ix.idx.FieldDict(f)
		if err != nil {
			return nil, false, false
		}
		list := []FacetCount{}
		for {
			e, err := fd.Next()
			if err != nil {
				fd.Close()
				return nil, false, false
			}
			if e == nil {
				break
			}
			n := int(e.Count) - others[f][e.Term]
			if n > 0 {
				list = append(list, FacetCount{Term: e.Term, Count: n})
			}
		}
		fd.Close()
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
	return facets, live == all, true
}
