package bleveext

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// SharedTermsQuery finds the documents that share the most weight of
// Terms (in Field) with a text: each term weighs ln(1 + N/df), N the
// snapshot's live documents and df those holding the term (the inverse
// document frequency hygiene's similarity weighs a term by, taken over
// the index), and a document scores the sum of the weights of the terms
// it holds. Only the documents holding every term of Filter (keyword
// fields, one term each) are searched.
//
// It works on the postings as bitmaps, not posting by posting: a
// segment's postings of a term, ANDed with the filter's, are the
// candidates; no frequency or norm is decoded. The candidates are the
// documents holding one of the rarest terms, taken rarest first until
// what the rest weigh is under Threshold of the whole (prefix filtering:
// a document whose shared weight reaches Threshold of the text's holds
// one of them); every term then adds its weight to the candidates that
// hold it. A near duplicate of a templated record shares its rarest
// terms, where BM25's best K over them (TopTermsQuery) walks their long
// postings one by one before the K-th score bounds the walk.
//
// With Bound, the prefix terms are taken one at a time, and each new
// candidate weighed as it comes; it stops taking them once what the
// terms not yet taken weigh together (the most a document holding none
// of those taken can share) is under the K-th best weight found: no
// document left out can be among the best K, so the hits are the same,
// found over fewer candidates (a templated record's prefix runs into
// terms thousands of records of its env and category hold, where its
// best K, its near copies, share its rarest).
//
// Top is the best K by score, ties to the smaller doc number. One
// SharedTermsQuery serves one search at a time; Stats counts its work.
type SharedTermsQuery struct {
	Field     string
	Terms     []string
	Filter    []FieldTerm
	Threshold float64
	K         int
	Bound     bool
	// Cache, when set, keeps the filter's bitmaps and the terms'
	// postings for the searches after this one on the same snapshot.
	Cache *SharedTermsCache
	Stats SharedTermsStats
}

// FieldTerm is a term of a field.
type FieldTerm struct{ Field, Term string }

// SharedTermsStats is what a SharedTermsQuery's search did: Terms the
// terms some live document holds, Prefix the rarest of them that a
// document must hold one of to reach the threshold, Taken those the
// candidates came from (Prefix, or fewer with Bound), Candidates the
// documents weighed: those that passed the filter and hold a term taken.
type SharedTermsStats struct {
	Terms, Prefix, Taken, Candidates int
}

// SharedHit is a document a SharedTermsQuery keeps: its doc number in
// the snapshot and the weight of the terms it shares.
type SharedHit struct {
	Doc    uint64
	Weight float64
}

// sharedTerm is one term's postings in each segment, deleted documents
// included (the filter leaves them out), and its weight.
type sharedTerm struct {
	text   string
	lists  []*roaring.Bitmap
	df     uint64
	weight float64
}

// Top is the best q.K documents of r, best first. ok is false when r is
// not a scorch snapshot (nothing was searched).
func (q *SharedTermsQuery) Top(ctx context.Context, r index.IndexReader) (hits []SharedHit, ok bool, err error) {
	q.Stats = SharedTermsStats{}
	snap, isSnapshot := r.(*scorch.IndexSnapshot)
	if !isSnapshot {
		return nil, false, nil
	}
	if q.K <= 0 || len(q.Terms) == 0 {
		return nil, true, nil
	}
	live, err := r.DocCount()
	if err != nil {
		return nil, true, err
	}
	segs := snap.Segments()
	c := q.Cache.on(snap)
	filters, err := c.filter(segs, q.Filter)
	if err != nil {
		return nil, true, err
	}
	terms, err := q.postings(segs, c)
	if err != nil {
		return nil, true, err
	}
	q.Stats.Terms = len(terms)
	total := 0.0
	for _, t := range terms {
		t.weight = math.Log(1 + float64(live)/float64(t.df))
		total += t.weight
	}
	prefix, rest := 0, total
	for prefix < len(terms) && rest >= q.Threshold*total {
		rest -= terms[prefix].weight
		prefix++
	}
	q.Stats.Prefix = prefix
	if q.Bound {
		out, err := q.bounded(ctx, segs, terms, prefix, filters, total)
		return out, true, err
	}
	q.Stats.Taken = prefix
	var out []SharedHit
	var offset uint64
	for j, s := range segs {
		if err := ctx.Err(); err != nil {
			return nil, true, err
		}
		out = q.segment(out, terms, prefix, j, filters[j], offset)
		offset += uint64(s.FullSize())
	}
	slices.SortFunc(out, compareHits)
	return out[:min(q.K, len(out))], true, nil
}

