package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// Retrieval weights; see Retrieve.
const (
	priorityWeight = 0.1
	minWeight      = 0.1
	suspectWeight  = 0.5
	retrievePool   = 50
)

// Retrieve returns the k records (k <= 0 means 5) a task agent working
// on task should be given, best first, from this index alone, without
// the documents exclude names: the index package's Retrieve describes the
// ranking.
func (e *Engine) Retrieve(task string, scope review.Scope, k int, exclude []string) ([]Scored, error) {
	if k <= 0 {
		k = 5
	}
	var q query.Query = query.NewMatchAllQuery()
	if strings.TrimSpace(task) != "" {
		q = schema.TaskQuery(task)
	}
	filters := []query.Query{Keyword("type", "record"), Keyword("status", string(review.Active))}
	if scope.Env != "" {
		filters = append(filters, query.NewDisjunctionQuery([]query.Query{
			Keyword("scope_env", scope.Env), Keyword("scope_env", schema.AnyScope)}))
	}
	if len(scope.Tags) > 0 {
		any := []query.Query{Keyword("scope_tags", schema.AnyScope)}
		for _, t := range scope.Tags {
			any = append(any, Keyword("scope_tags", t))
		}
		filters = append(filters, query.NewDisjunctionQuery(any))
	}
	var not []query.Query
	if len(exclude) > 0 {
		not = []query.Query{query.NewDocIDQuery(exclude)}
	}
	bq := query.NewBooleanQuery([]query.Query{q}, nil, not)
	bq.AddFilter(query.NewConjunctionQuery(filters))
	sr := bleve.NewSearchRequestOptions(bq, max(4*k, retrievePool), 0, false)
	sr.Fields = []string{"priority", "suspect"}
	// BM25 ties (every candidate of a blank task) go to the higher
	// priority, then the smaller id, so the pool does not depend on the
	// order documents reached the index.
	sr.SortBy([]string{"-_score", "-priority", "_id"})

	// Only the hits that can still reach the pool are scored (max-score)
	// or get their tie-break keys read (top-scores); the pool is exactly
	// the one bleve's sort of every hit gives. (Every hit of a blank task
	// ties: there they would only add work.)
	var hits []poolHit
	var err error
	ok := false
	if strings.TrimSpace(task) != "" && e.tune.on(MaxScore) {
		hits, ok, err = e.retrieveMaxScore(task, filters, not, sr.Size)
	}
	if !ok && err == nil {
		hits, err = e.retrieveBleve(sr, task)
	}
	if err != nil {
		return nil, fmt.Errorf("retrieve for %q: %w", task, err)
	}
	out := make([]Scored, 0, len(hits))
	for _, h := range hits {
		_, id := schema.SplitDocID(h.id)
		w := max(minWeight, 1+priorityWeight*h.priority)
		if h.suspect {
			w *= suspectWeight
		}
		out = append(out, Scored{ID: id, Score: h.score * w, BM25: h.score})
	}
	SortScored(out)
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

// retrieveBleve is Retrieve's pool from bleve's search of sr (its
// collector sorting the hits that can reach the pool, top-scores).
func (e *Engine) retrieveBleve(sr *bleve.SearchRequest, task string) ([]poolHit, error) {
	var res *bleve.SearchResult
	var err error
	if !e.tune.on(topScores.name) || strings.TrimSpace(task) == "" {
		res, err = searchGuarded(e.idx, sr)
	} else {
		res, err = e.searchTopScores(sr)
	}
	if err != nil {
		return nil, err
	}
	out := make([]poolHit, 0, len(res.Hits))
	for _, h := range res.Hits {
		prio, hasPrio := h.Fields["priority"].(float64)
		s, _ := h.Fields["suspect"].(string)
		out = append(out, poolHit{id: h.ID, score: h.Score, priority: prio, hasPrio: hasPrio, suspect: s == "true"})
	}
	return out, nil
}

// SortScored orders retrieved records best first, ties to the smaller id.
func SortScored(out []Scored) {
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
}
