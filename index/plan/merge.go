package plan

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	bsearch "github.com/blevesearch/bleve/v2/search"

	"github.com/memreview/memreview/index/schema"
)

// The tail (index/tail) answers a request from several indexes at once
// and combines their answers with these.

// SumFacets adds the counts of b to those of a, per field and term, most
// frequent first (ties by term), at most facetSize terms a field.
func SumFacets(a, b map[string][]FacetCount) map[string][]FacetCount {
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

// MergeHits merges pages of hits sorted by sortBy (bleve's sort strings;
// empty: best score first) and returns [from, from+size) of the merge. On
// ties the earlier page's hits (the index's) come first.
func MergeHits(sortBy []string, from, size int, pages ...[]Hit) []Hit {
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
					keys[x] = schema.DocID(h.Type, h.ID)
				}
			}
		}
		all = append(all, entry{h, &bsearch.DocumentMatch{ID: schema.DocID(h.Type, h.ID), Score: h.Score, Sort: keys, HitNumber: uint64(i)}})
	}
	sort.SliceStable(all, func(i, j int) bool { return so.Compare(scoring, desc, all[i].dm, all[j].dm) < 0 })
	var out []Hit
	for i := from; i < min(len(all), from+size); i++ {
		out = append(out, all[i].hit)
	}
	return out
}

// DropSortKeys forgets the sort values MergeHits kept on hits, once they
// are merged for good.
func DropSortKeys(hits []Hit) {
	for i := range hits {
		hits[i].sortKeys = nil
	}
}
