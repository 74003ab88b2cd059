package index

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// rankOver is how many hits of a query ordered by score are scored at
// most (unless Request.Exact): a query with more hits than that ranks the
// first rankOver of them in index order and estimates its total
// (Results.Ranked). Bleve finds the best k only by scoring every hit,
// about 0.2 µs of CPU a hit: "join" at 1,000,000 records has 393,000.
// Index.rankOver, when set, replaces it (tests).
const rankOver = 100_000

// rankLimit is ix's rankOver.
func (ix *Index) rankLimit() int {
	if ix.rankOver != 0 {
		return ix.rankOver
	}
	return rankOver
}

// boundedQuery matches what inner matches, passing on the first limit
// hits in index order only: bleve's collector stops there. After the
// search it says whether inner had more (more) and estimates how many it
// had in all (estimate). One boundedQuery serves one search at a time.
type boundedQuery struct {
	inner query.Query
	limit int
	// work, when not 0, also stops the search once at least after hits
	// were passed on and *steps (counted by countSteps in inner) reached
	// work.
	work, after uint64
	steps       *uint64

	seen  uint64 // hits passed on
	more  bool   // inner had a hit after the limit
	last  uint64 // the doc number of the last hit passed on
	space uint64 // doc numbers the index reader spans, deleted ones too
}

// bounded wraps q in a boundedQuery when b.limit > 0, else returns nil.
func bounded(q query.Query, b rankBound) *boundedQuery {
	if b.limit <= 0 {
		return nil
	}
	return &boundedQuery{inner: q, limit: b.limit, work: b.work, after: b.after, steps: b.steps}
}

// rankBound is where a search ordered by score stops ranking: after limit
// hits, or after work steps (counted into *steps) once after hits were
// passed on. A zero limit does not stop it.
type rankBound struct {
	limit       int
	work, after uint64
	steps       *uint64
}

func (q *boundedQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := q.inner.Searcher(ctx, r, m, options)
	if err != nil {
		return nil, err
	}
	q.seen, q.more, q.last, q.space = 0, false, 0, 0
	if q.steps != nil {
		*q.steps = 0
	}
	if snap, ok := r.(*scorch.IndexSnapshot); ok {
		for _, seg := range snap.Segments() {
			q.space += uint64(seg.FullSize())
		}
	}
	return &boundedSearcher{Searcher: s, q: q}, nil
}

// estimate is about how many hits inner has: the hits seen when it had
// no more, else the hits seen scaled by the share of the doc numbers
// they spanned (hits spread evenly over the index), and at least one
// more than were seen.
func (q *boundedQuery) estimate() uint64 {
	if !q.more {
		return q.seen
	}
	est := q.seen + 1
	if q.space > q.last+1 {
		est = max(est, uint64(float64(q.seen)*float64(q.space)/float64(q.last+1)+0.5))
	}
	return est
}

// boundedSearcher is the searcher of a boundedQuery.
type boundedSearcher struct {
	bsearch.Searcher
	q     *boundedQuery
	ended bool // past the limit, and looked for one more hit
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
	q := s.q
	return q.seen >= uint64(q.limit) || q.work > 0 && q.seen >= q.after && *q.steps >= q.work
}

// end ends the search, looking once whether inner had another hit.
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
		s.q.more = true
		ctx.DocumentMatchPool.Put(d)
	}
	return nil, nil
}

// count counts d, a hit passed on.
func (s *boundedSearcher) count(d *bsearch.DocumentMatch, err error) (*bsearch.DocumentMatch, error) {
	if d == nil || err != nil {
		return d, err
	}
	s.q.seen++
	if len(d.IndexInternalID) == 8 {
		s.q.last = binary.BigEndian.Uint64(d.IndexInternalID)
	}
	return d, nil
}

// firstHits answers sr, a blank query's filters (filterQuery) ordered by
// score alone, without scoring and collecting every hit: every hit
// scores the same, so the page is the hits From to From+Size in index
// order, and the search stops after them. The total is then counted
// apart, unscored (bleve intersects the filters' postings as bitmaps), so
// it stays exact.
func (ix *Index) firstHits(sr *bleve.SearchRequest) (*bleve.SearchResult, error) {
	start := time.Now()
	bq := &boundedQuery{inner: sr.Query, limit: sr.From + sr.Size}
	rs := *sr
	rs.Query = bq
	res, err := searchGuarded(ix.idx, &rs)
	if err != nil {
		return nil, err
	}
	if bq.more {
		count := bleve.NewSearchRequestOptions(sr.Query, 0, 0, false)
		count.Score = "none"
		cres, err := searchGuarded(ix.idx, count)
		if err != nil {
			return nil, err
		}
		res.Total = cres.Total
	}
	res.Took = time.Since(start)
	return res, nil
}

// rankWork is the work, in steps of the query's leaf searchers
// (countSteps: about one a posting visited), after which a query ordered
// by score that has already passed on rankAfter hits stops too, as if it
// had reached rankOver: a sparse conjunction or a filtered query steps
// over several postings a hit (at 1,000,000 records "join" with
// confidence:>0.9, 70,099 hits, stops after 20,846 of them; "null"
// filtered on category=warning, 51,362 hits, after 32,049). A term alone
// takes about a step a hit, so it stops at about rankOver hits either
// way. At 100,000 records the benchmark queries take at most 42,196
// steps ("join"), and no benchmark query nor bank screen request is
// bounded.
// Index.rankWork, when set, replaces it (tests).
const rankWork = 100_000

// rankAfter is how many hits a query passes on at least before rankWork
// may stop it: a query with fewer is always ranked in full.
const rankAfter = 20_000

// workLimits is ix's rankWork and rankAfter.
func (ix *Index) workLimits() (work, after uint64) {
	if ix.rankWork != 0 {
		return ix.rankWork, ix.rankAfter
	}
	return rankWork, rankAfter
}

// countSteps wraps every leaf below q's boolean, conjunction and
// disjunction queries (q itself when it is none) so that each step its
// searcher takes (Next, Advance) adds one to *steps, and returns the
// result; it changes q in place. The hits and scores stay the same.
func countSteps(q query.Query, steps *uint64) query.Query {
	return rewriteLeaves(q, func(leaf query.Query) query.Query {
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
	if p, ok := q.inner.(*allPhraseQuery); ok {
		if terms, err := p.terms(m); err == nil {
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
