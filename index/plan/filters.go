package plan

import (
	"slices"

	"github.com/blevesearch/bleve/v2/search/query"
)

// filterQuery is the filters-only rewrite: the query a blank query with a
// type and filters runs as, the filters themselves, every clause with zero
// boost, so that bleve walks the postings of the filter terms instead of
// every document of the index through a filtering searcher (env:docs at
// 100,000 records: 20 ms → 8 ms). Every hit scores 0, so ties keep
// bleve's document order, as under the blank query; the hits report
// matchAllScore, as the blank query scored.
func filterQuery(typ string, filters []query.Query) query.Query {
	var all []query.Query
	if typ != "" && !slices.ContainsFunc(filters, isTypeTerm) {
		all = append(all, Keyword("type", typ))
	}
	all = append(all, filters...)
	for _, f := range all {
		zeroBoost(f)
	}
	if len(all) == 1 {
		return all[0]
	}
	return query.NewConjunctionQuery(all)
}

func isTypeTerm(q query.Query) bool {
	tq, ok := q.(*query.TermQuery)
	return ok && tq.FieldVal == "type"
}

// zeroBoost sets a zero boost on q and on every query inside it.
func zeroBoost(q query.Query) {
	switch t := q.(type) {
	case *query.ConjunctionQuery:
		for _, c := range t.Conjuncts {
			zeroBoost(c)
		}
	case *query.DisjunctionQuery:
		for _, d := range t.Disjuncts {
			zeroBoost(d)
		}
	}
	if b, ok := q.(query.BoostableQuery); ok {
		b.SetBoost(0)
	}
}
