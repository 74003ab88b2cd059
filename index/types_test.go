package index

import (
	"fmt"
	"slices"
	"testing"

	"github.com/memreview/memreview/review"
)

// typeSearch returns the sorted "type/id" hits of q limited to typ, both as
// Search does it and by filtering an unlimited search by hand.
func typeSearch(t *testing.T, ix *Index, q, typ string) (got, want []string) {
	t.Helper()
	res, err := ix.Search(Request{Query: q, Type: typ, Size: 1000})
	if err != nil {
		t.Fatalf("Search(%q, type %s): %v", q, typ, err)
	}
	all, err := ix.Search(Request{Query: q, Size: 1000})
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	for _, h := range all.Hits {
		if h.Type == typ {
			want = append(want, h.Type+"/"+h.ID)
		}
	}
	slices.Sort(want)
	if res.Total != uint64(len(res.Hits)) {
		t.Errorf("Search(%q, type %s): Total %d, %d hits", q, typ, res.Total, len(res.Hits))
	}
	return ids(res), want
}

// TestSearchTypeExclusion checks that a type is selected alike whether
// Search excludes the other types (the type holds most documents) or
// filters on it, before and after the balance of types changes.
func TestSearchTypeExclusion(t *testing.T) {
	ix, src := openSample(t)
	check := func(stage string) {
		t.Helper()
		for _, q := range []string{"", "join", "flight", "reviews join items", "category:relation", "-join"} {
			for _, typ := range Types {
				got, want := typeSearch(t, ix, q, typ)
				if !slices.Equal(got, want) {
					t.Errorf("%s: Search(%q, type %s) = %v, want %v", stage, q, typ, got, want)
				}
			}
		}
	}
	if !excludes(t, ix, "record") {
		t.Fatal("records outnumber the other types, yet Search would filter on type")
	}
	if excludes(t, ix, "trajectory") {
		t.Fatal("trajectories are few, yet Search would exclude the other types")
	}
	check("records most")
	for i := range 20 {
		src.putTrajectory(review.Trajectory{ID: fmt.Sprintf("traj_x%d", i), Env: "shop", Task: "join reviews to items"})
	}
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	if excludes(t, ix, "record") {
		t.Error("after the sync trajectories outnumber records, yet Search would exclude them")
	}
	if !excludes(t, ix, "trajectory") {
		t.Error("after the sync trajectories hold most documents, yet Search would filter on type")
	}
	check("trajectories most")
}

// excludes reports whether the plan selects typ by excluding the other
// types (they are fewer) rather than by filtering on it.
func excludes(t *testing.T, ix *Index, typ string) bool {
	t.Helper()
	return explainOf(t, ix, Request{Query: "join", Type: typ}).TypeExcluded()
}
