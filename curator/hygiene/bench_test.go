package hygiene

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/memreview/memreview/sample"
)

// BenchmarkHygiene runs every kind over n synthetic records (in memory, as
// Load hands them over) and reports the heap it peaked at.
func BenchmarkHygiene(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		recs := sample.SynthRecords(n, 1)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var findings int
			var peak uint64
			for range b.N {
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				done := make(chan struct{})
				go func() {
					var m runtime.MemStats
					for {
						select {
						case <-done:
							return
						case <-time.After(20 * time.Millisecond):
							runtime.ReadMemStats(&m)
							peak = max(peak, m.HeapInuse-min(m.HeapInuse, before.HeapInuse))
						}
					}
				}()
				rep, err := Run(context.Background(), Input{Records: recs, Now: time.Now()}, Options{})
				close(done)
				if err != nil {
					b.Fatal(err)
				}
				findings = len(rep.Findings)
			}
			b.ReportMetric(float64(findings), "findings")
			b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
		})
	}
}
