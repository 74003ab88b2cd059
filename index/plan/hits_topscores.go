package plan

import (
	"github.com/blevesearch/bleve/v2"

	"github.com/memreview/memreview/index/bleveext"
)

// topScores answers a request sorted best score first and then by other
// keys (the screens' "-_score", "_id") without handing bleve's collector
// the hits that cannot reach the page: a hit scoring below the k-th best
// seen so far (k = From+Size) is counted and dropped, so that only the few
// that can make the page get their sort keys read (an "_id" key reads the
// document's id, most of the cost at 40,000 hits). The total counts every
// hit. It needs no facets counted with the hits (they would see only the
// hits kept), and a query scored by BM25 (not the filters alone).
var topScores = hitStrategy{
	strategy: strategy{name: "top-scores", applies: func(p *Plan) bool {
		return sortedByScore(p.req.Sort) && !p.withHits && !p.onFilters
	}},
	run: func(e *Engine, p *Plan) (hits, bool, error) {
		return p.bounded(func(sr *bleve.SearchRequest) (*bleve.SearchResult, error) { return e.searchTopScores(sr) })
	},
}

// searchTopScores runs sr keeping only the hits that score at least the
// (From+Size)-th best seen before them (bleveext.TopScoreQuery); the total
// counts every hit.
func (e *Engine) searchTopScores(sr *bleve.SearchRequest) (*bleve.SearchResult, error) {
	tq := &bleveext.TopScoreQuery{Inner: sr.Query, K: sr.From + sr.Size}
	rs := *sr
	rs.Query = tq
	res, err := searchGuarded(e.idx, &rs)
	if err != nil {
		return nil, err
	}
	res.Total = tq.Seen
	return res, nil
}
