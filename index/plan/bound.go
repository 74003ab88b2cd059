package plan

import (
	"github.com/blevesearch/bleve/v2"

	"github.com/memreview/memreview/index/bleveext"
)

// rankBound is the bound on ranking of p, a query ordered by score whose
// facets are not counted with its hits: at most Tuning.RankOver hits, or
// RankWork steps once RankAfter hits were ranked (Results.Ranked). It
// counts the steps of p's query from here on. Request.Exact ranks every
// hit, and a query on the filters alone scores every hit the same
// (first-hits stops at the page instead).
func (e *Engine) rankBound(p *Plan) bleveext.RankBound {
	if p.req.Exact || !scoreFirst(p.req.Sort) || p.withHits || p.onFilters || !e.tune.on(rankBoundName) {
		return bleveext.RankBound{}
	}
	b := bleveext.RankBound{Limit: e.tune.rankLimit(), Steps: new(uint64)}
	b.Work, b.After = e.tune.workLimits()
	bleveext.CountSteps(p.bq, b.Steps)
	return b
}

// bounded runs search on p's request with its query under p's rank bound
// (when there is one), and estimates the total when the bound cut the
// ranking short.
func (p *Plan) bounded(search func(sr *bleve.SearchRequest) (*bleve.SearchResult, error)) (hits, bool, error) {
	sr := p.sr
	bq := bleveext.Bounded(sr.Query, p.bound)
	if bq != nil {
		rs := *sr
		rs.Query = bq
		sr = &rs
	}
	res, err := search(sr)
	if err != nil {
		return hits{}, false, err
	}
	h := hits{res: res}
	if bq != nil && bq.More {
		res.Total, h.ranked, h.estimated = bq.Estimate(), bq.Seen, true
	}
	return h, true, nil
}

// scoreFirst reports whether sort orders by descending score first (no
// sort is best score first).
func scoreFirst(sort []string) bool {
	return len(sort) == 0 || sort[0] == "-_score"
}

// scoreOnly reports whether sort orders by descending score alone, ties
// in the index's order.
func scoreOnly(sort []string) bool {
	return len(sort) == 0 || len(sort) == 1 && sort[0] == "-_score"
}

// sortedByScore reports whether sort orders by descending score first and
// by something else after (with the score alone bleve reads no keys).
func sortedByScore(sort []string) bool {
	return len(sort) > 1 && sort[0] == "-_score"
}

// idSorted reports whether sort orders a blank query's hits, which all
// score the same, by id alone.
func idSorted(sort []string) bool {
	return len(sort) == 1 && sort[0] == "_id" || len(sort) == 2 && sort[0] == "-_score" && sort[1] == "_id"
}
