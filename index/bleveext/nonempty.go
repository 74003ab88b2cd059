package bleveext

import (
	"context"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// KeptQuery is a leaf that stays a clause of its query when this index
// holds none of its terms. Bleve answers a term range that no term of
// the dictionary falls in with a MatchNoneSearcher, and the conjunctions
// and disjunctions of a query string skip such a searcher (they are
// meant to skip a word the analyzer dropped, a stop word: "+the +join"
// is "+join"), as the boolean query drops a must clause that matches
// nothing: `+created:>="2099-01-01" +join` would find every document
// with "join" in an index without a later day, and every document of a
// type when the range was all the query. KeptQuery's searcher matches
// nothing then as well, under a type bleve does not skip.
type KeptQuery struct {
	query.Query
}

func (q *KeptQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := q.Query.Searcher(ctx, r, m, options)
	if err != nil {
		return nil, err
	}
	if none, ok := s.(*searcher.MatchNoneSearcher); ok {
		return keptNone{none}, nil
	}
	return s, nil
}

// keptNone matches nothing, as the MatchNoneSearcher it holds.
type keptNone struct {
	*searcher.MatchNoneSearcher
}
