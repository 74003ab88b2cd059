package index

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/sample/testenv"
)

// BenchmarkBuildTuned builds the index of a synthetic bank from a source
// in memory through Index.build, side by side with variants of the
// build's settings (MEMREVIEW_BENCH_N sets the size, 10,000 by default):
//
//	go test ./index/ -run '^$' -bench 'BuildTuned' -benchtime 1x -count 1
func BenchmarkBuildTuned(b *testing.B) {
	src, n := buildBenchSource()
	type variant struct {
		name           string
		batch, feeders int
		scorch         map[string]interface{}
	}
	for _, v := range []variant{
		{"batch=1000/feeders=2", 1000, 2, nil},
		{"batch=1000/feeders=3", 1000, 3, nil},
		{"batch=2000/feeders=2", 2000, 2, nil},
		{"batch=1000/feeders=2/no-memory-merge", 1000, 2, map[string]interface{}{
			"scorchPersisterOptions": map[string]interface{}{"MemoryPressurePauseThreshold": 0}}},
		{"batch=1000/feeders=2/no-file-merge", 1000, 2, map[string]interface{}{
			"scorchMergePlanOptions": map[string]interface{}{"MaxSegmentsPerTier": 10000, "SegmentsPerMergeTask": 10000}}},
	} {
		b.Run(fmt.Sprintf("n=%d/%s", n, v.name), func(b *testing.B) {
			cpu0 := testenv.CPUTime()
			stop := watchHeap()
			for b.Loop() {
				ix := &Index{dir: filepath.Join(b.TempDir(), "index"), src: src, tune: Tuning{Build: BuildTuning{Batch: v.batch, Feeders: v.feeders, Scorch: v.scorch}}}
				idx, err := ix.build(ix.dir)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if got, err := idx.DocCount(); err != nil || got != uint64(n) {
					b.Fatalf("DocCount = %d, %v; want %d", got, err, n)
				}
				size := dirSize(ix.dir)
				idx.Close()
				b.StartTimer()
				b.ReportMetric(float64(size)/(1<<20), "index-MB")
			}
			reportBuild(b, n, cpu0, stop)
		})
	}
}
