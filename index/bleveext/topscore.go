package bleveext

import (
	"container/heap"
	"context"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// TopScoreQuery matches what Inner matches, keeping only the documents
// that score at least the K-th best score seen before them (all of them
// when K <= 0); Seen counts every match. A search sorted by score first
// then ranks the same page from fewer hits: a hit scoring below the K-th
// best seen so far cannot reach the first K, so bleve's collector never
// reads its other sort keys. A hit that ties the K-th best score is kept,
// so the keys after the score still decide. One TopScoreQuery serves one
// search at a time.
type TopScoreQuery struct {
	Inner query.Query
	K     int
	Seen  uint64
}

func (q *TopScoreQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := q.Inner.Searcher(ctx, r, m, options)
	if err != nil {
		return nil, err
	}
	best := &minScores{}
	accept := func(_ *bsearch.SearchContext, d *bsearch.DocumentMatch) bool {
		q.Seen++
		if q.K <= 0 {
			return true
		}
		if best.Len() < q.K {
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
