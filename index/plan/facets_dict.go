package plan

import (
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/index/bleveext"
)

// dictFacets answers the facets of a blank query over one type (or all)
// from each facet term's document count (bleveext.TermCounts) instead of
// reading the facet fields of every hit, which was most of the cost of
// the bank browser's first page at 100,000 records. The documents of the
// other types are few (otherTypes decides) and are counted the usual way,
// then subtracted. It declines when the other types are not few, or a
// read failed.
var dictFacets = facetStrategy{
	strategy: strategy{name: "dict-facets", applies: func(p *Plan) bool {
		return p.blank && len(p.req.Filters) == 0 && len(p.opt.Exclude) == 0
	}},
	run: func(e *Engine, p *Plan) (facets, bool, error) {
		f, ok := e.dictFacets(p.req.Type, p.req.Facets)
		if ok {
			e.storeFacets(p, f, false)
		}
		return facets{counts: f}, ok, nil
	},
}

func (e *Engine) dictFacets(typ string, fields []string) (facets map[string][]FacetCount, ok bool) {
	var others map[string]map[string]int
	if typ != "" {
		excl := otherTypesIn(e.typeCounts(), typ)
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
		res, err := searchGuarded(e.idx, sr)
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
		counts, err := bleveext.TermCounts(e.idx, f)
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
