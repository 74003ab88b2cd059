package bleveext

import (
	"container/heap"
	"context"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// maxScore is one TopTermsQuery search: its terms in Bleve's order, the
// K it keeps, the filter and exclusion its documents must pass, and what
// it has kept so far over the segments searched (the K-th best score
// theta carries from one segment to the next).
type maxScore struct {
	terms       byCount
	k           int
	filter, not *membership
	filterBits  []*roaring.Bitmap // per segment, what the filter matches (else filter is asked)
	stats       *TopTermsStats

	best   scoreHeap
	theta  float64
	kept   []TopHit
	scores []float64
	match  []bool
}

// margin widens a bound against the rounding of a sum taken in another
// order than Bleve's, so that a document tying the K-th score is never
// dropped.
const margin = 1 + 1e-9

// segment searches segment j, whose doc numbers start at offset in the
// snapshot, with each term's bound for that segment set: every document
// that passes the filter and can score at least theta is scored and kept.
func (ms *maxScore) segment(ctx context.Context, j int, offset uint64) (err error) {
	n := len(ms.terms)
	nf := float64(n)
	if ms.scores == nil {
		ms.scores, ms.match = make([]float64, n), make([]bool, n)
	}
	byBound := slices.Clone(ms.terms)
	slices.SortStableFunc(byBound, func(a, b *termIter) int {
		switch {
		case a.bound < b.bound:
			return -1
		case a.bound > b.bound:
			return 1
		}
		return 0
	})
	// prefix[i] is the sum of the bounds of the i lowest-bounded terms.
	prefix := make([]float64, n+1)
	for i, t := range byBound {
		prefix[i+1] = prefix[i] + t.bound
	}
	for _, t := range ms.terms {
		t.start(j)
	}
	p := 0 // byBound[:p] drive no candidates: they cannot lift one to theta alone
	raise := func() {
		for p < n && prefix[p+1]*float64(p+1)/nf*margin < ms.theta {
			p++
		}
	}
	raise()
	for _, t := range byBound[p:] {
		if err := t.next(); err != nil {
			return err
		}
	}
	scores, matched := ms.scores, ms.match
	for p < n {
		d, found := uint64(math.MaxUint64), false
		for _, t := range byBound[p:] {
			if !t.started {
				if err := t.next(); err != nil {
					return err
				}
			}
			if !t.done && t.doc < d {
				d, found = t.doc, true
			}
		}
		if !found {
			break
		}
		ms.stats.Candidates++
		if ms.stats.Candidates%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		clear(matched)
		sum, m := 0.0, 0
		for _, t := range byBound[p:] {
			if !t.done && t.doc == d {
				s := t.score()
				scores[t.order], matched[t.order] = s, true
				sum += s
				m++
			}
		}
		reach := (sum + prefix[p]) * float64(m+p) / nf * margin
		for i := p - 1; i >= 0 && reach >= ms.theta; i-- {
			t := byBound[i]
			if err := t.advance(d); err != nil {
				return err
			}
			if !t.done && t.doc == d {
				s := t.score()
				scores[t.order], matched[t.order] = s, true
				sum += s
				m++
			}
			reach = (sum + prefix[i]) * float64(m+i) / nf * margin
		}
		if reach >= ms.theta {
			ms.stats.Scored++
			// Bleve's DisjunctionQueryScorer: the sum in its order, times
			// the coord.
			var total float64
			for o, ok := range matched {
				if ok {
					total += scores[o]
				}
			}
			coord := float64(m) / float64(n)
			score := total * coord
			if score >= ms.theta {
				g := offset + d
				var in bool
				if ms.filterBits != nil {
					in = ms.filterBits[j].Contains(uint32(d))
				} else if in, err = ms.filter.has(g, true); err != nil {
					return err
				}
				out, err := ms.not.has(g, false)
				if err != nil {
					return err
				}
				if in && !out {
					ms.kept = append(ms.kept, TopHit{g, score})
					if t := ms.best.offer(ms.k, score); t > ms.theta {
						ms.theta = t
						raise()
					}
				}
			}
		}
		for _, t := range ms.terms {
			if t.started && !t.done && t.doc == d {
				if err := t.next(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// result is, in doc-number order, every document kept that scores at
// least the K-th best score (all of them when fewer than K do).
func (ms *maxScore) result() []TopHit {
	out := ms.kept[:0]
	for _, h := range ms.kept {
		if h.Score >= ms.theta {
			out = append(out, h)
		}
	}
	return out
}

// scoreHeap is a min-heap of the best K scores kept so far.
type scoreHeap []float64

func (h scoreHeap) Len() int           { return len(h) }
func (h scoreHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h scoreHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// offer adds s to the best k and returns the k-th best score, -Inf while
// fewer than k are in.
func (h *scoreHeap) offer(k int, s float64) float64 {
	if h.Len() < k {
		heap.Push(h, s)
	} else if s > (*h)[0] {
		(*h)[0] = s
		heap.Fix(h, 0)
	}
	if h.Len() < k {
		return math.Inf(-1)
	}
	return (*h)[0]
}

// membership answers whether documents, asked in increasing doc-number
// order, match a query (searched unscored, as Bleve searches a boolean
// query's filter); a nil query answers the default has is given.
type membership struct {
	s       bsearch.Searcher
	sctx    *bsearch.SearchContext
	cur     *bsearch.DocumentMatch
	started bool
	buf     index.IndexInternalID
}

func newMembership(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, q query.Query) (*membership, error) {
	if q == nil {
		return &membership{}, nil
	}
	s, err := q.Searcher(ctx, r, m, bsearch.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, err
	}
	return &membership{
		s:    s,
		sctx: &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0), IndexReader: r},
		buf:  make(index.IndexInternalID, 8),
	}, nil
}

func (ms *membership) has(doc uint64, def bool) (bool, error) {
	if ms.s == nil {
		return def, nil
	}
	var err error
	if !ms.started {
		ms.started = true
		if ms.cur, err = ms.s.Next(ms.sctx); err != nil {
			return false, err
		}
	}
	if ms.cur == nil {
		return false, nil
	}
	if ms.cur.IndexInternalID.Value() < doc {
		ms.sctx.DocumentMatchPool.Put(ms.cur)
		ms.buf.SetValue(doc)
		if ms.cur, err = ms.s.Advance(ms.sctx, ms.buf); err != nil || ms.cur == nil {
			return false, err
		}
	}
	return ms.cur.IndexInternalID.Value() == doc, nil
}

func (ms *membership) close() {
	if ms.s != nil {
		_ = ms.s.Close()
	}
}

// keptSearcher hands the collector the documents max-score kept, in
// doc-number order.
type keptSearcher struct {
	hits  []TopHit
	at    int
	count uint64
}

func (s *keptSearcher) Next(ctx *bsearch.SearchContext) (*bsearch.DocumentMatch, error) {
	if s.at >= len(s.hits) {
		return nil, nil
	}
	h := s.hits[s.at]
	s.at++
	d := ctx.DocumentMatchPool.Get()
	d.IndexInternalID = index.NewIndexInternalID(d.IndexInternalID, h.Doc)
	d.Score = h.Score
	return d, nil
}

func (s *keptSearcher) Advance(ctx *bsearch.SearchContext, id index.IndexInternalID) (*bsearch.DocumentMatch, error) {
	target := id.Value()
	for s.at < len(s.hits) && s.hits[s.at].Doc < target {
		s.at++
	}
	return s.Next(ctx)
}

func (s *keptSearcher) Close() error               { return nil }
func (s *keptSearcher) Weight() float64            { return 0 }
func (s *keptSearcher) SetQueryNorm(float64)       {}
func (s *keptSearcher) Count() uint64              { return s.count }
func (s *keptSearcher) Min() int                   { return 0 }
func (s *keptSearcher) Size() int                  { return 64 + 16*len(s.hits) }
func (s *keptSearcher) DocumentMatchPoolSize() int { return 1 }
