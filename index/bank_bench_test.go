package index

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample/testenv"
)

// BenchmarkSearchBank runs the comparison queries and the bank browser's
// blank first page on an existing bank, such as one `memreview sample gen
// --records 1000000 DIR` wrote, for the growth table; it reports the open
// (catch-up included) once, then p50/p99 per query run. Skipped unless
// MEMREVIEW_BENCH_BANK names the bank:
//
//	MEMREVIEW_BENCH_BANK=/tmp/g1m go test ./index/ -run '^$' -bench SearchBank -benchtime 240x
//
// MEMREVIEW_BENCH_RANK=N sets the rank bound (Results.Ranked) to N hits.
func BenchmarkSearchBank(b *testing.B) {
	// MEMREVIEW_BENCH_RANK=N ranks at most N hits instead of
	// plan.Tuning.RankOver's default (to compare bounds side by side).
	var tune Tuning
	if n, err := strconv.Atoi(os.Getenv("MEMREVIEW_BENCH_RANK")); err == nil && n > 0 {
		tune.Plan.RankOver = n
		b.Logf("rank bound %d", n)
	}
	start := time.Now()
	_, ix := openBenchBank(b, OpenOptions{Tuning: tune})
	b.Logf("open: %v", time.Since(start))
	blank := Request{Type: "record", Sort: []string{"_id"}, Size: 100, Highlight: true, Facets: []string{"category", "env", "status"}}
	search := func(b *testing.B, req Request) {
		if _, err := ix.Search(req); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("queries", func(b *testing.B) {
		runMix(b, func(k int) error {
			_, err := ix.Search(bleveRequest(cmpQueries[k]))
			return err
		}).report(b)
	})
	b.Run("blank-first-page", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var ds []time.Duration
		for b.Loop() {
			t := time.Now()
			search(b, blank)
			ds = append(ds, time.Since(t))
		}
		b.ReportMetric(float64(quantile(ds, 0.5)), "p50-ns")
		b.ReportMetric(float64(quantile(ds, 0.99)), "p99-ns")
	})
}

// openBenchBank opens the bank MEMREVIEW_BENCH_BANK names and its index
// (catching up), both closed when b ends; b skips without the variable.
func openBenchBank(b *testing.B, opts OpenOptions) (*store.Store, *Index) {
	b.Helper()
	dir := testenv.BenchBank(b, "to read")
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	ix, err := OpenWith(filepath.Join(dir, store.IndexDir), st, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return st, ix
}
