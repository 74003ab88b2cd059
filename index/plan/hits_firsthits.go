package plan

import (
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/memreview/memreview/index/bleveext"
)

// firstHits answers a query on the filters alone (filters-only) ordered
// by score alone without scoring and collecting every hit: every hit
// scores the same, so the page is the hits From to From+Size in index
// order, and the search stops after them. The total is then counted
// apart, unscored (bleve intersects the filters' postings as bitmaps), so
// it stays exact.
var firstHits = hitStrategy{
	strategy: strategy{name: "first-hits", applies: func(p *Plan) bool {
		return p.onFilters && scoreOnly(p.req.Sort) && !p.withHits
	}},
	run: func(e *Engine, p *Plan) (hits, bool, error) {
		res, err := e.firstHits(p.sr)
		return hits{res: res}, err == nil, err
	},
}

func (e *Engine) firstHits(sr *bleve.SearchRequest) (*bleve.SearchResult, error) {
	start := time.Now()
	bq := &bleveext.BoundedQuery{Inner: sr.Query, Bound: bleveext.RankBound{Limit: sr.From + sr.Size}}
	rs := *sr
	rs.Query = bq
	res, err := searchGuarded(e.idx, &rs)
	if err != nil {
		return nil, err
	}
	if bq.More {
		count := bleve.NewSearchRequestOptions(sr.Query, 0, 0, false)
		count.Score = "none"
		cres, err := searchGuarded(e.idx, count)
		if err != nil {
			return nil, err
		}
		res.Total = cres.Total
	}
	res.Took = time.Since(start)
	return res, nil
}
