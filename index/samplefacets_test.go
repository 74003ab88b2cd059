package index

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// TestEstimates runs the estimate tests on one index of 1,800 records.
func TestEstimates(t *testing.T) {
	t.Parallel()
	src := newFake()
	src.putRecord(sample.SynthRecords(1200, benchSeed)...)
	// "quartz vellum" holds in one record of 20 that have both words, so
	// the best candidates are checked over several windows.
	for i := range 600 {
		lemma := fmt.Sprintf("vellum sheets hold quartz dust, batch %d.", i)
		if i%20 == 0 {
			lemma = fmt.Sprintf("Keep quartz vellum dry, batch %d.", i)
		}
		src.putRecord(review.Record{ID: fmt.Sprintf("mem_q%03d", i), Lemma: lemma, Category: review.Fact})
	}
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	t.Run("facets", func(t *testing.T) { testEstimatedFacets(t, ix) })
	t.Run("phrase-total", func(t *testing.T) { testEstimatedPhraseTotal(t, ix) })
}

// testEstimatedFacets checks facets of a huge result set: counted on one
// sample part and scaled, marked Estimated, summing to the total on a
// one-valued field, near the exact counts, kept as estimates by the cache;
// exact on request and for small result sets.
func testEstimatedFacets(t *testing.T, ix *Index) {
	req := Request{Query: "+join", Type: "record", Facets: []string{"category", "status", "env"}}
	exact := tunedSearch(t, ix, plan.Tuning{EstimateOver: math.MaxUint64}, req, noCache)
	if exact.Estimated || exact.Total < 300 {
		t.Fatalf("exact: %d hits, estimated %v; want an exact count over 300 hits", exact.Total, exact.Estimated)
	}

	sampled := plan.Tuning{EstimateOver: exact.Total / 4, SampleTarget: exact.Total / 10}
	got := tunedSearch(t, ix, sampled, req, noCache)
	if !got.Estimated || got.Total != exact.Total || !reflect.DeepEqual(ids(got), ids(exact)) {
		t.Fatalf("estimated: %d hits %v, estimated %v; want %d hits %v, estimated", got.Total, ids(got), got.Estimated, exact.Total, ids(exact))
	}
	sum := 0
	for _, c := range got.Facets["status"] {
		sum += c.Count
	}
	if d := sum - int(exact.Total); d < -len(got.Facets["status"]) || d > len(got.Facets["status"]) {
		t.Errorf("status counts sum to %d, want %d (one status a record)", sum, exact.Total)
	}
	for field, counts := range exact.Facets {
		est := map[string]int{}
		for _, c := range got.Facets[field] {
			est[c.Term] = c.Count
		}
		// About one hit in 10 sampled: an estimate of c is 10 ×
		// Binomial(c, 1/10), sd = 3√c; allow five of them.
		for _, c := range counts {
			if d := math.Abs(float64(est[c.Term] - c.Count)); d > 16*math.Sqrt(float64(c.Count)) {
				t.Errorf("%s=%s: estimated %d, exact %d", field, c.Term, est[c.Term], c.Count)
			}
		}
	}
	// The first request stores its estimate, the next are served it.
	// (It may differ from got's: a merge of segments in between renumbers
	// the documents, and the sample is taken by doc numbers.)
	first := tunedSearch(t, ix, sampled, req, plan.Options{Cache: true})
	for range 2 {
		cached := tunedSearch(t, ix, sampled, req, plan.Options{Cache: true})
		if !first.Estimated || !cached.Estimated || !reflect.DeepEqual(cached.Facets, first.Facets) {
			t.Errorf("cached: estimated %v facets %v, want the estimate %v", cached.Estimated, cached.Facets, first.Facets)
		}
	}

	exactReq := req
	exactReq.Exact = true
	for _, useCache := range []bool{true, false} {
		res := tunedSearch(t, ix, sampled, exactReq, plan.Options{Cache: useCache})
		if res.Estimated || !reflect.DeepEqual(res.Facets, exact.Facets) {
			t.Errorf("Exact (cache %v): estimated %v facets %v, want %v", useCache, res.Estimated, res.Facets, exact.Facets)
		}
	}

	small := tunedSearch(t, ix, plan.Tuning{EstimateOver: exact.Total * 2}, req, noCache)
	if small.Estimated || !reflect.DeepEqual(small.Facets, exact.Facets) {
		t.Errorf("under the threshold: estimated %v facets %v, want exact %v", small.Estimated, small.Facets, exact.Facets)
	}
}

// testEstimatedPhraseTotal checks a phrase query with many hits: its
// phrase is checked on the best candidates only, so the hits (and their
// scores and fragments, on any page) are exactly those of the full
// search, and the total is an estimate from one sample part, marked so.
func testEstimatedPhraseTotal(t *testing.T, ix *Index) {
	for _, c := range []struct {
		req       Request
		estimated bool // false: every candidate gets checked, the total is exact
	}{
		{Request{Query: `+"quartz vellum"`, Type: "record", Size: 20, Sort: []string{"_id"}}, false},
		{Request{Query: `+"one row per"`, Type: "record", Sort: []string{"-_score", "_id"}, Highlight: true}, true},
		{Request{Query: `+"one row per"`, Type: "record", From: 30, Size: 10, Facets: []string{"category"}}, true},
		{Request{Query: `+"one row per" -env:docs`, Type: "record", Sort: []string{"-confidence", "_id"}, Size: 20}, true},
	} {
		req := c.req
		var exact, got *Results
		onOneSnapshot(t, ix, func() {
			exact = tunedSearch(t, ix, plan.Tuning{EstimateOver: math.MaxUint64}, req, noCache)
			got = tunedSearch(t, ix, plan.Tuning{EstimateOver: max(exact.Total/4, 1)}, req, noCache)
		})
		if exact.Estimated || exact.Total < 20 {
			t.Fatalf("%s: %d hits exact, estimated %v; want an exact count of 20 or more", req.Query, exact.Total, exact.Estimated)
		}
		if got.Estimated != c.estimated {
			t.Errorf("%s: estimated %v, want %v", req.Query, got.Estimated, c.estimated)
		}
		if d := math.Abs(float64(got.Total) - float64(exact.Total)); d > 16*math.Sqrt(float64(exact.Total)) || !c.estimated && d != 0 {
			t.Errorf("%s: total ≈ %d, exact %d", req.Query, got.Total, exact.Total)
		}
		got.Total, got.Facets, exact.Facets = exact.Total, nil, nil
		sameResults(t, req.Query, got, exact)
	}
}
