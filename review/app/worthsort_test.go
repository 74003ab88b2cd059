package app_test

import (
	"slices"
	"sort"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// TestSearchByWorth: every page of SearchByWorth, best first and worst
// first, for the blank query and a word, is the page of every hit sorted
// by the screen's rule (lift, then retrieved, then id), with the
// retrieved records at both ends and the total every hit.
func TestSearchByWorth(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	worth, err := svc.WorthAll()
	if err != nil {
		t.Fatal(err)
	}
	retrieved := 0
	for _, w := range worth {
		if w.Retrieved > 0 {
			retrieved++
		}
	}
	if retrieved < 3 {
		t.Fatalf("only %d records with a worth entry in the sample world", retrieved)
	}
	for _, q := range []string{"", "price"} {
		all, err := svc.Search(app.SearchRequest{Query: q, Type: "record", Size: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, worst := range []bool{false, true} {
			want := make([]string, len(all.Hits))
			for i, h := range all.Hits {
				want[i] = h.ID
			}
			sort.SliceStable(want, func(i, j int) bool {
				a, b := worth[want[i]], worth[want[j]]
				if la, lb := a.Lift(), b.Lift(); la != lb {
					return la > lb != worst
				}
				if a.Retrieved != b.Retrieved {
					return a.Retrieved > b.Retrieved
				}
				return want[i] < want[j]
			})
			var got []string
			for from := 0; from < len(want)+3; from += 3 {
				res, err := svc.SearchByWorth(app.SearchRequest{Query: q, Type: "record", From: from, Size: 3}, worth, worst)
				if err != nil {
					t.Fatal(err)
				}
				if int(res.Total) != len(want) {
					t.Fatalf("query %q: total %d, want %d", q, res.Total, len(want))
				}
				for _, h := range res.Hits {
					got = append(got, h.ID)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("query %q worst %v: pages give\n%v\nwant\n%v", q, worst, got, want)
			}
			if first := worth[got[0]]; len(got) > 0 && first.Retrieved == 0 && hasWorth(worth, want, worst) {
				t.Errorf("query %q worst %v: %s leads, which no task retrieved", q, worst, got[0])
			}
		}
	}
}

// hasWorth: some hit sorts before the unretrieved ones.
func hasWorth(worth map[string]review.Worth, ids []string, worst bool) bool {
	for _, id := range ids {
		if l := worth[id].Lift(); worth[id].Retrieved > 0 && (l > 0 != worst || l == 0) {
			return true
		}
	}
	return false
}
