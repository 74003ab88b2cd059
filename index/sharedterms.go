package index

// The incremental hygiene run's neighbour search by shared weight: the
// records that share the most of a changed record's terms, weighed by
// the index's idf, found on the postings as bitmaps.

import (
	"context"
	"fmt"
	"strings"

	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// SharedTermsRequest asks for the active records that share the most
// weight of Terms (analysed terms, as Terms gives them), each term
// weighing ln(1 + N/df) over the index: the best K, among the records
// holding one of the rarest terms that weigh at least 1 − Threshold of
// them all (what a record must share one of to reach Threshold of their
// weight). Every hit is of scope env Env (none when ""), and of Category
// when set. With Bound, the candidates stop once no other record can be
// among the best K (bleveext.SharedTermsQuery.Bound): the same hits,
// over fewer candidates.
type SharedTermsRequest struct {
	Terms         []string
	Threshold     float64
	K             int
	Env, Category string
	Bound         bool
}

// SharedTermsStats is what a SharedTerms search did (bleveext's).
type SharedTermsStats = bleveext.SharedTermsStats

// SharedTerms answers req from the index alone (the records it holds
// now): the ids of the hits, best first (ties to the smaller doc number:
// the order the index holds them in), and what the search did.
func (ix *Index) SharedTerms(req SharedTermsRequest) (ids []string, stats SharedTermsStats, err error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.idx == nil {
		return nil, stats, errClosed
	}
	if req.Threshold < 0 || req.Threshold > 1 {
		return nil, stats, fmt.Errorf("index: shared terms: threshold %v is not between 0 and 1", req.Threshold)
	}
	defer func() {
		if p := recover(); p != nil {
			ids, err = nil, fmt.Errorf("%w: %v", bleveext.ErrCorrupt, p)
		}
	}()
	env := req.Env
	if env == "" {
		env = schema.AnyScope
	}
	filter := []bleveext.FieldTerm{{Field: "type", Term: "record"}, {Field: "status", Term: string(review.Active)},
		{Field: "scope_env", Term: strings.ToLower(env)}}
	if req.Category != "" {
		filter = append(filter, bleveext.FieldTerm{Field: "category", Term: strings.ToLower(req.Category)})
	}
	q := &bleveext.SharedTermsQuery{Field: schema.AllField, Terms: req.Terms, Filter: filter, Threshold: req.Threshold, K: req.K, Bound: req.Bound, Cache: &ix.shared}
	err = bleveext.Snapshot(ix.idx, func(r bindex.IndexReader) error {
		ctx, cancel := context.WithTimeout(context.Background(), plan.SearchLimit)
		defer cancel()
		hits, ok, err := q.Top(ctx, r)
		if err != nil {
			return err
		}
		if !ok { // not a scorch snapshot: BM25 over the rarest terms
			ids, err = topTerms(ix.idx, r, req.Terms, RareTermsRequest{Terms: req.Terms, K: req.K, Env: req.Env, Category: req.Category})
			return err
		}
		st, _ := bleveext.NewStored(r)
		for _, h := range hits {
			id, err := st.ID(h.Doc)
			if err != nil {
				return err
			}
			_, id = schema.SplitDocID(id)
			ids = append(ids, id)
		}
		return nil
	})
	return ids, q.Stats, err
}
