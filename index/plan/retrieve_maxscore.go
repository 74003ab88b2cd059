package plan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/schema"
)

// MaxScore names the retrieval strategy that scores only the documents
// that can reach the pool (bleveext.TopTermsQuery); Tuning.Off may name
// it to compare. Where it does not apply (a task of more distinct terms
// than Bleve's disjunction adds in a fixed order), the retrieval runs
// top-scores.
const MaxScore = "max-score"

// poolHit is a document max-score kept, with the keys Retrieve's pool is
// ordered by and the fields it weighs.
type poolHit struct {
	id       string // bleve's
	score    float64
	priority float64
	hasPrio  bool
	suspect  bool
}

// retrieveMaxScore is Retrieve's pool of the pool best documents for the
// task's terms under filters and without not, found by max-score
// (bleveext.TopTermsQuery: only the hits scoring at least the pool's last
// score, each with bleve's own score) and ordered as bleve's sort of
// every hit orders it ("-_score", "-priority" with a missing priority
// last, "_id"), from one read of each kept document's stored fields
// instead of bleve's collector reading the sort keys' doc values. ok is
// false, and nothing searched, for a task of more than
// searcher.DisjunctionHeapTakeover distinct terms (bleve adds their
// scores in an order of its heap's making) or an index that is not
// scorch's scoring BM25.
func (e *Engine) retrieveMaxScore(task string, filters, not []query.Query, pool int) (out []poolHit, ok bool, err error) {
	terms, boosts := schema.TaskTerms(task)
	if len(terms) == 0 || len(terms) > searcher.DisjunctionHeapTakeover {
		return nil, false, nil
	}
	tq := &bleveext.TopTermsQuery{
		Field: schema.AllField, Terms: terms, Boosts: boosts, K: pool,
		Filter: query.NewConjunctionQuery(filters), Memo: &e.state.memo,
	}
	if len(not) > 0 {
		tq.Not = query.NewDisjunctionQuery(not)
	}
	ctx, cancel := context.WithTimeout(context.Background(), SearchLimit)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			out, ok, err = nil, false, fmt.Errorf("%w: %v", bleveext.ErrCorrupt, p)
		}
	}()
	err = bleveext.Snapshot(e.idx, func(r index.IndexReader) error {
		hits, applies, err := tq.Top(ctx, r, e.idx.Mapping())
		if err != nil || !applies {
			return err
		}
		st, _ := bleveext.NewStored(r) // Top applies to scorch snapshots only
		out = make([]poolHit, len(hits))
		for i, h := range hits {
			ph := &out[i]
			ph.score = h.Score
			err := st.Visit(h.Doc, func(field string, typ byte, value []byte) {
				switch {
				case field == "_id":
					ph.id = string(value)
				case field == "priority" && typ == 'n':
					if n, err := bleveext.StoredNumber(value); err == nil {
						ph.priority, ph.hasPrio = n, true
					}
				case field == "suspect" && typ == 't':
					ph.suspect = string(value) == "true"
				}
			})
			if err != nil {
				return err
			}
		}
		ok = true
		return nil
	})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (after %v): ask for fewer or rarer words", ErrSearchLimit, SearchLimit)
		}
		return nil, false, err
	}
	slices.SortFunc(out, func(a, b poolHit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if a.hasPrio != b.hasPrio {
			if a.hasPrio {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.priority, a.priority); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	if len(out) > pool {
		out = out[:pool]
	}
	return out, ok, nil
}
