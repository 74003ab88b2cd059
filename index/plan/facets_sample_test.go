package plan

import (
	"fmt"
	"testing"

	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// TestSampledFacetsCapped checks that a facet count block-sample scales
// up never exceeds the documents of the index that hold the term: 60 of
// 420 "join" records each have an env of their own, and the sample (one
// hit in about 6) holds some of them, each of which scaled to about 6
// ("status=pending estimated 13, exact 1" in TestPlanTable); the common
// env stays an estimate near its count.
func TestSampledFacetsCapped(t *testing.T) {
	idx, err := schema.NewMem()
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	b := idx.NewBatch()
	const n, lone = 420, 60
	for i := range n {
		r := review.Record{ID: fmt.Sprintf("mem_%03d", i), Lemma: fmt.Sprintf("join note %d", i), Category: review.Fact, Status: review.Active, Scope: review.Scope{Env: "shop"}}
		if i%(n/lone) == 0 {
			r.Scope.Env = fmt.Sprintf("lone%02d", i)
		}
		if err := schema.Add(idx, b, schema.DocID("record", r.ID), schema.RecordDoc(&r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	e := NewEngine(idx, Tuning{EstimateOver: 40, SampleTarget: 25}, nil, nil)
	res, p, err := e.Explain(Request{Query: "join", Facets: []string{"env"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Facets() != "block-sample" || !res.Estimated {
		t.Fatalf("facets by %s, estimated %v; want block-sample's estimate", p.Facets(), res.Estimated)
	}
	seen := 0
	for _, c := range res.Facets["env"] {
		switch {
		case c.Term == "shop":
			if d := c.Count - (n - lone); d < -(n-lone)/2 || d > (n-lone)/2 {
				t.Errorf("env=shop ≈ %d, exact %d", c.Count, n-lone)
			}
		default:
			seen++
			if c.Count != 1 {
				t.Errorf("env=%s ≈ %d; the index holds it once", c.Term, c.Count)
			}
		}
	}
	if seen == 0 {
		t.Fatalf("the sample held none of the lone envs (%v): the test tests nothing", res.Facets["env"])
	}
}

// A one-valued field's counts still sum to the total when a cap lowers
// an over-scaled rare term: 47 active and 1 retired of 48 sampled hits
// of 480 scale to 470 and 10; the one retired record of the index caps
// its count at 1, and the 9 it took off go back to active.
func TestRefillAfterCap(t *testing.T) {
	sample := map[string][]FacetCount{"status": {{Term: "active", Count: 47}, {Term: "retired", Count: 1}},
		"tags": {{Term: "a", Count: 40}, {Term: "b", Count: 30}}}
	one := oneValued(sample, 48)
	if !one["status"] || one["tags"] {
		t.Fatalf("one-valued: %v; want status only", one)
	}
	list := scaleFacets(sample, 480, 48)["status"]
	if list[0].Count != 470 || list[1].Count != 10 {
		t.Fatalf("scaled %v", list)
	}
	list[1].Count = 1 // the cap: one retired record in the index
	refill(list, []bool{false, true}, []int{480, 1}, 480)
	if list[0].Count != 479 || list[1].Count != 1 {
		t.Fatalf("after the cap and refill: %v; want active 479, retired 1", list)
	}
	// Never past what the index holds of the term.
	list = []FacetCount{{Term: "active", Count: 470}, {Term: "retired", Count: 1}}
	refill(list, []bool{false, true}, []int{475, 1}, 480)
	if list[0].Count != 475 {
		t.Fatalf("refilled past the term's documents: %v", list)
	}
}
