package index

import (
	"fmt"
	"testing"
)

// checkTopScores checks that dropping the hits that cannot reach the page
// (the top-scores strategy) changes nothing: the same totals, hits, scores,
// fragments and facets as bleve's collector given every hit, on the
// requests sorted by score then id, on several pages, including ties at
// the page's edge. TestMappingV3Equivalent runs it on its index.
func checkTopScores(t *testing.T, ix *Index, all []Request) {
	t.Helper()
	var reqs []Request
	for _, r := range all {
		if len(r.Sort) < 2 || r.Sort[0] != "-_score" { // top-scores' requests
			continue
		}
		for _, page := range [][2]int{{0, 20}, {0, 1}, {7, 3}, {40, 20}} {
			r.From, r.Size = page[0], page[1]
			reqs = append(reqs, r)
		}
	}
	ties := 0
	for _, req := range reqs {
		name := fmt.Sprintf("%q type=%q from=%d size=%d", req.Query, req.Type, req.From, req.Size)
		want := searchOff(t, ix, req, "top-scores", "rank-bound")
		got, err := ix.search(req, noCache)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(want.Hits); n > 1 && want.Hits[n-1].Score == want.Hits[n-2].Score {
			ties++
		}
		sameResults(t, name, got, want)
	}
	if ties < 10 {
		t.Errorf("only %d pages end on a tie; the id order after the score is little tested", ties)
	}
}
