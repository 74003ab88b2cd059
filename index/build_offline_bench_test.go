package index

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/memreview/memreview/sample"
)

// BenchmarkBuildOffline builds the index of a synthetic bank from a source
// in memory through Index.build, side by side: the online build (bleve
// batches of 1,000 documents, two feeders, unsafe batches; the build
// before issue 16's third round) against the offline one (offlineWriter)
// with segment files of 1,000 and 10,000 documents (MEMREVIEW_BENCH_N
// sets the size, 10,000 by default):
//
//	go test ./index/ -run '^$' -bench 'BuildOffline' -benchtime 1x -count 1
func BenchmarkBuildOffline(b *testing.B) {
	n := 10_000
	if os.Getenv("MEMREVIEW_BENCH_N") != "" {
		fmt.Sscan(os.Getenv("MEMREVIEW_BENCH_N"), &n)
	}
	src := newFake()
	src.putRecord(sample.SynthRecords(n, benchSeed)...)
	type variant struct {
		name           string
		offline        bool
		batch, segment int
		gc             int
	}
	for _, v := range []variant{
		{"online/batch=1000/gc=100", false, 1000, 0, 100},
		{"online/batch=5000/gc=100", false, 5000, 0, 100},
		{"online/batch=1000/gc=300", false, 1000, 0, 300},
		{"offline/segment=10000/gc=300", true, 1000, 10000, 300},
	} {
		b.Run(fmt.Sprintf("n=%d/build=%s", n, v.name), func(b *testing.B) {
			defer func(o bool, s, c, g int) {
				buildOffline, builderSegment, buildBatch = o, s, c
				debug.SetGCPercent(g)
			}(buildOffline, builderSegment, buildBatch, debug.SetGCPercent(v.gc))
			buildOffline, buildBatch = v.offline, v.batch
			if v.segment > 0 {
				builderSegment = v.segment
			}
			cpu0 := cpuTime()
			stop := watchHeap()
			for b.Loop() {
				ix := &Index{dir: filepath.Join(b.TempDir(), "index"), src: src}
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
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
		})
	}
}