// segment adds to out segment j's best q.K candidates (doc numbers from
// offset), filter its documents that pass the filter.
func (q *SharedTermsQuery) segment(out []SharedHit, terms []*sharedTerm, prefix, j int, filter *roaring.Bitmap, offset uint64) []SharedHit {
	gen := make([]*roaring.Bitmap, prefix) // the prefix terms' postings that pass the filter
	var some []*roaring.Bitmap
	for k, t := range terms[:prefix] {
		if l := t.lists[j]; l != nil {
			gen[k] = roaring.And(l, filter)
			some = append(some, gen[k])
		}
	}
	if len(some) == 0 {
		return out
	}
	cand := roaring.FastOr(some...)
	docs := cand.ToArray()
	q.Stats.Candidates += len(docs)
	if len(docs) == 0 {
		return out
	}
	weights := make([]float64, len(docs))
	for k, t := range terms {
		if t.lists[j] == nil {
			continue
		}
		var held *roaring.Bitmap
		if k < prefix {
			held = gen[k]
		} else {
			held = roaring.And(t.lists[j], cand)
		}
		at := 0
		it := held.Iterator()
		for it.HasNext() {
			d := it.Next()
			at += sort.Search(len(docs)-at, func(x int) bool { return docs[at+x] >= d })
			weights[at] += t.weight
		}
	}
	// The segment's best K (and its ties to the K-th, dropped later by
	// the sort): a heap is not worth it for the few candidates kept.
	idx := make([]int, len(docs))
	for k := range idx {
		idx[k] = k
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(weights[b], weights[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for _, k := range idx[:min(q.K, len(idx))] {
		out = append(out, SharedHit{offset + uint64(docs[k]), weights[k]})
	}
	return out
}

// bounded is Top's hits with Bound: the prefix terms taken rarest
// first, the documents of each not seen before (they hold no term taken
// before it) weighed by it and the terms after it, the best K kept,
// until what the terms not yet taken weigh is under the K-th best. A
// document is weighed term by term, the heaviest first (each term's
// postings walked forward with the candidates, in doc order), and left as
// soon as what it holds and what the terms after could add is under the
// K-th best: it cannot be among the best K either (until there is a
// K-th best, the new candidates are weighed all at once, as Top's
// segments are).
func (q *SharedTermsQuery) bounded(ctx context.Context, segs []*scorch.SegmentSnapshot, terms []*sharedTerm, prefix int, filters []*roaring.Bitmap, total float64) ([]SharedHit, error) {
	offsets := make([]uint64, len(segs))
	for j := 1; j < len(segs); j++ {
		offsets[j] = offsets[j-1] + uint64(segs[j-1].FullSize())
	}
	rest := make([]float64, len(terms)+1) // rest[k]: what terms[k:] weigh
	for k := len(terms) - 1; k >= 0; k-- {
		rest[k] = rest[k+1] + terms[k].weight
	}
	seen := make([]*roaring.Bitmap, len(segs)) // per segment, the candidates weighed
	best := &sharedTop{k: q.K}
	// under reports whether a document holding w and at most rest[k]
	// more is under the K-th best; a little slack for the sums'
	// rounding, so that it is never one that reaches or ties it.
	under := func(w float64, k int) bool {
		return len(best.hits) == q.K && (w+rest[k])*(1+1e-9) < best.hits[0].Weight
	}
	cursors := make([]roaring.IntIterator, len(terms)) // terms[k]'s postings in the segment walked, once started
	started := make([]bool, len(terms))
	p := 0
	for ; p < prefix && !under(0, p); p++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t := terms[p]
		for j := range segs {
			if t.lists[j] == nil {
				continue
			}
			fresh := roaring.And(t.lists[j], filters[j])
			if seen[j] == nil {
				seen[j] = fresh.Clone()
			} else {
				fresh.AndNot(seen[j])
				seen[j].Or(fresh)
			}
			q.Stats.Candidates += int(fresh.GetCardinality())
			if len(best.hits) < q.K {
				// No K-th best yet to leave a candidate by: weighed all
				// at once, a term's postings ANDed with them.
				docs := fresh.ToArray()
				weights := make([]float64, len(docs))
				for k := p; k < len(terms); k++ {
					held := fresh
					if l := terms[k].lists[j]; l == nil {
						continue
					} else if k > p {
						held = roaring.And(l, fresh)
					}
					at := 0
					it := held.Iterator()
					for it.HasNext() {
						d := it.Next()
						at += sort.Search(len(docs)-at, func(x int) bool { return docs[at+x] >= d })
						weights[at] += terms[k].weight
					}
				}
				for x, d := range docs {
					best.add(SharedHit{offsets[j] + uint64(d), weights[x]})
				}
				continue
			}
			// The new candidates come in order: each term's postings are
			// walked forward with them (a cursor that gallops), not
			// searched from the start for each.
			// The cursors are values, reused from segment to segment
			// (no iterator allocated per term and segment) and called
			// directly, not through the IntPeekable interface.
			clear(started)
			it := fresh.Iterator()
		docs:
			for it.HasNext() {
				d := it.Next()
				w := t.weight
				for k := p + 1; k < len(terms); k++ {
					if under(w, k) {
						continue docs
					}
					c := &cursors[k]
					if !started[k] {
						l := terms[k].lists[j]
						if l == nil {
							continue
						}
						c.Initialize(l)
						started[k] = true
					}
					c.AdvanceIfNeeded(d)
					if c.HasNext() && c.PeekNext() == d {
						w += terms[k].weight
					}
				}
				best.add(SharedHit{offsets[j] + uint64(d), w})
			}
		}
	}
	q.Stats.Taken = p
	out := best.hits
	slices.SortFunc(out, compareHits)
	return out, nil
}

// compareHits orders hits best first: by weight, ties to the smaller doc.
func compareHits(a, b SharedHit) int {
	if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
		return c
	}
	return cmp.Compare(a.Doc, b.Doc)
}

// sharedTop keeps the best k hits it is given: a heap with the worst
// (compareHits) at hits[0].
type sharedTop struct {
	k    int
	hits []SharedHit
}

// add keeps h if it is among the best k so far.
func (t *sharedTop) add(h SharedHit) {
	worse := func(i, j int) bool { return compareHits(t.hits[i], t.hits[j]) > 0 }
	if len(t.hits) < t.k {
		t.hits = append(t.hits, h)
		for i := len(t.hits) - 1; i > 0 && worse(i, (i-1)/2); i = (i - 1) / 2 {
			t.hits[i], t.hits[(i-1)/2] = t.hits[(i-1)/2], t.hits[i]
		}
		return
	}
	if compareHits(h, t.hits[0]) >= 0 {
		return
	}
	t.hits[0] = h
	for i := 0; ; {
		w, l, r := i, 2*i+1, 2*i+2
		if l < len(t.hits) && worse(l, w) {
			w = l
		}
		if r < len(t.hits) && worse(r, w) {
			w = r
		}
		if w == i {
			return
		}
		t.hits[i], t.hits[w] = t.hits[w], t.hits[i]
		i = w
	}
}

// postings are q's distinct terms that some live document holds, with
// their postings per segment, rarest first (ties by term); each a copy
// of what c keeps, for its weight.
func (q *SharedTermsQuery) postings(segs []*scorch.SegmentSnapshot, c *sharedCache) ([]*sharedTerm, error) {
	var terms []*sharedTerm
	seen := map[string]bool{}
	for _, text := range q.Terms {
		if seen[text] {
			continue
		}
		seen[text] = true
		t, err := c.term(segs, q.Field, text)
		if err != nil {
			return nil, err
		}
		if t.df > 0 {
			cp := *t
			terms = append(terms, &cp)
		}
	}
	slices.SortFunc(terms, func(a, b *sharedTerm) int {
		if c := cmp.Compare(a.df, b.df); c != 0 {
			return c
		}
		return cmp.Compare(a.text, b.text)
	})
	return terms, nil
}

// termPostings is text's postings in field in each segment (nil where no
// live document holds it) and how many live documents hold it.
func termPostings(segs []*scorch.SegmentSnapshot, field, text string) (*sharedTerm, error) {
	t := &sharedTerm{text: text, lists: make([]*roaring.Bitmap, len(segs))}
	for j, s := range segs {
		d, err := s.Segment().Dictionary(field)
		if err != nil {
			return nil, err
		}
		bm, err := postingsBitmap(d, text)
		if err != nil {
			return nil, err
		}
		if bm == nil {
			continue
		}
		n := bm.GetCardinality()
		if del := s.Deleted(); del != nil {
			n -= bm.AndCardinality(del)
		}
		if n > 0 {
			t.lists[j], t.df = bm, t.df+n
		}
	}
	return t, nil
}

// segmentFilter is the live documents of s that hold every term of
// filter (all of them when filter is empty).
func segmentFilter(s *scorch.SegmentSnapshot, filter []FieldTerm) (*roaring.Bitmap, error) {
	var out *roaring.Bitmap
	for _, ft := range filter {
		d, err := s.Segment().Dictionary(ft.Field)
		if err != nil {
			return nil, err
		}
		bm, err := postingsBitmap(d, ft.Term)
		if err != nil {
			return nil, err
		}
		if bm == nil {
			return roaring.New(), nil
		}
		if out == nil {
			out = bm.Clone()
		} else {
			out.And(bm)
		}
	}
	if out == nil {
		out = roaring.New()
		out.AddRange(0, uint64(s.FullSize()))
	}
	if del := s.Deleted(); del != nil {
		out.AndNot(del)
	}
	return out, nil
}

// postingsBitmap is the documents of d's segment (deleted ones included)
// holding term, nil when none; the bitmap may be the segment's own:
// never modify it.
func postingsBitmap(d segment.TermDictionary, term string) (*roaring.Bitmap, error) {
	pl, err := d.PostingsList([]byte(term), nil, nil)
	if err != nil || pl == nil || pl.Count() == 0 {
		return nil, err
	}
	it := pl.Iterator(false, false, false, nil)
	if o, ok := it.(segment.OptimizablePostingsIterator); ok {
		if bm := o.ActualBitmap(); bm != nil {
			return bm, nil
		}
		if doc, ok := o.DocNum1Hit(); ok {
			return roaring.BitmapOf(uint32(doc)), nil
		}
	}
	bm := roaring.New() // another segment format: walk it
	for {
		p, err := it.Next()
		if err != nil {
			return nil, err
		}
		if p == nil {
			break
		}
		bm.Add(uint32(p.Number()))
	}
	return bm, nil
}
