package bleveext

import (
	"context"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// RankBound is where a search ordered by score stops ranking: after Limit
// hits, or after Work steps (counted into *Steps by CountSteps) once After
// hits were passed on. A zero Limit does not stop it.
type RankBound struct {
	Limit       int
	Work, After uint64
	Steps       *uint64
}

// BoundedQuery matches what Inner matches, passing on the first hits in
// index order only, up to its bound: bleve's collector stops there. After
// the search it says whether Inner had more (More) and estimates how many
// it had in all (Estimate). One BoundedQuery serves one search at a time.
type BoundedQuery struct {
	Inner query.Query
	Bound RankBound

	Seen  uint64 // hits passed on
	More  bool   // Inner had a hit after the bound
	last  uint64 // the doc number of the last hit passed on
	space uint64 // doc numbers the index reader spans, deleted ones too
}

// Bounded wraps q in a BoundedQuery when b.Limit > 0, else returns nil.
func Bounded(q query.Query, b RankBound) *BoundedQuery {
	if b.Limit <= 0 {
		return nil
	}
	return &BoundedQuery{Inner: q, Bound: b}
}

func (q *BoundedQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := q.Inner.Searcher(ctx, r, m, options)
	if err != nil {
		return nil, err
	}
	q.Seen, q.More, q.last, q.space = 0, false, 0, DocSpace(r)
	if q.Bound.Steps != nil {
		*q.Bound.Steps = 0
	}
	return &boundedSearcher{Searcher: s, q: q}, nil
}

// Estimate is about how many hits Inner has: the hits seen when it had
// no more, else the hits seen scaled by the share of the doc numbers
// they spanned (hits spread evenly over the index), and at least one
// more than were seen.
func (q *BoundedQuery) Estimate() uint64 {
	if !q.More {
		return q.Seen
	}
	est := q.Seen + 1
	if q.space > q.last+1 {
		est = max(est, uint64(float64(q.Seen)*float64(q.space)/float64(q.last+1)+0.5))
	}
	return est
}

// boundedSearcher is the searcher of a BoundedQuery.
type boundedSearcher struct {
	bsearch.Searcher
	q     *BoundedQuery
	ended bool // past the bound, and looked for one more hit
}

func (s *boundedSearcher) Next(ctx *bsearch.SearchContext) (*bsearch.DocumentMatch, error) {
	if s.full() {
		return s.end(ctx)
	}
	d, err := s.Searcher.Next(ctx)
	return s.count(d, err)
}

func (s *boundedSearcher) Advance(ctx *bsearch.SearchContext, id index.IndexInternalID) (*bsearch.DocumentMatch, error) {
	if s.full() {
		return s.end(ctx)
	}
	d, err := s.Searcher.Advance(ctx, id)
	return s.count(d, err)
}

// full reports whether the search has ranked all it may: the limit of
// hits, or the work once past the floor.
func (s *boundedSearcher) full() bool {
	q, b := s.q, s.q.Bound
	return q.Seen >= uint64(b.Limit) || b.Work > 0 && q.Seen >= b.After && *b.Steps >= b.Work
}

// end ends the search, looking once whether Inner had another hit.
func (s *boundedSearcher) end(ctx *bsearch.SearchContext) (*bsearch.DocumentMatch, error) {
	if s.ended {
		return nil, nil
	}
	s.ended = true
	d, err := s.Searcher.Next(ctx)
	if err != nil {
		return nil, err
	}
	if d != nil {
		s.q.More = true
		ctx.DocumentMatchPool.Put(d)
	}
	return nil, nil
}

// count counts d, a hit passed on.
func (s *boundedSearcher) count(d *bsearch.DocumentMatch, err error) (*bsearch.DocumentMatch, error) {
	if d == nil || err != nil {
		return d, err
	}
	s.q.Seen++
	if n, ok := DocNumber(d.IndexInternalID); ok {
		s.q.last = n
	}
	return d, nil
}

// CountSteps wraps every leaf below q's boolean, conjunction and
// disjunction queries (q itself when it is none) so that each step its
// searcher takes (Next, Advance) adds one to *steps, and returns the
// result; it changes q in place. The hits and scores stay the same.
func CountSteps(q query.Query, steps *uint64) query.Query {
	return RewriteLeaves(q, func(leaf query.Query) query.Query {
		return &countedQuery{inner: leaf, steps: steps}
	})
}

// countedQuery is a leaf query whose searcher counts its steps.
type countedQuery struct {
	inner query.Query
	steps *uint64
}

func (q *countedQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := q.inner.Searcher(ctx, r, m, options)
	if err != nil {
		return nil, err
	}
	// bleve's composite queries drop or short-cut a searcher that
	// matches nothing (the coordination of a disjunction depends on it):
	// it is passed on as it is.
	if _, none := s.(*searcher.MatchNoneSearcher); none {
		return s, nil
	}
	// A phrase on "_all" steps over the postings of all its terms at
	// once (a conjunction, then the phrase check): a step counts once a
	// term.
	weight := uint64(1)
	if p, ok := q.inner.(*AllPhraseQuery); ok {
		if terms, err := p.Terms(m); err == nil {
			weight = uint64(max(1, len(terms)))
		}
	}
	cs := &countedSearcher{Searcher: s, steps: q.steps, weight: weight}
	if o, ok := s.(index.Optimizable); ok {
		// bleve's conjunctions and disjunctions optimize term searchers
		// together (a conjunction intersects its terms' postings first):
		// the counted searcher takes part as its term searcher would.
		return &countedOptimizable{countedSearcher: cs, o: o}, nil
	}
	return cs, nil
}

// countedOptimizable is a countedSearcher whose searcher bleve can
// optimize.
type countedOptimizable struct {
	*countedSearcher
	o index.Optimizable
}

func (s *countedOptimizable) Optimize(kind string, octx index.OptimizableContext) (index.OptimizableContext, error) {
	return s.o.Optimize(kind, octx)
}

// countedSearcher is the searcher of a countedQuery.
type countedSearcher struct {
	bsearch.Searcher
	steps  *uint64
	weight uint64 // steps a step counts for
}

func (s *countedSearcher) Next(ctx *bsearch.SearchContext) (*bsearch.DocumentMatch, error) {
	*s.steps += s.weight
	return s.Searcher.Next(ctx)
}

func (s *countedSearcher) Advance(ctx *bsearch.SearchContext, id index.IndexInternalID) (*bsearch.DocumentMatch, error) {
	*s.steps += s.weight
	return s.Searcher.Advance(ctx, id)
}
