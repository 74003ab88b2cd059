package index

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// facetRequests are requests whose facets the cache keeps, varied in every
// part of the cache key and in the parts left out of it.
var facetRequests = []Request{
	{Type: "record", Facets: []string{"category", "env", "status"}},
	{Type: "record", Facets: []string{"category", "env", "status"}, Sort: []string{"_id"}, Size: 2},
	{Type: "record", Facets: []string{"category", "env", "status"}, Sort: []string{"_id"}, Size: 2, From: 2, Highlight: true},
	{Type: "record", Facets: []string{"category"}},
	{Type: "record", Facets: []string{"status", "env", "category"}},
	{Type: "record", Facets: []string{"env", "env"}},
	{Type: "proposal", Facets: []string{"category", "env", "status"}},
	{Facets: []string{"type", "category"}},
	{Query: "join", Type: "record", Facets: []string{"category", "env", "status"}},
	{Query: "join", Type: "record", Facets: []string{"category", "env", "status"}, Highlight: true, Sort: []string{"-_score", "_id"}},
	{Query: "join", Facets: []string{"category", "env", "status"}},
	{Query: "env:airline", Facets: []string{"type"}},
	{Type: "record", Filters: map[string][]string{"env": {"shop"}}, Facets: []string{"category", "status"}},
	{Type: "record", Filters: map[string][]string{"env": {"shop"}, "category": {"fact"}}, Facets: []string{"category", "status"}},
	{Type: "record", Filters: map[string][]string{"status": {"retired"}}, Facets: []string{"category", "status"}},
	{Query: "warehouses", Type: "record", Facets: []string{"category"}},
}

// checkFacetCache runs every request through Search twice (the second
// answered from the cache) and compares both with the uncached path.
func checkFacetCache(t *testing.T, ix *Index, when string) {
	t.Helper()
	for _, req := range facetRequests {
		want, err := ix.search(req, noCache)
		if err != nil {
			t.Fatalf("%s: uncached %+v: %v", when, req, err)
		}
		for try := range 2 {
			got, err := ix.Search(req)
			if err != nil {
				t.Fatalf("%s: Search %+v: %v", when, req, err)
			}
			got.Took, want.Took = 0, 0
			// Scores, and the order of equal scores, may move between two
			// searches right after a change, cached or not: scorch merges
			// segments in the background, and BM25 counts deleted
			// documents until they are merged away. The cache changes
			// neither; the hits are compared as a set.
			noScores(got)
			noScores(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, try %d: Search(%+v)\n got %+v\nwant %+v", when, try, req, got, want)
			}
			// What a caller does with the facets must not reach the cache.
			for f := range got.Facets {
				if len(got.Facets[f]) > 0 {
					got.Facets[f][0].Count = -1
				}
			}
		}
	}
}

func noScores(r *Results) {
	for i := range r.Hits {
		r.Hits[i].Score = 0
	}
	slices.SortFunc(r.Hits, func(a, b Hit) int { return strings.Compare(a.Type+"/"+a.ID, b.Type+"/"+b.ID) })
}

// TestFacetCacheIdentical proves cached facets equal freshly counted ones,
// before and after the index changes by Sync (put, retire, delete) and by
// Rebuild.
func TestFacetCacheIdentical(t *testing.T) {
	ix, src := openSample(t)
	checkFacetCache(t, ix, "at open")

	before, err := ix.Search(facetRequests[0])
	if err != nil {
		t.Fatal(err)
	}
	src.putRecord(review.Record{ID: "mem_8", Lemma: "Warehouses join at noon on Fridays.", Category: review.Warning,
		Scope: review.Scope{Env: "shop"}})
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	after, err := ix.Search(facetRequests[0])
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(before.Facets, after.Facets) {
		t.Fatalf("facets did not change after a new record was synced: %v", after.Facets)
	}
	checkFacetCache(t, ix, "after a put")

	r := src.recs["mem_1"]
	r.Status = review.Retired
	src.putRecord(r)
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	checkFacetCache(t, ix, "after a retire")

	src.deleteRecord("mem_2")
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	checkFacetCache(t, ix, "after a delete")

	src.putRecord(review.Record{ID: "mem_9", Lemma: "Warehouses open at six.", Category: review.Fact,
		Scope: review.Scope{Env: "airline"}})
	if err := ix.Rebuild(); err != nil {
		t.Fatal(err)
	}
	checkFacetCache(t, ix, "after Rebuild")
}
