package index

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/sample"
)

// TestTopScoresIdentical checks that dropping the hits that cannot reach
// the page (searchTopScores) changes nothing: the same totals, hits,
// scores, fragments and facets as bleve's collector given every hit, on
// the comparison and phrase requests sorted by score then id, on several
// pages, including ties at the page's edge.
func TestTopScoresIdentical(t *testing.T) {
	src := sampleBank()
	recs := sample.SynthRecords(1000, benchSeed)
	src.putRecord(recs...)
	src.putRecord(phraseRecords...)
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var reqs []Request
	for _, r := range append(equivalenceRequests(recs), v3Requests()...) {
		if !sortedByScore(r.Sort) {
			continue
		}
		for _, page := range [][2]int{{0, 20}, {0, 1}, {7, 3}, {40, 20}} {
			r.From, r.Size = page[0], page[1]
			reqs = append(reqs, r)
		}
	}
	defer func() { useTopScores = true }()
	ties := 0
	for _, req := range reqs {
		name := fmt.Sprintf("%q type=%q from=%d size=%d", req.Query, req.Type, req.From, req.Size)
		useTopScores = false
		want, err := ix.search(req, false)
		if err != nil {
			t.Fatal(err)
		}
		useTopScores = true
		got, err := ix.search(req, false)
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
