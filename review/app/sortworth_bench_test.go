package app_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/sample/testenv"
)

// BenchmarkSortByWorth: what w on the bank screen costs over the whole
// bank of $MEMREVIEW_BENCH_BANK (read only), step by step as the screen
// takes them through the service: every hit of the blank query (ids only,
// the screen's maxSorted cap), every record's worth (WorthAll), the sort
// by lift (every-hit-sorted: what the screen did); SearchByWorth's first
// page, best and worst first (what it does now); beside them the screen's
// first page in the index's order (what the list shows without w).
//
//	MEMREVIEW_BENCH_BANK=DIR go test ./review/app/ -run '^$' -bench SortByWorth -benchtime 3x
func BenchmarkSortByWorth(b *testing.B) {
	dir := testenv.BenchBank(b, "to read")
	svc, err := app.Open(context.Background(), dir, app.Options{Operator: "bench", ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	b.Run("first-page", func(b *testing.B) {
		for range b.N {
			res, err := svc.Search(app.SearchRequest{Type: "record", Sort: []string{"_id"}, Size: 50})
			if err != nil || len(res.Hits) == 0 {
				b.Fatalf("%v, %v", res, err)
			}
		}
	})
	b.Run("search-by-worth", func(b *testing.B) {
		w, err := svc.WorthAll() // the screen reads it once per load, before w
		if err != nil {
			b.Fatal(err)
		}
		for range b.N {
			for _, worst := range []bool{false, true} {
				res, err := svc.SearchByWorth(app.SearchRequest{Type: "record", Size: 50}, w, worst)
				if err != nil || len(res.Hits) == 0 {
					b.Fatalf("%v, %v", res, err)
				}
			}
		}
		b.ReportMetric(float64(len(w)), "worth-entries")
		b.ReportMetric(0, "ns/op")
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(2*b.N), "ms/first-page")
	})
	b.Run("search-by-worth-middle", func(b *testing.B) { // a page halfway down (End on a long list lands further)
		w, err := svc.WorthAll()
		if err != nil {
			b.Fatal(err)
		}
		tot, err := svc.Search(app.SearchRequest{Type: "record", Size: 1, Exact: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			res, err := svc.SearchByWorth(app.SearchRequest{Type: "record", From: int(tot.Total) / 2, Size: 50}, w, false)
			if err != nil || len(res.Hits) == 0 {
				b.Fatalf("%v, %v", res, err)
			}
		}
		b.ReportMetric(0, "ns/op")
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/page")
	})
	b.Run("worth-all", func(b *testing.B) { // what the screen computes once per load, in the background
		for range b.N {
			if _, err := svc.WorthAll(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(0, "ns/op")
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	})
	b.Run("every-hit-sorted", func(b *testing.B) {
		var search, worth, sorting time.Duration
		hits := 0
		for range b.N {
			t0 := time.Now()
			res, err := svc.Search(app.SearchRequest{Type: "record", Sort: []string{"_id"}, Size: 1 << 20})
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			w, err := svc.WorthAll()
			if err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			hs := res.Hits
			sort.SliceStable(hs, func(i, j int) bool { // the order the screen sorted in before SearchByWorth, best first
				a, c := w[hs[i].ID], w[hs[j].ID]
				if la, lc := a.Lift(), c.Lift(); la != lc {
					return la > lc
				}
				if a.Retrieved != c.Retrieved {
					return a.Retrieved > c.Retrieved
				}
				return hs[i].ID < hs[j].ID
			})
			t3 := time.Now()
			search, worth, sorting = search+t1.Sub(t0), worth+t2.Sub(t1), sorting+t3.Sub(t2)
			hits = len(hs)
		}
		n := float64(b.N)
		b.ReportMetric(float64(hits), "hits")
		b.ReportMetric(search.Seconds()*1e3/n, "search-ms")
		b.ReportMetric(worth.Seconds()*1e3/n, "worth-ms")
		b.ReportMetric(sorting.Seconds()*1e3/n, "sort-ms")
	})
}
