package bleveext

import "github.com/blevesearch/bleve/v2/search/query"

// RewriteLeaves replaces each query below the boolean, conjunction and
// disjunction queries of q (and q itself when it is none of them) by
// leaf(query), in place, and returns the result.
func RewriteLeaves(q query.Query, leaf func(query.Query) query.Query) query.Query {
	switch t := q.(type) {
	case *query.BooleanQuery:
		for _, sub := range []*query.Query{&t.Must, &t.Should, &t.MustNot, &t.Filter} {
			if *sub != nil {
				*sub = RewriteLeaves(*sub, leaf)
			}
		}
	case *query.ConjunctionQuery:
		for i := range t.Conjuncts {
			t.Conjuncts[i] = RewriteLeaves(t.Conjuncts[i], leaf)
		}
	case *query.DisjunctionQuery:
		for i := range t.Disjuncts {
			t.Disjuncts[i] = RewriteLeaves(t.Disjuncts[i], leaf)
		}
	default:
		return leaf(q)
	}
	return q
}
