package index

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// TestBlankFacetsFromDictionary checks that a blank query's facets taken
// from the terms' document counts equal those counted hit by hit, for
// every type, on a fresh index and after records were replaced and
// deleted (documents that stay in their segments until a merge).
func TestBlankFacetsFromDictionary(t *testing.T) {
	src := sampleBank()
	synth := sample.SynthRecords(600, benchSeed)
	src.putRecord(synth...)
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	facets := []string{"category", "env", "status", "tags", "op", "passed"}
	compare := func(when string) {
		t.Helper()
		for _, typ := range []string{"record", "", "proposal", "trajectory"} {
			req := Request{Type: typ, Facets: facets, Sort: []string{"_id"}}
			name := fmt.Sprintf("%s: type %q", when, typ)
			want := searchOff(t, ix, req, "dict-facets")
			got, err := ix.search(req, noCache)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != want.Total || !reflect.DeepEqual(ids(got), ids(want)) {
				t.Errorf("%s: hits %d %v, want %d %v", name, got.Total, ids(got), want.Total, ids(want))
			}
			if !reflect.DeepEqual(got.Facets, want.Facets) {
				t.Errorf("%s: facets %v, want %v", name, got.Facets, want.Facets)
			}
		}
	}
	compare("fresh")
	for i := range 5 {
		r := synth[i]
		r.Category, r.Status = review.Warning, review.Retired
		src.putRecord(r)
	}
	src.deleteRecord(synth[7].ID)
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	compare("after 5 records changed and one deleted")
}

// TestBlankPageByID checks that the blank list of one type sorted by id,
// read from the _id dictionary, pages exactly as bleve's sort does, on a
// fresh index and after records were replaced and deleted.
func TestBlankPageByID(t *testing.T) {
	src := sampleBank()
	synth := sample.SynthRecords(300, benchSeed)
	src.putRecord(synth...)
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	compare := func(when string) {
		t.Helper()
		for _, typ := range []string{"record", "proposal", "trajectory"} {
			for _, from := range []int{0, 1, 95, 290, 400} {
				req := Request{Type: typ, Sort: []string{"_id"}, From: from, Size: 100, Highlight: true, Facets: []string{"category", "status"}}
				want := tunedSearch(t, ix, plan.Tuning{Off: []string{"id-page"}}, req, plan.Options{Cache: true})
				got, err := ix.search(req, plan.Options{Cache: true})
				if err != nil {
					t.Fatal(err)
				}
				sameResults(t, fmt.Sprintf("%s: type %q from %d", when, typ, from), got, want)
			}
		}
	}
	compare("fresh")
	for i := range 5 {
		r := synth[i*3]
		r.Lemma = "Replaced."
		src.putRecord(r)
	}
	src.deleteRecord(synth[10].ID)
	src.deleteRecord(synth[299].ID)
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	compare("after replacing and deleting")
}
