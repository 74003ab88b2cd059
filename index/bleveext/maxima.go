package bleveext

import (
	"slices"
	"sync"

	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// TermMaxima remembers, per segment of one index and term of a field,
// what a term's postings in that segment can score at most: the pairs
// (frequency, norm) no other posting of the term beats in both. BM25's
// leaf score grows with the frequency and with the norm (a shorter
// field), so the best of those pairs, scored with a query's idf, weight
// and average length, is the term's exact best contribution in the
// segment — what max-score bounds a term by, where BM25's saturation
// bound (idf·k1 times the weight) is 25–40% above it on memreview's
// banks. A segment never changes once written (its deletions only take
// documents away, and the pairs are over all its documents), so the
// pairs hold for as long as the segment lives; TopTermsQuery drops the
// segments its snapshot no longer has.
//
// One TermMaxima serves one index (segment ids are the index's own);
// its methods are safe for concurrent use. The zero value is ready.
type TermMaxima struct {
	mu   sync.Mutex
	segs map[uint64]*segMaxima // by segment id
	live []uint64              // the segment ids of the last snapshot seen
}

type segMaxima struct {
	seg   segment.Segment // the segment the id named when the pairs were read
	terms map[fieldTerm][]freqNorm
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

// maxTermsPerSegment bounds the terms remembered per segment; past it the
// segment's pairs are forgotten and read again as needed.
const maxTermsPerSegment = 1 << 14

// prune forgets the segments not among ids (the segments of the snapshot
// being searched), when that set moved since the last search.
func (tm *TermMaxima) prune(ids []uint64) {
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
// has fewer than maximaMinPostings postings there or cannot be read.
func (tm *TermMaxima) pairs(id uint64, seg segment.Segment, dict segment.TermDictionary, field, term string, count uint64) []freqNorm {
	if count < maximaMinPostings {
		return nil
	}
	key := fieldTerm{field, term}
	tm.mu.Lock()
	sm := tm.segs[id]
	if sm != nil && sm.seg == seg {
		if p, ok := sm.terms[key]; ok {
			tm.mu.Unlock()
			return p
		}
	}
	tm.mu.Unlock()

	p := readPairs(dict, term)
	if p == nil {
		return nil
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if tm.segs == nil {
		tm.segs = map[uint64]*segMaxima{}
	}
	sm = tm.segs[id]
	if sm == nil || sm.seg != seg || len(sm.terms) >= maxTermsPerSegment {
		sm = &segMaxima{seg: seg, terms: map[fieldTerm][]freqNorm{}}
		tm.segs[id] = sm
	}
	sm.terms[key] = p
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
