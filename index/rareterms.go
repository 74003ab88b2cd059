package index

// The incremental hygiene run's neighbour search: the records sharing a
// changed record's rarest terms, best first, through max-score.

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// RareTermsRequest asks for the active records that hold any of the
// rarest MaxTerms of Terms (analysed terms, as Terms gives them; terms no
// document holds are passed over), the best K by BM25 over those terms.
// Every hit is of scope env Env (none when ""), and of Category when set.
type RareTermsRequest struct {
	Terms         []string
	MaxTerms, K   int
	Env, Category string
}

// RareTerms answers req from the index alone (the records it holds now):
// the ids of the hits, best first (ties to the smaller id), and the terms
// it searched. A record that shares with another record at least a
// weighted-Jaccard threshold of their weight shares one of its rarest
// terms (prefix filtering), so the rarest few find every near duplicate
// that the best K hold room for.
func (ix *Index) RareTerms(req RareTermsRequest) (ids, searched []string, err error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.idx == nil {
		return nil, nil, errClosed
	}
	defer func() {
		if p := recover(); p != nil {
			ids, searched, err = nil, nil, fmt.Errorf("%w: %v", bleveext.ErrCorrupt, p)
		}
	}()
	err = bleveext.Snapshot(ix.idx, func(r bindex.IndexReader) error {
		searched, err = rarest(r, req.Terms, req.MaxTerms)
		if err != nil || len(searched) == 0 {
			return err
		}
		ids, err = topTerms(ix.idx, r, searched, req)
		return err
	})
	return ids, searched, err
}

// rarest are the at most n of terms that the fewest documents hold (at
// least one), rarest first, ties by term.
func rarest(r bindex.IndexReader, terms []string, n int) ([]string, error) {
	type df struct {
		term string
		n    uint64
	}
	var dfs []df
	seen := map[string]bool{}
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		c, err := bleveext.TermCount(r, schema.AllField, t)
		if err != nil {
			return nil, err
		}
		if c > 0 {
			dfs = append(dfs, df{t, c})
		}
	}
	slices.SortFunc(dfs, func(a, b df) int {
		if c := cmp.Compare(a.n, b.n); c != 0 {
			return c
		}
		return cmp.Compare(a.term, b.term)
	})
	out := make([]string, 0, min(n, len(dfs)))
	for _, d := range dfs[:min(n, len(dfs))] {
		out = append(out, d.term)
	}
	return out, nil
}

// topTerms is the best req.K of the documents holding any of terms under
// req's filters, by max-score (bleveext.TopTermsQuery), or by bleve's own
// search of the same query where max-score does not apply.
func topTerms(idx bleve.Index, r bindex.IndexReader, terms []string, req RareTermsRequest) ([]string, error) {
	env := req.Env
	if env == "" {
		env = schema.AnyScope
	}
	filters := []query.Query{plan.Keyword("type", "record"), plan.Keyword("status", string(review.Active)), plan.Keyword("scope_env", env)}
	if req.Category != "" {
		filters = append(filters, plan.Keyword("category", req.Category))
	}
	clauses := make([]query.Query, len(terms))
	boosts := make([]float64, len(terms))
	for i, t := range terms {
		tq := query.NewTermQuery(t)
		tq.SetField(schema.AllField)
		clauses[i], boosts[i] = tq, 1
	}
	filter := query.NewConjunctionQuery(filters)
	tq := &bleveext.TopTermsQuery{Field: schema.AllField, Terms: terms, Boosts: boosts, K: req.K, Filter: filter}
	ctx, cancel := context.WithTimeout(context.Background(), plan.SearchLimit)
	defer cancel()
	hits, ok, err := tq.Top(ctx, r, idx.Mapping())
	if err != nil {
		return nil, err
	}
	type hit struct {
		id    string
		score float64
	}
	var out []hit
	if ok {
		st, _ := bleveext.NewStored(r) // Top applies to scorch snapshots only
		for _, h := range hits {
			id, err := st.ID(h.Doc)
			if err != nil {
				return nil, err
			}
			out = append(out, hit{id, h.Score})
		}
	} else {
		bq := query.NewBooleanQuery([]query.Query{query.NewDisjunctionQuery(clauses)}, nil, nil)
		bq.AddFilter(filter)
		sr := bleve.NewSearchRequestOptions(bq, req.K, 0, false)
		sr.SortBy([]string{"-_score", "_id"})
		res, err := plan.Guarded(idx, sr)
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			out = append(out, hit{h.ID, h.Score})
		}
	}
	slices.SortFunc(out, func(a, b hit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	ids := make([]string, 0, min(req.K, len(out)))
	for _, h := range out[:min(req.K, len(out))] {
		_, id := schema.SplitDocID(h.id)
		ids = append(ids, id)
	}
	return ids, nil
}
