package sample

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSynth writes a synthetic bank of MEMREVIEW_BENCH_N records
// (10,000 by default) and N/100 trajectories, as `memreview sample gen`
// does before it indexes:
//
//	go test ./sample/ -run '^$' -bench Synth -benchtime 1x
func BenchmarkSynth(b *testing.B) {
	n := 10_000
	if os.Getenv("MEMREVIEW_BENCH_N") != "" {
		fmt.Sscan(os.Getenv("MEMREVIEW_BENCH_N"), &n)
	}
	for b.Loop() {
		if err := Synth(filepath.Join(b.TempDir(), "bank"), SynthOptions{Records: n, Trajectories: n / 100, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}
