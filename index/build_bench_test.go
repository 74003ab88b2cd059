package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/sample"
)

// BenchmarkBuild builds the index of a synthetic bank from a source in
// memory (so only the index's work is timed): the version-1 mapping with
// one feeding goroutine (before issue 16), the version-2 mapping with one
// and with two, side by side (MEMREVIEW_BENCH_N sets the size):
//
//	go test ./index/ -run '^$' -bench 'Build$' -benchtime 1x -count 3
func BenchmarkBuild(b *testing.B) {
	n := 10_000
	if os.Getenv("MEMREVIEW_BENCH_N") != "" {
		fmt.Sscan(os.Getenv("MEMREVIEW_BENCH_N"), &n)
	}
	src := newFake()
	src.putRecord(sample.SynthRecords(n, benchSeed)...)
	// The version-1 mapping with one feeder: the build before issue 16.
	b.Run(fmt.Sprintf("n=%d/mapping=v1/feeders=1", n), func(b *testing.B) {
		for b.Loop() {
			ix := buildV1(b, src)
			b.StopTimer()
			b.ReportMetric(float64(dirSize(ix.dir))/(1<<20), "index-MB")
			ix.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
	})
	for _, feeders := range []int{1, 2} {
		b.Run(fmt.Sprintf("n=%d/mapping=v2/feeders=%d", n, feeders), func(b *testing.B) {
			defer func(f int) { buildFeeders = f }(buildFeeders)
			buildFeeders = feeders
			for i := 0; b.Loop(); i++ {
				ix := &Index{dir: filepath.Join(b.TempDir(), "index"), src: src}
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
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
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
