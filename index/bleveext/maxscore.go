package bleveext

import (
	"context"
	"math"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/scorer"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// TopTermsQuery is an any-word query — documents holding at least one of
// Terms in Field, each term boosted by the matching Boosts entry — kept to
// those Filter matches and Not does not (either may be nil), that matches
// only the documents that can rank among the best K by score: every one
// scoring at least the K-th best score of the whole query. Each keeps the
// score Bleve's own
//
//	Boolean{Must: [Disjunction(min 1){Term(Field, t)^b …}], MustNot: Not, Filter: Filter}
//
// gives it, bit for bit (BM25 over a scorch snapshot: the term's idf and
// the query norm from the same statistics, the leaf scores added in the
// order Bleve's disjunction adds them, times the same coord), so a search
// sorted by score first and then by other keys ranks the same first K as
// Bleve's query does, ties included.
//
// It finds them by max-score (Turtle and Flood): once K documents are in
// hand, a term whose best possible contribution, with those of all the
// rarer-scoring terms below it, cannot lift a document to the K-th best
// score drives no more candidates; its postings are only advanced to the
// documents the other terms propose, and a candidate is dropped as soon
// as what it can still reach is below that score. A six-word task whose
// common words match half the bank then visits the postings of its rare
// words and a few of the common ones' instead of scoring every document.
// A term's best contribution is BM25's saturation bound (idf · k1 times
// its query weight), which needs nothing read ahead, or with Memo its
// exact best score in each segment (remembered per segment: tighter, so
// the common terms stop driving sooner). Each segment's postings are
// walked in turn, the K-th best score carried from one to the next.
//
// Fallback (the same query in Bleve's terms) is searched instead when the
// reader is not a scorch snapshot or the options ask for what this query
// does not give (explanations, term vectors, no scores, a model other than
// BM25). Stats counts the work of the last search. One TopTermsQuery
// serves one search at a time.
type TopTermsQuery struct {
	Field    string
	Terms    []string
	Boosts   []float64
	Filter   query.Query
	Not      query.Query
	K        int
	Fallback query.Query
	// Memo, when set, bounds each term by its best score in each
	// segment instead of BM25's saturation bound (tighter: fewer
	// candidates); one per index, shared by its searches.
	Memo  *SegmentMemo
	Stats TopTermsStats
}

// TopTermsStats is what a TopTermsQuery's search did: Candidates
// documents proposed by the terms still driving, Scored of them scored
// in full, Kept matched (the best K and their ties), FellBack whether it
// searched Fallback instead.
type TopTermsStats struct {
	Candidates, Scored, Kept int
	FellBack                 bool
}

func (q *TopTermsQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	model := ""
	if f, ok := ctx.Value(bsearch.GetScoringModelCallbackKey).(bsearch.GetScoringModelCallbackFn); ok {
		model = f()
	}
	if options.Explain || options.IncludeTermVectors || options.Score == "none" {
		model = ""
	}
	kept, ok, err := q.top(ctx, r, m, model)
	if err != nil {
		return nil, err
	}
	if !ok {
		return q.Fallback.Searcher(ctx, r, m, options)
	}
	return &keptSearcher{hits: kept, count: uint64(len(kept))}, nil
}

// TopHit is a document a TopTermsQuery keeps: its doc number in the
// snapshot and its score.
type TopHit struct {
	Doc   uint64
	Score float64
}

// Top is what q matches in r, without Bleve's collector: the documents
// in doc-number order with their scores (bleve's, as Searcher gives
// them). ok is false where Searcher would search Fallback instead (r not
// a scorch snapshot, m not scoring BM25), and then Top searched nothing.
func (q *TopTermsQuery) Top(ctx context.Context, r index.IndexReader, m mapping.IndexMapping) (hits []TopHit, ok bool, err error) {
	model := ""
	if im, isImpl := m.(*mapping.IndexMappingImpl); isImpl {
		model = im.ScoringModel
	}
	return q.top(ctx, r, m, model)
}

// top runs max-score under the scoring model given (only BM25 is done
// here: ok is false for any other, as for a reader that is not scorch's).
// It reads each segment's postings itself (zap's, through the segment
// API) rather than through scorch's term field reader, which turns every
// posting into a TermFieldDoc with an 8-byte id; the statistics, and so
// the scores, are those the term field reader gives Bleve.
func (q *TopTermsQuery) top(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, model string) ([]TopHit, bool, error) {
	q.Stats = TopTermsStats{}
	snap, isSnapshot := r.(*scorch.IndexSnapshot)
	if !isSnapshot || model != index.BM25Scoring || q.K <= 0 || len(q.Terms) == 0 {
		q.Stats.FellBack = true
		return nil, false, nil
	}
	docTotal, avgLen, err := bm25Stats(ctx, q.Field, r)
	if err != nil {
		return nil, false, err
	}
	if avgLen <= 0 {
		// Bleve scores tf-idf when it has no average length.
		q.Stats.FellBack = true
		return nil, false, nil
	}
	segs := snap.Segments()
	dicts := make([]segment.TermDictionary, len(segs))
	ids := make([]uint64, len(segs))
	for j, s := range segs {
		if dicts[j], err = s.Segment().Dictionary(q.Field); err != nil {
			return nil, false, err
		}
		ids[j] = s.Id()
	}
	if q.Memo != nil {
		q.Memo.prune(ids)
	}
	terms := make(byCount, 0, len(q.Terms))
	for i, text := range q.Terms {
		if err := bsearch.RecordTermSearcher(ctx); err != nil {
			return nil, false, err
		}
		t := &termIter{text: text, boost: q.Boosts[i], lists: make([]segment.PostingsList, len(segs)), counts: make([]uint64, len(segs))}
		for j, s := range segs {
			// As scorch's TermFieldReader: each segment's postings less
			// its deleted documents, and their counts summed.
			pl, err := dicts[j].PostingsList([]byte(text), s.Deleted(), nil)
			if err != nil {
				return nil, false, err
			}
			t.lists[j], t.counts[j] = pl, pl.Count() // zap counts anew each call
			t.count += t.counts[j]
		}
		t.idf = math.Log(1 + (float64(docTotal)-float64(t.count)+0.5)/(float64(t.count)+0.5))
		terms = append(terms, t)
	}
	// Bleve's disjunction orders its searchers this way (sort.Sort on
	// the same comparisons gives the same order) and adds their weights
	// and scores in it.
	sort.Sort(terms)
	sumOfSquaredWeights := 0.0
	for _, t := range terms {
		w := t.boost * t.idf
		sumOfSquaredWeights += w * w
	}
	qnorm := 1.0 / math.Sqrt(sumOfSquaredWeights)
	for i, t := range terms {
		t.order = i
		t.weight = t.boost * t.idf * qnorm
		// tf·k1 / (tf + k1·(1−b+b·len/avg)) < k1; the margin covers the
		// rounding of sums taken in another order than Bleve's.
		t.saturation = t.idf * bsearch.BM25_k1 * t.weight * margin
		t.avgLen = avgLen
	}
	offsets := make([]uint64, len(segs)+1)
	for j, s := range segs {
		offsets[j+1] = offsets[j] + uint64(s.FullSize())
	}
	var filterBits []*roaring.Bitmap
	var filter *membership
	if q.Memo != nil && q.Filter != nil {
		if filterBits, err = q.Memo.filterDocs(ctx, r, m, q.Filter, segs, ids, offsets); err != nil {
			return nil, false, err
		}
	}
	if filterBits == nil {
		if filter, err = newMembership(ctx, r, m, q.Filter); err != nil {
			return nil, false, err
		}
		defer filter.close()
	}
	not, err := newMembership(ctx, r, m, q.Not)
	if err != nil {
		return nil, false, err
	}
	defer not.close()

	ms := &maxScore{terms: terms, k: q.K, filter: filter, filterBits: filterBits, not: not, stats: &q.Stats, theta: math.Inf(-1)}
	for j, s := range segs {
		for _, t := range terms {
			t.bound = t.saturation
			if q.Memo != nil {
				if p := q.Memo.pairs(ids[j], s.Segment(), dicts[j], q.Field, t.text, t.counts[j]); p != nil {
					t.bound = min(t.saturation, t.best(p)*margin)
				}
			}
		}
		if err := ms.segment(ctx, j, offsets[j]); err != nil {
			return nil, false, err
		}
	}
	kept := ms.result()
	q.Stats.Kept = len(kept)
	return kept, true, nil
}

// bm25Stats are the document count and average field length Bleve's term
// searcher scores BM25 with (bm25ScoreMetrics in bleve's searcher).
func bm25Stats(ctx context.Context, field string, r index.IndexReader) (uint64, float64, error) {
	var count uint64
	var cardinality int
	var err error
	if st, ok := ctx.Value(bsearch.BM25StatsKey).(*bsearch.BM25Stats); ok {
		count = uint64(st.DocCount)
		cardinality = st.FieldCardinality[field]
	} else {
		if count, err = r.DocCount(); err != nil {
			return 0, 0, err
		}
		if br, ok := r.(index.BM25Reader); ok {
			if cardinality, err = br.FieldCardinality(field); err != nil {
				return 0, 0, err
			}
		}
	}
	if count == 0 && cardinality == 0 {
		return 0, 0, nil
	}
	return count, math.Ceil(float64(cardinality) / float64(count)), nil
}

// termIter is one term's postings, segment by segment, positioned at
// doc in the segment being searched (done when past its last), with what
// scoring it needs.
type termIter struct {
	text               string
	lists              []segment.PostingsList // per segment, less its deleted documents
	counts             []uint64               // their lengths
	count              uint64                 // postings in all segments: the term's document frequency
	boost, idf, weight float64
	saturation, avgLen float64
	bound              float64 // the best it can add in the segment being searched
	order              int     // in Bleve's order of the disjunction

	it      segment.PostingsIterator
	doc     uint64 // in the segment
	freq    uint64
	norm    float64
	done    bool
	started bool
}

type byCount []*termIter

func (s byCount) Len() int           { return len(s) }
func (s byCount) Less(i, j int) bool { return s[i].count < s[j].count }
func (s byCount) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

// start puts t at the beginning of its postings in segment j.
func (t *termIter) start(j int) {
	t.started, t.done = false, false
	pl := t.lists[j]
	if pl == nil || t.counts[j] == 0 {
		t.done = true
		return
	}
	t.it = pl.Iterator(true, true, false, t.it)
}

func (t *termIter) set(p segment.Posting, err error) error {
	if err != nil {
		return err
	}
	if p == nil {
		t.done = true
		return nil
	}
	t.doc, t.freq, t.norm = p.Number(), p.Frequency(), p.Norm()
	return nil
}

func (t *termIter) next() error {
	t.started = true
	if t.done {
		return nil
	}
	return t.set(t.it.Next())
}

// advance moves t to the first document at or after doc (never back).
func (t *termIter) advance(doc uint64) error {
	if !t.started {
		if err := t.next(); err != nil {
			return err
		}
	}
	if t.done || t.doc >= doc {
		return nil
	}
	return t.set(t.it.Advance(doc))
}

// score is Bleve's TermQueryScorer.Score of the posting t is at (BM25).
func (t *termIter) score() float64 { return t.leaf(t.freq, t.norm) }

// best is the most t scores on any of pairs (a segment's SegmentMemo).
func (t *termIter) best(pairs []freqNorm) float64 {
	b := 0.0
	for _, p := range pairs {
		b = max(b, t.leaf(p.freq, p.norm))
	}
	return b
}

// leaf is Bleve's TermQueryScorer.Score (BM25) of a posting of frequency
// freq and norm norm, written as it is written there so that it rounds
// the same.
func (t *termIter) leaf(freq uint64, norm float64) float64 {
	var tf float64
	if freq < scorer.MaxSqrtCache {
		tf = scorer.SqrtCache[int(freq)]
	} else {
		tf = math.Sqrt(float64(freq))
	}
	fieldLength := 1 / (norm * norm)
	score := t.idf * (tf * bsearch.BM25_k1) /
		(tf + bsearch.BM25_k1*(1-bsearch.BM25_b+(bsearch.BM25_b*fieldLength/t.avgLen)))
	if t.weight != 1.0 {
		score = score * t.weight
	}
	return score
}
