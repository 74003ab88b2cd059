package index

import (
	"cmp"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	bsearch "github.com/blevesearch/bleve/v2/search"

	"github.com/memreview/memreview/review"
)

func isNotFound(err error) bool { return errors.Is(err, review.ErrNotFound) }

// searchBehind runs req on the index and on the tail t, and merges them:
//
//   - the index is searched without the documents of the items t
//     changed (their version there is stale, or the bank deleted them),
//     so an item is counted once, in its newest version;
//   - the tail's items are searched in memory under the same mapping,
//     by the same pipeline, so phrases, fields, ranges, facets and
//     fragments mean what they mean on the index: those the background
//     chunks hold (tailchunks.go) on them, without the versions that
//     changed since; the rest that can match (the prefilter, then req's
//     type and keyword filters), at most tailIndexMax, newest first, on
//     an index of their own;
//   - totals and facet counts are summed; hits are merged in req's sort
//     order, each side asked for From+Size.
//
// Every side scores by BM25, but each over its own documents (a term's
// rarity in the tail is not its rarity in the bank; each chunk is scored
// over itself), so under a score sort the interleaving of the sides'
// hits is not what a caught-up index would give; a field sort merges exactly (ties: the index's hits
// first). The tail's facets are exact and its estimates none: a merged
// result is Estimated when the index's part is.
func (ix *Index) searchBehind(req Request, t *tail) (*Results, error) {
	start := time.Now()
	size := req.Size
	if size <= 0 {
		size = defaultSize
	}
	from := max(req.From, 0)
	var mres *Results
	err := ix.withoutTail(t, func(exclude []string) error {
		main := req
		main.From, main.Size, main.exclude = 0, from+size, exclude
		// Facets cached for the whole index do not hold without the
		// excluded documents.
		var err error
		mres, err = ix.search(main, len(exclude) == 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	snap, release := ix.chunkSnapshot(t)
	defer release()
	cres := &Results{}
	err = snap.each(t, func(mem *Index, stale []string) error {
		side := req
		side.From, side.Size, side.exclude = 0, from+size, stale
		r, err := mem.search(side, false)
		if err != nil {
			return err
		}
		cres.Total += r.Total
		cres.Facets = sumFacets(cres.Facets, r.Facets)
		cres.Estimated = cres.Estimated || r.Estimated
		cres.Hits = mergeHits(req.Sort, 0, from+size, cres.Hits, r.Hits)
		return nil
	})
	if err != nil {
		return nil, err
	}
	keep, also := ix.requestFilter(req)
	cands, cut := t.candidates(req.Type, keep, also, snap.covered)
	tres := &Results{}
	if len(cands) > 0 {
		mem, release, err := ix.mems.acquire(t, cands, func() (*Index, error) { return ix.memIndex(cands, t.top) })
		if err != nil {
			return nil, err
		}
		side := req
		side.From, side.Size = 0, from+size
		tres, err = mem.search(side, false)
		release()
		if err != nil {
			return nil, err
		}
	}
	out := &Results{
		Total:      mres.Total + cres.Total + tres.Total,
		Facets:     sumFacets(sumFacets(mres.Facets, cres.Facets), tres.Facets),
		Behind:     mres.Behind,
		Estimated:  mres.Estimated || cres.Estimated || tres.Estimated,
		Direct:     len(t.items) - cut,
		Unsearched: t.unread() + cut,
	}
	out.Hits = mergeHits(req.Sort, from, size, mres.Hits, cres.Hits, tres.Hits)
	for i := range out.Hits {
		out.Hits[i].sortKeys = nil
	}
	out.Took = time.Since(start)
	return out, nil
}

// withoutTail runs search on the index without the documents of t's
// items: exclude names those the index holds. A catch-up may write some
// of them while the search runs; the index's generation is odd while a
// write runs and moves with each (bumped before and after it), so unless
// the generation was the same even number before and after, the search
// runs again, the third time excluding every item t changed, which holds
// whatever the index wrote meanwhile.
func (ix *Index) withoutTail(t *tail, search func(exclude []string) error) error {
	for attempt := 0; ; attempt++ {
		gen := ix.gen.Load()
		var exclude []string
		if attempt < 2 {
			var err error
			if exclude, err = t.presentIn(ix); err != nil {
				return err
			}
		} else {
			for id := range t.changed {
				exclude = append(exclude, id)
			}
		}
		if err := search(exclude); err != nil || attempt == 2 || (gen%2 == 0 && ix.gen.Load() == gen) {
			return err
		}
	}
}

// requestFilter is the prefilter of req's query, and a test of its
// keyword filters on a document.
func (ix *Index) requestFilter(req Request) (pred, func(doc) bool) {
	var keep pred
	if q, err := parseQuery(req.Query); err == nil {
		m, merr := newMapping()
		if merr == nil {
			keep = prefilter(m, q)
		}
	}
	if len(req.Filters) == 0 {
		return keep, nil
	}
	return keep, func(d doc) bool { return keywordFiltersMatch(d, req.Filters) }
}

// keywordFiltersMatch reports whether d can match filters: for each
// keyword field named, one of its values (lower-cased, as indexed) is one
// of d's. Text fields are left to the index.
func keywordFiltersMatch(d doc, filters map[string][]string) bool {
	for f, vals := range filters {
		if !slices.Contains(keywordFields, f) || len(vals) == 0 {
			continue
		}
		var have []string
		switch v := d[f].(type) {
		case string:
			have = []string{v}
		case []string:
			have = v
		}
		ok := false
		for _, want := range vals {
			for _, h := range have {
				if strings.EqualFold(h, want) {
					ok = true
				}
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// sumFacets adds the counts of b to those of a, per field and term, most
// frequent first (ties by term), at most facetSize terms a field.
func sumFacets(a, b map[string][]FacetCount) map[string][]FacetCount {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := map[string][]FacetCount{}
	for _, m := range []map[string][]FacetCount{a, b} {
		for f, counts := range m {
			byTerm := map[string]int{}
			for _, c := range out[f] {
				byTerm[c.Term] = c.Count
			}
			for _, c := range counts {
				byTerm[c.Term] += c.Count
			}
			merged := make([]FacetCount, 0, len(byTerm))
			for t, n := range byTerm {
				merged = append(merged, FacetCount{Term: t, Count: n})
			}
			out[f] = merged
		}
	}
	for f, counts := range out {
		slices.SortFunc(counts, func(x, y FacetCount) int {
			if c := cmp.Compare(y.Count, x.Count); c != 0 {
				return c
			}
			return strings.Compare(x.Term, y.Term)
		})
		out[f] = counts[:min(len(counts), facetSize)]
	}
	return out
}

// mergeHits merges pages of hits sorted by sortBy (bleve's sort strings;
// empty: best score first) and returns [from, from+size) of the merge. On
// ties the earlier page's hits (the index's) come first.
func mergeHits(sortBy []string, from, size int, pages ...[]Hit) []Hit {
	if len(sortBy) == 0 {
		sortBy = []string{"-_score"}
	}
	so := bsearch.ParseSortOrderStrings(sortBy)
	scoring, desc := so.CacheIsScore(), so.CacheDescending()
	type entry struct {
		hit Hit
		dm  *bsearch.DocumentMatch
	}
	var hits []Hit
	for _, p := range pages {
		hits = append(hits, p...)
	}
	all := make([]entry, 0, len(hits))
	for i, h := range hits {
		keys := h.sortKeys
		if len(keys) != len(so) {
			keys = make([]string, len(so))
			for x, s := range so {
				if _, ok := s.(*bsearch.SortDocID); ok {
					keys[x] = docID(h.Type, h.ID)
				}
			}
		}
		all = append(all, entry{h, &bsearch.DocumentMatch{ID: docID(h.Type, h.ID), Score: h.Score, Sort: keys, HitNumber: uint64(i)}})
	}
	sort.SliceStable(all, func(i, j int) bool { return so.Compare(scoring, desc, all[i].dm, all[j].dm) < 0 })
	var out []Hit
	for i := from; i < min(len(all), from+size); i++ {
		out = append(out, all[i].hit)
	}
	return out
}

// retrieveBehind is Retrieve while the index is behind: the index without
// the tail's items, and the tail's active records that can match task,
// each ranked as Retrieve ranks, merged by final score (the BM25 scores
// of the two sides are each over their own documents, as in
// searchBehind).
func (ix *Index) retrieveBehind(task string, scope review.Scope, k int, t *tail) ([]Scored, error) {
	var out []Scored
	err := ix.withoutTail(t, func(exclude []string) error {
		var err error
		out, err = ix.retrieve(task, scope, k, exclude)
		return err
	})
	if err != nil {
		return nil, err
	}
	var keep pred
	if strings.TrimSpace(task) != "" {
		if m, err := newMapping(); err == nil {
			keep = prefilter(m, taskQuery(task))
		}
	}
	snap, release := ix.chunkSnapshot(t)
	defer release()
	err = snap.each(t, func(mem *Index, stale []string) error {
		more, err := mem.retrieve(task, scope, k, stale)
		out = append(out, more...)
		return err
	})
	if err != nil {
		return nil, err
	}
	cands, _ := t.candidates("record", keep, func(d doc) bool { return d["status"] == string(review.Active) }, snap.covered)
	if len(cands) == 0 {
		sortScored(out)
		return out[:min(len(out), max(k, 0))], nil
	}
	mem, release, err := ix.mems.acquire(t, cands, func() (*Index, error) { return ix.memIndex(cands, t.top) })
	if err != nil {
		return nil, err
	}
	more, err := mem.retrieve(task, scope, k, nil)
	release()
	if err != nil {
		return nil, err
	}
	out = append(out, more...)
	sortScored(out)
	return out[:min(len(out), max(k, 0))], nil
}
