package plan

import "github.com/blevesearch/bleve/v2"

// collect is bleve's own search: every hit scored and handed to its
// collector, which keeps the page in the request's order. It always
// answers, so it ends the table.
var collect = hitStrategy{
	strategy: strategy{name: "collect", applies: func(*Plan) bool { return true }},
	run: func(e *Engine, p *Plan) (hits, bool, error) {
		return p.bounded(func(sr *bleve.SearchRequest) (*bleve.SearchResult, error) { return searchGuarded(e.idx, sr) })
	},
}
