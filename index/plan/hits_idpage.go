package plan

import (
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"

	"github.com/memreview/memreview/index/bleveext"
)

// idPageMax is the deepest page (From) the id strategies serve; deeper
// pages go through bleve's sort.
const idPageMax = 10_000

// matchAllScore is the score bleve gives every hit of a blank query.
const matchAllScore = 1.0

// idPage answers a blank query over one type sorted by _id alone (the
// bank browser's blank list) from the _id field's dictionary, which holds
// every document's id in that order, instead of loading the id of every
// hit to sort them: it reads From+Size terms with the type's prefix and
// keeps the live ones (a replaced or deleted document's id stays in the
// dictionary until a merge). The total is the type's document count. Its
// facets must be answered before the hits (the cache, dict-facets), as no
// hits are collected to count them on.
var idPage = hitStrategy{
	strategy: strategy{name: "id-page", applies: func(p *Plan) bool {
		req := p.req
		return p.blank && req.Type != "" && len(req.Filters) == 0 && len(p.opt.Exclude) == 0 &&
			slices.Equal(req.Sort, []string{"_id"}) && (len(req.Facets) == 0 || p.facets != nil) && p.from() <= idPageMax
	}},
	run: func(e *Engine, p *Plan) (hits, bool, error) {
		start := time.Now()
		terms, ok := bleveext.LiveTerms(e.idx, "_id", p.req.Type+"/", p.from(), p.size)
		if !ok {
			return hits{}, false, nil
		}
		res := &bleve.SearchResult{Total: e.typeCounts()[p.req.Type]}
		for _, t := range terms {
			res.Hits = append(res.Hits, &bsearch.DocumentMatch{ID: t, Score: matchAllScore})
		}
		res.Took = time.Since(start)
		return hits{res: res}, true, nil
	},
}
