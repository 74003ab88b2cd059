package index

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/memreview/memreview/sample"
)

// buildWriter builds src's items into a new index through fill with the
// batchWriter w makes, as Index.build does.
func buildWriter(t *testing.T, src *fakeSource, name string, w func(bleve.Index) chunkWriter) *Index {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, map[string]interface{}{"unsafe_batch": true})
	if err != nil {
		t.Fatal(err)
	}
	if err := fill(w(idx), src, 1, func(int, int) {}); err != nil {
		t.Fatal(err)
	}
	ix := &Index{dir: dir, src: src, idx: idx}
	if err := ix.readStoredSeq(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// TestBuildMemoEquivalent: a build that analyses each repeated value once
// a batch (analysisMemo) gives the index of one that analyses every field,
// on the comparison requests: totals, hits, scores, facets, fragments. The
// corpus spans several batches, with multi-valued tags (never memoised)
// and every memoised field.
func TestBuildMemoEquivalent(t *testing.T) {
	t.Parallel()
	src := sampleBank()
	recs := sample.SynthRecords(2500, benchSeed)
	src.putRecord(recs...)
	src.putRecord(phraseRecords...)
	plain := buildWriter(t, src, "plain", func(idx bleve.Index) chunkWriter { return batchWriter{idx: idx, unsafe: true} })
	memo := buildWriter(t, src, "memo", func(idx bleve.Index) chunkWriter { return batchWriter{idx: idx, unsafe: true, memo: true} })
	reqs := append(equivalenceRequests(recs), v3Requests()...)
	for _, q := range []string{"confidence:>0.9", "priority:2", "created:>=\"2025-06-01\"", "updated:<\"2025-03-01\"", "status:retired", "category:procedure env:docs"} {
		reqs = append(reqs, Request{Query: q, Facets: []string{"category", "env", "status"}, Sort: []string{"-_score", "_id"}, Size: 50, Exact: true})
	}
	if fragments := compareSearches(t, reqs, plain, memo); fragments == 0 {
		t.Error("no fragments: the comparison tests little")
	}
	// The memo must have been used: the memoised fields of two records
	// with the same value share one analysis.
	bd1, _ := mapDoc(memo.idx.Mapping(), "record/a", recordDoc(&recs[0]))
	bd2, _ := mapDoc(memo.idx.Mapping(), "record/b", recordDoc(&recs[0]))
	m := analysisMemo{}
	m.apply(bd1)
	m.apply(bd2)
	first := map[string]*memoised{}
	for _, f := range bd1.Fields {
		if g, ok := f.(*memoised); ok {
			first[f.Name()] = g
		}
	}
	shared := 0
	for _, f := range bd2.Fields {
		if g, ok := f.(*memoised); ok && first[f.Name()] != nil && len(g.freqs) > 0 && sameMap(g.freqs, first[f.Name()].freqs) {
			shared++
		}
	}
	if shared < 5 {
		t.Errorf("%d memoised fields shared between two documents of equal values, want the memo fields", shared)
	}
}

// sameMap reports whether a and b are one map, not two equal ones.
func sameMap(a, b index.TokenFrequencies) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}
