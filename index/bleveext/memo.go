package bleveext

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// SegmentMemo remembers, per segment of one index, what max-score would
// otherwise read again for every search — what never changes while the
// segment lives (a segment is never rewritten: its deletions only take
// documents away):
//
//   - per term of a field, the pairs (frequency, norm) no other posting
//     of the term beats in both. BM25's leaf score grows with the
//     frequency and with the norm (a shorter field), so the best of those
//     pairs, scored with a query's idf, weight and average length, is the
//     term's exact best contribution in the segment — what max-score
//     bounds a term by, where BM25's saturation bound (idf·k1 times the
//     weight) is 25–40% above it on memreview's banks;
//   - per filter (a query's JSON), the segment's documents it matches: a
//     document's fields never change within a segment, and the
//     documents deleted since are never candidates (the postings leave
//     them out).
//
// TopTermsQuery drops the segments its snapshot no longer has. One
// SegmentMemo serves one index (segment ids are the index's own); its
// methods are safe for concurrent use. The zero value is ready.
type SegmentMemo struct {
	mu   sync.Mutex
	segs map[uint64]*segMemo // by segment id
	live []uint64            // the segment ids of the last snapshot seen
}

type segMemo struct {
	seg     segment.Segment // the segment the id named when this was read
	terms   map[fieldTerm][]freqNorm
	filters map[string]*roaring.Bitmap // by the filter's JSON: the documents it matches
}

type fieldTerm struct{ field, term string }

// freqNorm is a posting's frequency and norm.
type freqNorm struct {
	freq uint64
	norm float64
}

// maximaMinPostings: a term with fewer postings in a segment is bounded by
// saturation there (it drives candidates anyway, and reading its pairs
// costs what walking it does).
const maximaMinPostings = 256

// maxTermsPerSegment and maxFiltersPerSegment bound what is remembered
// per segment; past either the segment's memo is forgotten and read again
// as needed.
const (
	maxTermsPerSegment   = 1 << 14
	maxFiltersPerSegment = 64
)

// entry is the memo of segment seg (id id), made anew when the id named
// another segment or the memo is full; mu is held.
func (tm *SegmentMemo) entry(id uint64, seg segment.Segment) *segMemo {
	if tm.segs == nil {
		tm.segs = map[uint64]*segMemo{}
	}
	sm := tm.segs[id]
	if sm == nil || sm.seg != seg || len(sm.terms) >= maxTermsPerSegment || len(sm.filters) >= maxFiltersPerSegment {
		sm = &segMemo{seg: seg, terms: map[fieldTerm][]freqNorm{}, filters: map[string]*roaring.Bitmap{}}
		tm.segs[id] = sm
	}
	return sm
}

// filter is the documents of seg (segment id id) the filter of JSON key
// matches, nil when not known; seen is whether it was asked for before
// (the first time it is only noted).
func (tm *SegmentMemo) filter(id uint64, seg segment.Segment, key string) (docs *roaring.Bitmap, seen bool) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	sm := tm.entry(id, seg)
	docs, seen = sm.filters[key]
	if !seen {
		sm.filters[key] = nil
	}
	return docs, seen
}

// setFilter remembers docs as what the filter of JSON key matches in seg.
func (tm *SegmentMemo) setFilter(id uint64, seg segment.Segment, key string, docs *roaring.Bitmap) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.entry(id, seg).filters[key] = docs
}

// prune forgets the segments not among ids (the segments of the snapshot
// being searched), when that set moved since the last search.
func (tm *SegmentMemo) prune(ids []uint64) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if slices.Equal(ids, tm.live) {
		return
	}
	tm.live = slices.Clone(ids)
	for id := range tm.segs {
		if !slices.Contains(ids, id) {
			delete(tm.segs, id)
		}
	}
}

