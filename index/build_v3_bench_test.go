package index

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// v2Writer writes a build as mapping version 2 did: bleve's own mapping of
// each document, with its composite "_all" (positions included).
type v2Writer struct{ batchWriter }

func (w v2Writer) writeChunk(c chunk) error {
	b := w.idx.NewBatch()
	if err := eachDoc(c, func(id string, d doc) error { return b.Index(id, d) }); err != nil {
		return err
	}
	return w.idx.Batch(b)
}

// BenchmarkBuildV3 builds the index of a synthetic bank from a source in
// memory, the version-2 mapping ("_all" with positions) against the
// version-3 one, both through fill with two feeders and unsafe batches,
// side by side (MEMREVIEW_BENCH_N sets the size, 10,000 by default):
//
//	go test ./index/ -run '^$' -bench 'BuildV3' -benchtime 1x -count 1
func BenchmarkBuildV3(b *testing.B) {
	src, n := buildBenchSource()
	for _, v := range []string{"v2", "v3"} {
		b.Run(fmt.Sprintf("n=%d/mapping=%s", n, v), func(b *testing.B) {
			cpu0 := cpuTime()
			stop := watchHeap()
			for b.Loop() {
				dir := filepath.Join(b.TempDir(), "index")
				var idx bleve.Index
				var err error
				var w chunkWriter
				if v == "v2" {
					m, merr := mappingV2()
					if merr != nil {
						b.Fatal(merr)
					}
					idx, err = bleve.NewUsing(dir, m, scorch.Name, scorch.Name, map[string]interface{}{"unsafe_batch": true})
					w = v2Writer{batchWriter{idx: idx, unsafe: true}}
				} else {
					m, merr := newMapping()
					if merr != nil {
						b.Fatal(merr)
					}
					idx, err = bleve.NewUsing(dir, m, scorch.Name, scorch.Name, map[string]interface{}{"unsafe_batch": true})
					w = batchWriter{idx: idx, unsafe: true}
				}
				if err != nil {
					b.Fatal(err)
				}
				if err := fill(w, src, buildFeeders, func(int, int) {}); err != nil {
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
