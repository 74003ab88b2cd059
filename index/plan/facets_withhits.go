package plan

import "github.com/blevesearch/bleve/v2"

// withHits counts the facets of a request that asks for exact counts
// (Request.Exact) with its hits, bleve's own way: every hit's facet
// fields read as it is collected. The hit strategies that collect only
// some hits (first-hits, filter-id-page, top-scores) and the rank bound
// then stand aside.
var withHits = facetStrategy{
	strategy: strategy{name: "with-hits", applies: func(p *Plan) bool { return p.req.Exact }},
	run: func(e *Engine, p *Plan) (facets, bool, error) {
		for _, f := range p.req.Facets {
			p.sr.AddFacet(f, bleve.NewFacetRequest(f, facetSize))
		}
		return facets{withHits: true}, true, nil
	},
}
