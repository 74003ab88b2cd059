package plan

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/schema"
)

// MaxScore names the retrieval strategy that scores only the documents
// that can reach the pool (bleveext.TopTermsQuery); Tuning.Off may name
// it to compare. Where it does not apply (a task of more distinct terms
// than Bleve's disjunction adds in a fixed order), the retrieval runs
// top-scores.
const MaxScore = "max-score"

// searchMaxScore answers sr (Retrieve's request: the task's terms under
// filters, without not) with bleveext.TopTermsQuery, which hands bleve's
// collector only the hits scoring at least the pool's last score, each
// with the score bleve's own query gives it; the collector's sort then
// breaks their ties as it would over every hit. The result's total counts
// only those hits. A task of more than searcher.DisjunctionHeapTakeover
// distinct terms (bleve adds their scores in an order of its heap's
// making) runs top-scores instead.
func (e *Engine) searchMaxScore(sr *bleve.SearchRequest, task string, filters, not []query.Query) (*bleve.SearchResult, error) {
	terms, boosts := schema.TaskTerms(task)
	if len(terms) == 0 || len(terms) > searcher.DisjunctionHeapTakeover {
		return e.searchTopScores(sr)
	}
	k := sr.From + sr.Size
	tq := &bleveext.TopTermsQuery{
		Field: schema.AllField, Terms: terms, Boosts: boosts, K: k,
		Filter:   query.NewConjunctionQuery(filters),
		Fallback: &bleveext.TopScoreQuery{Inner: sr.Query, K: k},
	}
	if len(not) > 0 {
		tq.Not = query.NewDisjunctionQuery(not)
	}
	rs := *sr
	rs.Query = tq
	return searchGuarded(e.idx, &rs)
}
