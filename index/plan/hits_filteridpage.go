package plan

import (
	"time"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"

	"github.com/memreview/memreview/index/bleveext"
)

// filterIDPage answers a query on the filters alone (filters-only) sorted
// by id (the bank screen's blank list with a facet chosen) without
// loading the id of every hit to sort them: it marks the hits' doc
// numbers, then walks the "_id" dictionary, which holds every id in
// order, keeping the ids whose document is marked until it has From+Size
// (bleveext.MarkedIDs); the marks' number is the exact total. The walk is
// limited to the request's type. It declines when the walk would look up
// more ids than there are hits (a rare filter: sorting its few hits
// costs less).
var filterIDPage = hitStrategy{
	strategy: strategy{name: "filter-id-page", applies: func(p *Plan) bool {
		return p.onFilters && idSorted(p.req.Sort) && !p.withHits && p.from() <= idPageMax
	}},
	run: func(e *Engine, p *Plan) (hits, bool, error) {
		start := time.Now()
		prefix := ""
		if p.req.Type != "" {
			prefix = p.req.Type + "/"
		}
		total, ids, ok, err := bleveext.MarkedIDs(e.idx, p.root, prefix, p.from(), p.size)
		if err != nil || !ok {
			return hits{}, false, err
		}
		res := &bleve.SearchResult{Total: total, Hits: bsearch.DocumentMatchCollection{}}
		for _, id := range ids {
			res.Hits = append(res.Hits, &bsearch.DocumentMatch{ID: id})
		}
		res.Took = time.Since(start)
		return hits{res: res}, true, nil
	},
}
