package index

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/sample/testenv"
)

// leanMapping is today's mapping (schema.New) with some of its costs
// left out, to measure what each would save (BenchmarkBuildMapping):
// every one changes what some request answers, so none is the mapping.
type leanMapping struct {
	keywordNoNorms bool // keyword fields without frequencies and norms (SkipFreqNorm): keyword terms score alike
	textNotStored  bool // text fields not stored: fragments would have to be made from the bank's text
	rangesNoTerms  bool // numeric and date fields as doc values only: no range queries without another path
}

func (l leanMapping) build() (mapping.IndexMapping, error) {
	m, err := schema.New()
	if err != nil {
		return nil, err
	}
	dm := m.(*mapping.IndexMappingImpl).DefaultMapping
	for name, p := range dm.Properties {
		for _, fm := range p.Fields {
			switch {
			case l.keywordNoNorms && slices.Contains(schema.KeywordFields, name):
				fm.SkipFreqNorm = true
			case l.textNotStored && slices.Contains(schema.AllTextFields, name):
				fm.Store = false
			case l.rangesNoTerms && (slices.Contains(schema.NumericFields, name) || slices.Contains(schema.DateFields, name)):
				fm.Index = false
			}
		}
	}
	return m, nil
}

// BenchmarkBuildMapping builds the index of a synthetic bank from a source
// in memory under today's mapping and under leaner ones beside it, each
// leaving out one cost (leanMapping), through the build's own fill (two
// feeders, unsafe batches); MEMREVIEW_BENCH_N sets the size (10,000 by
// default):
//
//	MEMREVIEW_BENCH_N=100000 go test ./index/ -run '^$' -bench 'BuildMapping' -benchtime 1x -count 1 -timeout 30m
func BenchmarkBuildMapping(b *testing.B) {
	src, n := buildBenchSource()
	for _, v := range []struct {
		name string
		lean leanMapping
	}{
		{"today", leanMapping{}},
		{"keyword-no-norms", leanMapping{keywordNoNorms: true}},
		{"text-not-stored", leanMapping{textNotStored: true}},
		{"ranges-doc-values-only", leanMapping{rangesNoTerms: true}},
		{"all-three", leanMapping{true, true, true}},
	} {
		b.Run(fmt.Sprintf("n=%d/mapping=%s", n, v.name), func(b *testing.B) {
			cpu0 := testenv.CPUTime()
			stop := watchHeap()
			for b.Loop() {
				dir := filepath.Join(b.TempDir(), "index")
				m, err := v.lean.build()
				if err != nil {
					b.Fatal(err)
				}
				idx, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, map[string]interface{}{"unsafe_batch": true})
				if err != nil {
					b.Fatal(err)
				}
				if err := fill(batchWriter{idx: idx, unsafe: true}, src, BuildTuning{}, func(int, int) {}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				idx.Close()
				b.ReportMetric(float64(dirSize(dir))/(1<<20), "index-MB")
				b.StartTimer()
			}
			reportBuild(b, n, cpu0, stop)
		})
	}
}
