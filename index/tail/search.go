package tail

import (
	"slices"
	"strings"
	"time"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// Search runs req on the index and on the tail, when the index is behind
// the bank (behind true), and merges them; when it is caught up it does
// nothing (behind false), and the caller searches the index alone:
//
//   - the index is searched without the documents of the items t
//     changed (their version there is stale, or the bank deleted them),
//     so an item is counted once, in its newest version;
//   - the tail's items are searched in memory under the same mapping,
//     by the same pipeline, so phrases, fields, ranges, facets and
//     fragments mean what they mean on the index: those the background
//     chunks hold (chunks.go) on them, without the versions that
//     changed since; the rest that can match (the prefilter, then req's
//     type and keyword filters), at most tailIndexMax, newest first, on
//     an index of their own;
//   - totals and facet counts are summed; hits are merged in req's sort
//     order, each side asked for From+Size.
//
// Every side scores by BM25, but each over its own documents (a term's
// rarity in the tail is not its rarity in the bank; each chunk is scored
// over itself), so under a score sort the interleaving of the sides'
// hits is not what a caught-up index would give; a field sort merges
// exactly (ties: the index's hits first). The tail's facets are exact and its estimates none: a merged
// result is Estimated when the index's part is.
func (tl *Tail) Search(req plan.Request) (res *plan.Results, behind bool, err error) {
	t, err := tl.current()
	if err != nil || t == nil {
		return nil, false, err
	}
	start := time.Now()
	size := plan.PageSize(req)
	from := max(req.From, 0)
	var mres *plan.Results
	err = tl.withoutTail(t, func(exclude []string) error {
		main := req
		main.From, main.Size = 0, from+size
		// Facets cached for the whole index do not hold without the
		// excluded documents.
		var err error
		mres, err = tl.ix.Search(main, plan.Options{Cache: len(exclude) == 0, Exclude: exclude})
		return err
	})
	if err != nil {
		return nil, true, err
	}
	snap, release := tl.chunkSnapshot(t)
	defer release()
	cres := &plan.Results{}
	err = snap.each(t, func(m *mem, stale []string) error {
		side := req
		side.From, side.Size = 0, from+size
		r, err := m.eng.Search(side, plan.Options{Exclude: stale})
		if err != nil {
			return err
		}
		cres.Total += r.Total
		cres.Facets = plan.SumFacets(cres.Facets, r.Facets)
		cres.Estimated = cres.Estimated || r.Estimated
		cres.Hits = plan.MergeHits(req.Sort, 0, from+size, cres.Hits, r.Hits)
		return nil
	})
	if err != nil {
		return nil, true, err
	}
	keep, also := requestFilter(req)
	cands, cut := t.candidates(req.Type, keep, also, snap.covered)
	tres := &plan.Results{}
	if len(cands) > 0 {
		m, release, err := tl.mems.acquire(t, cands, func() (*mem, error) { return tl.memIndex(cands) })
		if err != nil {
			return nil, true, err
		}
		side := req
		side.From, side.Size = 0, from+size
		tres, err = m.eng.Search(side, plan.Options{})
		release()
		if err != nil {
			return nil, true, err
		}
	}
	out := &plan.Results{
		Total:      mres.Total + cres.Total + tres.Total,
		Facets:     plan.SumFacets(plan.SumFacets(mres.Facets, cres.Facets), tres.Facets),
		Behind:     mres.Behind,
		Estimated:  mres.Estimated || cres.Estimated || tres.Estimated,
		Direct:     len(t.items) - cut,
		Unsearched: t.unread() + cut,
	}
	out.Hits = plan.MergeHits(req.Sort, from, size, mres.Hits, cres.Hits, tres.Hits)
	plan.DropSortKeys(out.Hits)
	out.Took = time.Since(start)
	return out, true, nil
}

// withoutTail runs search on the index without the documents of t's
// items: exclude names those the index holds. A catch-up may write some
// of them while the search runs; the index's generation is odd while a
// write runs and moves with each (bumped before and after it), so unless
// the generation was the same even number before and after, the search
// runs again, the third time excluding every item t changed, which holds
// whatever the index wrote meanwhile.
func (tl *Tail) withoutTail(t *span, search func(exclude []string) error) error {
	for attempt := 0; ; attempt++ {
		gen := tl.ix.Gen()
		var exclude []string
		if attempt < 2 {
			var err error
			if exclude, err = t.presentIn(tl.ix); err != nil {
				return err
			}
		} else {
			for id := range t.changed {
				exclude = append(exclude, id)
			}
		}
		if err := search(exclude); err != nil || attempt == 2 || (gen%2 == 0 && tl.ix.Gen() == gen) {
			return err
		}
	}
}

// requestFilter is the prefilter of req's query, and a test of its
// keyword filters on a document.
func requestFilter(req plan.Request) (pred, func(schema.Doc) bool) {
	var keep pred
	if q, err := plan.ParseQuery(req.Query); err == nil {
		m, merr := schema.New()
		if merr == nil {
			keep = prefilter(m, q)
		}
	}
	if len(req.Filters) == 0 {
		return keep, nil
	}
	return keep, func(d schema.Doc) bool { return keywordFiltersMatch(d, req.Filters) }
}

// keywordFiltersMatch reports whether d can match filters: for each
// keyword field named, one of its values (lower-cased, as indexed) is one
// of d's. Text fields are left to the index.
func keywordFiltersMatch(d schema.Doc, filters map[string][]string) bool {
	for f, vals := range filters {
		if !slices.Contains(schema.KeywordFields, f) || len(vals) == 0 {
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

// Retrieve is Retrieve while the index is behind (behind true; when it is
// caught up it does nothing): the index without the tail's items, and the
// tail's active records that can match task, each ranked as Retrieve
// ranks, merged by final score (the BM25 scores of the two sides are each
// over their own documents, as in Search). k must be above 0.
func (tl *Tail) Retrieve(task string, scope review.Scope, k int) (out []plan.Scored, behind bool, err error) {
	t, err := tl.current()
	if err != nil || t == nil {
		return nil, false, err
	}
	out, err = tl.retrieve(task, scope, k, t)
	return out, true, err
}

func (tl *Tail) retrieve(task string, scope review.Scope, k int, t *span) ([]plan.Scored, error) {
	var out []plan.Scored
	err := tl.withoutTail(t, func(exclude []string) error {
		var err error
		out, err = tl.ix.Retrieve(task, scope, k, exclude)
		return err
	})
	if err != nil {
		return nil, err
	}
	var keep pred
	if strings.TrimSpace(task) != "" {
		if m, err := schema.New(); err == nil {
			keep = prefilter(m, schema.TaskQuery(task))
		}
	}
	snap, release := tl.chunkSnapshot(t)
	defer release()
	err = snap.each(t, func(m *mem, stale []string) error {
		more, err := m.eng.Retrieve(task, scope, k, stale)
		out = append(out, more...)
		return err
	})
	if err != nil {
		return nil, err
	}
	cands, _ := t.candidates("record", keep, func(d schema.Doc) bool { return d["status"] == string(review.Active) }, snap.covered)
	if len(cands) == 0 {
		plan.SortScored(out)
		return out[:min(len(out), max(k, 0))], nil
	}
	m, release, err := tl.mems.acquire(t, cands, func() (*mem, error) { return tl.memIndex(cands) })
	if err != nil {
		return nil, err
	}
	more, err := m.eng.Retrieve(task, scope, k, nil)
	release()
	if err != nil {
		return nil, err
	}
	out = append(out, more...)
	plan.SortScored(out)
	return out[:min(len(out), max(k, 0))], nil
}
