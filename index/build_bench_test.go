package index

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

// buildBenchSource is the build benchmarks' bank in memory: MEMREVIEW_BENCH_N
// synthetic records (10,000 when unset).
func buildBenchSource() (*fakeSource, int) {
	n := 10_000
	if v := os.Getenv("MEMREVIEW_BENCH_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	src := newFake()
	src.putRecord(sample.SynthRecords(n, benchSeed)...)
	return src, n
}

// reportBuild reports a build benchmark's records/s, CPU seconds per
// build since cpu0 and peak heap (stop, from watchHeap).
func reportBuild(b *testing.B, n int, cpu0 time.Duration, stop func() uint64) {
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric((testenv.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
}

// BenchmarkBuild builds the index of a synthetic bank from a source in
// memory (so only the index's work is timed), with and without unsafe
// batches, side by side (MEMREVIEW_BENCH_N sets the size; the variants
// with the version-1 mapping went with its frozen copy, see git history). It reports wall time, CPU seconds (steadier than wall
// time on a loaded machine), peak heap and index size:
//
//	go test ./index/ -run '^$' -bench 'Build$' -benchtime 1x -count 1
func BenchmarkBuild(b *testing.B) {
	src, n := buildBenchSource()
	type variant struct {
		unsafe      bool
		feeders, gc int
	}
	// unsafe=false/gc=100 is the build before unsafe batches, and
	// unsafe=true/gc=100 the build now; gc sets GOGC for the run (a higher
	// one cut the CPU but raised the peak heap too far to adopt).
	for _, v := range []variant{{false, 2, 100}, {true, 2, 100}, {true, 2, 200}} {
		name := fmt.Sprintf("unsafe=%v/gc=%d", v.unsafe, v.gc)
		b.Run(fmt.Sprintf("n=%d/build=%s/feeders=%d", n, name, v.feeders), func(b *testing.B) {
			defer debug.SetGCPercent(debug.SetGCPercent(v.gc))
			cpu0 := testenv.CPUTime()
			stop := watchHeap()
			for i := 0; b.Loop(); i++ {
				ix := &Index{dir: filepath.Join(b.TempDir(), "index"), src: src, tune: Tuning{Build: BuildTuning{Feeders: v.feeders, Safe: !v.unsafe}}}
				idx, err := ix.build(ix.dir)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				size := dirSize(ix.dir)
				idx.Close()
				b.StartTimer()
				b.ReportMetric(float64(size)/(1<<20), "index-MB")
			}
			reportBuild(b, n, cpu0, stop)
		})
	}
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

// watchHeap samples the heap (in use plus not yet collected) every 20 ms
// until the function it returns is called, which gives the peak in bytes.
func watchHeap() (stop func() uint64) {
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var peakSoFar uint64
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&m)
			peakSoFar = max(peakSoFar, m.HeapAlloc)
			select {
			case <-done:
				peak <- peakSoFar
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-peak }
}
