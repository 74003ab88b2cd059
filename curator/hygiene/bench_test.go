package hygiene

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// benchSizes are the bank sizes of BenchmarkHygiene: 10,000 and 100,000,
// or MEMREVIEW_BENCH_SIZES (comma-separated, e.g. "100000,1000000").
func benchSizes(b *testing.B) []int {
	v := os.Getenv("MEMREVIEW_BENCH_SIZES")
	if v == "" {
		return []int{10000, 100000}
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("MEMREVIEW_BENCH_SIZES: %q is not a size", f)
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkHygiene runs every kind over n synthetic records (in memory, as
// Load hands them over) and reports the heap it peaked at, the findings of
// each kind and the records of the largest contradiction group.
// peak-heap-MB is the most HeapInuse above its level before the run
// (garbage not yet collected included: it moves with GOGC and
// GOMEMLIMIT); peak-live-MB the most heap the last GC found live (what
// the run holds, the input included).
//
// MEMREVIEW_BENCH_HEAPPROF=FILE writes a heap profile to FILE each time the
// heap grows a tenth past its peak so far: what it holds near its peak.
func BenchmarkHygiene(b *testing.B) {
	prof := os.Getenv("MEMREVIEW_BENCH_HEAPPROF")
	for _, n := range benchSizes(b) {
		recs := sample.SynthRecords(n, 1)
		// Active and in id order, as Load hands them over: Run would copy
		// them otherwise (a third of a gigabyte at a million).
		recs = slices.DeleteFunc(recs, func(r review.Record) bool { return r.Status != review.Active })
		slices.SortFunc(recs, func(a, b review.Record) int { return strings.Compare(a.ID, b.ID) })
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var rep *Report
			var peak, liveMax, profiled uint64
			live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
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
							metrics.Read(live)
							l := live[0].Value.Uint64()
							if l > profiled+profiled/10 && prof != "" {
								writeHeapProfile(b, prof) // what the heap holds near its peak
								profiled = l
							}
							liveMax = max(liveMax, l)
						}
					}
				}()
				var err error
				rep, err = Run(context.Background(), Input{Records: recs, Now: time.Now()}, Options{})
				close(done)
				if err != nil {
					b.Fatal(err)
				}
			}
			kinds := map[Kind]int{}
			largest := 0
			for _, f := range rep.Findings {
				kinds[f.Kind]++
				if f.Kind == Contradictions {
					largest = max(largest, len(f.Records))
				}
			}
			b.ReportMetric(float64(len(rep.Findings)), "findings")
			b.ReportMetric(float64(kinds[Duplicates]), "merges")
			b.ReportMetric(float64(kinds[Contradictions]), "contra-groups")
			b.ReportMetric(float64(largest), "largest-group")
			b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
			b.ReportMetric(float64(liveMax)/1e6, "peak-live-MB")
		})
	}
}

// writeHeapProfile writes the heap profile to path.
func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}