// pairs is what term in field scores at most in seg (segment id id),
// reading the term's postings once when not yet known; nil when the term
// has fewer than maximaMinPostings postings there or cannot be read, and
// the first time it is asked for: a process that retrieves once (the
// CLI) never pays for reading what only later retrievals gain from.
func (tm *SegmentMemo) pairs(id uint64, seg segment.Segment, dict segment.TermDictionary, field, term string, count uint64) []freqNorm {
	if count < maximaMinPostings {
		return nil
	}
	key := fieldTerm{field, term}
	tm.mu.Lock()
	sm := tm.entry(id, seg)
	p, seen := sm.terms[key]
	if !seen {
		sm.terms[key] = nil // read the next time
	}
	tm.mu.Unlock()
	if p != nil || !seen {
		return p
	}

	p = readPairs(dict, term)
	if p == nil {
		return nil
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.entry(id, seg).terms[key] = p
	return p
}

// readPairs walks every posting of term in dict (deleted documents too)
// and returns the frequency–norm pairs no other posting beats in both,
// by frequency descending; nil on a read error.
func readPairs(dict segment.TermDictionary, term string) []freqNorm {
	pl, err := dict.PostingsList([]byte(term), nil, nil)
	if err != nil {
		return nil
	}
	best := map[uint64]float64{} // frequency → its largest norm
	it := pl.Iterator(true, true, false, nil)
	for {
		p, err := it.Next()
		if err != nil {
			return nil
		}
		if p == nil {
			break
		}
		if n, ok := best[p.Frequency()]; !ok || p.Norm() > n {
			best[p.Frequency()] = p.Norm()
		}
	}
	out := make([]freqNorm, 0, len(best))
	for f, n := range best {
		out = append(out, freqNorm{f, n})
	}
	slices.SortFunc(out, func(a, b freqNorm) int {
		switch {
		case a.freq > b.freq:
			return -1
		case a.freq < b.freq:
			return 1
		}
		return 0
	})
	front := out[:0]
	for _, fn := range out {
		if len(front) == 0 || fn.norm > front[len(front)-1].norm {
			front = append(front, fn)
		}
	}
	return slices.Clip(front)
}

// filterDocs is, per segment of segs (ids their ids, offsets their first
// doc numbers in r, and r's doc space last), the segment's documents
// (numbered within it) that f matches, from the memo or read for the
// segments it does not know: f searched unscored from the first of them
// on, as a boolean query's filter is. nil when f cannot be told apart by
// its JSON, or a segment is asked for f the first time (only noted, so
// that one retrieval alone does not pay for reading the whole segment).
func (tm *SegmentMemo) filterDocs(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, f query.Query,
	segs []*scorch.SegmentSnapshot, ids, offsets []uint64) ([]*roaring.Bitmap, error) {
	k, err := json.Marshal(f)
	if err != nil {
		return nil, nil
	}
	key := string(k)
	out := make([]*roaring.Bitmap, len(segs))
	var missing []int
	first := false
	for j, s := range segs {
		var seen bool
		if out[j], seen = tm.filter(ids[j], s.Segment(), key); out[j] == nil {
			missing = append(missing, j)
		}
		first = first || !seen
	}
	if first {
		return nil, nil // a segment new to f: read it the next time
	}
	if len(missing) == 0 {
		return out, nil
	}
	s, err := f.Searcher(ctx, r, m, bsearch.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0), IndexReader: r}
	var cur *bsearch.DocumentMatch
	n, started := 0, false
	for _, j := range missing {
		start, end := offsets[j], offsets[j+1]
		if !started || (cur != nil && cur.IndexInternalID.Value() < start) {
			started = true
			if cur != nil {
				sctx.DocumentMatchPool.Put(cur)
			}
			if cur, err = s.Advance(sctx, docID(start)); err != nil {
				return nil, err
			}
		}
		docs := roaring.New()
		for cur != nil && cur.IndexInternalID.Value() < end {
			docs.Add(uint32(cur.IndexInternalID.Value() - start))
			if n++; n%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			sctx.DocumentMatchPool.Put(cur)
			if cur, err = s.Next(sctx); err != nil {
				return nil, err
			}
		}
		docs.RunOptimize()
		tm.setFilter(ids[j], segs[j].Segment(), key, docs)
		out[j] = docs
	}
	return out, nil
}
