package index

import (
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memreview/memreview/sample"
)

// TestEstimatedFacets checks facets of a huge result set: counted on one
// sample part and scaled, marked Estimated, summing to the total on a
// one-valued field, near the exact counts, kept as estimates by the cache;
// exact on request and for small result sets.
func TestEstimatedFacets(t *testing.T) {
	t.Parallel()
	src := newFake()
	src.putRecord(sample.SynthRecords(2000, benchSeed)...)
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	req := Request{Query: "+join", Type: "record", Facets: []string{"category", "status", "env"}}
	ix.estimateOver = math.MaxUint64
	exact, err := ix.search(req, false)
	if err != nil {
		t.Fatal(err)
	}
	if exact.Estimated || exact.Total < 500 {
		t.Fatalf("exact: %d hits, estimated %v; want an exact count over 500 hits", exact.Total, exact.Estimated)
	}

	ix.estimateOver = exact.Total / 4
	got, err := ix.search(req, false)
	if err != nil {
		t.Fatal(err)
	}
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
		// One hit in 16 sampled: an estimate of c is 16 × Binomial(c,
		// 1/16), sd ≈ 4√c; allow four of them.
		for _, c := range counts {
			if d := math.Abs(float64(est[c.Term] - c.Count)); d > 16*math.Sqrt(float64(c.Count)) {
				t.Errorf("%s=%s: estimated %d, exact %d", field, c.Term, est[c.Term], c.Count)
			}
		}
	}
	for range 2 {
		cached, err := ix.Search(req)
		if err != nil {
			t.Fatal(err)
		}
		if !cached.Estimated || !reflect.DeepEqual(cached.Facets, got.Facets) {
			t.Errorf("cached: estimated %v facets %v, want the estimate %v", cached.Estimated, cached.Facets, got.Facets)
		}
	}

	exactReq := req
	exactReq.ExactFacets = true
	for _, useCache := range []bool{true, false} {
		res, err := ix.search(exactReq, useCache)
		if err != nil {
			t.Fatal(err)
		}
		if res.Estimated || !reflect.DeepEqual(res.Facets, exact.Facets) {
			t.Errorf("ExactFacets (cache %v): estimated %v facets %v, want %v", useCache, res.Estimated, res.Facets, exact.Facets)
		}
	}

	ix.estimateOver = exact.Total * 2
	small, err := ix.search(req, false)
	if err != nil {
		t.Fatal(err)
	}
	if small.Estimated || !reflect.DeepEqual(small.Facets, exact.Facets) {
		t.Errorf("under the threshold: estimated %v facets %v, want exact %v", small.Estimated, small.Facets, exact.Facets)
	}
}
