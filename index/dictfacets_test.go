package index

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// TestBlankFacetsFromDictionary checks that a blank query's facets taken
// from the term dictionaries equal those counted hit by hit, for every
// type; that after a record changes they are either still exact or
// flagged as estimates off by no more than the documents replaced; and
// that Exact always counts.
func TestBlankFacetsFromDictionary(t *testing.T) {
	src := sampleBank()
	synth := sample.SynthRecords(600, benchSeed)
	src.putRecord(synth...)
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	defer func(m int) { useDict, estimateMin = true, m }(estimateMin)
	facets := []string{"category", "env", "status", "tags", "op", "passed"}
	estimates := 0
	compare := func(when string, wantExact bool, slack int) {
		t.Helper()
		for _, typ := range []string{"record", "", "proposal", "trajectory"} {
			for _, exact := range []bool{false, true} {
				req := Request{Type: typ, Facets: facets, Sort: []string{"_id"}, Exact: exact}
				name := fmt.Sprintf("%s: type %q exact %v", when, typ, exact)
				useDict = false
				want, err := ix.search(req, false)
				if err != nil {
					t.Fatal(err)
				}
				useDict = true
				got, err := ix.search(req, false)
				if err != nil {
					t.Fatal(err)
				}
				if got.Total != want.Total || !reflect.DeepEqual(ids(got), ids(want)) {
					t.Errorf("%s: hits %d %v, want %d %v", name, got.Total, ids(got), want.Total, ids(want))
				}
				if !got.Estimated {
					if !reflect.DeepEqual(got.Facets, want.Facets) {
						t.Errorf("%s: facets %v, want %v", name, got.Facets, want.Facets)
					}
					continue
				}
				estimates++
				if exact || wantExact {
					t.Errorf("%s: facets flagged as estimates", name)
				}
				for f, counts := range want.Facets {
					wantN := map[string]int{}
					for _, c := range counts {
						wantN[c.Term] = c.Count
					}
					for _, c := range got.Facets[f] {
						if d := c.Count - wantN[c.Term]; d < 0 || d > slack {
							t.Errorf("%s: estimated %s=%s %d, counted %d (slack %d)", name, f, c.Term, c.Count, wantN[c.Term], slack)
						}
					}
				}
			}
		}
	}
	compare("fresh", true, 0)

	estimateMin = 0 // every index is huge: inexact counts are served as estimates
	for i := range 5 {
		r := synth[i]
		r.Category = review.Warning
		src.putRecord(r)
	}
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	compare("after 5 records changed", false, 5)
	t.Logf("%d answers were estimates (0 when bleve merged the replaced documents away first)", estimates)
}
