package plan

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// countFacets counts the facets on every hit, in a search of its own
// after the hits (unscored, so that the hits' strategy may collect only
// its page). It declines over EstimateOver hits, to block-sample.
var countFacets = facetStrategy{
	strategy: strategy{name: "count", applies: func(*Plan) bool { return true }},
	after:    true,
	run: func(e *Engine, p *Plan) (facets, bool, error) {
		if p.total > e.tune.estimateLimit() {
			return facets{}, false, nil
		}
		f, _, err := e.countOn(p.root, p.req.Facets)
		return facets{counts: f}, err == nil, err
	},
}

// countOn counts facets over q's hits.
func (e *Engine) countOn(q query.Query, facets []string) (map[string][]FacetCount, *bleve.SearchResult, error) {
	sr := bleve.NewSearchRequestOptions(q, 0, 0, false)
	sr.Score = "none"
	for _, f := range facets {
		sr.AddFacet(f, bleve.NewFacetRequest(f, facetSize))
	}
	res, err := searchGuarded(e.idx, sr)
	if err != nil {
		return nil, nil, fmt.Errorf("search: count facets: %w", err)
	}
	return facetCounts(res.Facets), res, nil
}

// facetCounts is bleve's facet results as Results.Facets: every requested
// field, most frequent term first (an empty list when none).
func facetCounts(facets bsearch.FacetResults) map[string][]FacetCount {
	out := make(map[string][]FacetCount, len(facets))
	for name, fr := range facets {
		counts := []FacetCount{}
		if fr.Terms != nil {
			for _, t := range fr.Terms.Terms() {
				counts = append(counts, FacetCount{Term: t.Term, Count: t.Count})
			}
		}
		out[name] = counts
	}
	return out
}
