package index

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/sample"
)

// TestBlankQueryOnFilters checks that a blank query with a type and
// filters, run as a query on the filters, returns what it returned through
// a filtering searcher over every document: totals, hits in order, scores,
// facets and (no) highlights.
func TestBlankQueryOnFilters(t *testing.T) {
	src := sampleBank()
	src.putRecord(sample.SynthRecords(600, benchSeed)...)
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	facets := []string{"category", "env", "status", "tags"}
	var reqs []Request
	for _, typ := range []string{"record", "proposal", "trajectory", ""} {
		for _, filters := range []map[string][]string{
			nil,
			{"env": {"docs"}},
			{"env": {"shop"}, "category": {"warning", "fact"}},
			{"tags": {"g1", "g2"}},
			{"lemma": {"join"}},
			{"type": {"record"}},
		} {
			for _, sort := range [][]string{nil, {"_id"}, {"-_score", "_id"}, {"-confidence"}} {
				reqs = append(reqs, Request{Type: typ, Filters: filters, Facets: facets, Sort: sort, Size: 40, From: 5, Highlight: true})
			}
		}
	}
	hits := 0
	for _, req := range reqs {
		if req.Type == "" && req.Filters == nil {
			continue // a plain blank query is not rewritten
		}
		name := fmt.Sprintf("type %q filters %v sort %v", req.Type, req.Filters, req.Sort)
		want := searchOff(t, ix, req, "filters-only")
		got, err := ix.search(req, noCache)
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, name, got, want)
		hits += len(want.Hits)
	}
	if hits == 0 {
		t.Fatal("no request found anything")
	}
}
