package index

import (
	"container/heap"
	"context"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// searchTopScores runs sr, sorted best score first and then by other keys
// (the screens' "-_score", "_id"), without handing bleve's collector the
// hits that cannot reach the page: a hit scoring below the k-th best seen
// so far (k = From+Size) is counted and dropped, so that only the few
// that can make the page get their sort keys read (an "_id" key reads
// the document's id, most of the cost at 40,000 hits). A hit that ties
// the k-th best score is kept, so the keys after the score still decide.
// The total counts every hit. sr must count no facets (they would see
// only the hits kept).
func (ix *Index) searchTopScores(sr *bleve.SearchRequest) (*bleve.SearchResult, error) {
	tq := &topScoreQuery{inner: sr.Query, k: sr.From + sr.Size}
	rs := *sr
	rs.Query = tq
	res, err := searchGuarded(ix.idx, &rs)
	if err != nil {
		return nil, err
	}
	res.Total = tq.seen
	return res, nil
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

// topScoreQuery matches what inner matches, keeping only the documents
// that score at least the k-th best score seen before them.
type topScoreQuery struct {
	inner query.Query
	k     int
	seen  uint64
}

func (q *topScoreQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := q.inner.Searcher(ctx, r, m, options)
	if err != nil {
		return nil, err
	}
	best := &minScores{}
	accept := func(_ *bsearch.SearchContext, d *bsearch.DocumentMatch) bool {
		q.seen++
		if q.k <= 0 {
			return true
		}
		if best.Len() < q.k {
			heap.Push(best, d.Score)
			return true
		}
		if d.Score < (*best)[0] {
			return false
		}
		if d.Score > (*best)[0] {
			(*best)[0] = d.Score
			heap.Fix(best, 0)
		}
		return true
	}
	return searcher.NewFilteringSearcher(ctx, s, accept), nil
}

// minScores is a min-heap of scores.
type minScores []float64

func (h minScores) Len() int           { return len(h) }
func (h minScores) Less(i, j int) bool { return h[i] < h[j] }
func (h minScores) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minScores) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *minScores) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
