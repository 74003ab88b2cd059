package bank

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/sample/testenv"
)

// BenchmarkBankRequests compares, side by side on one large bank, what the
// bank screen asks for now against what it asked before this change:
//
//		MEMREVIEW_BENCH_BANK=/path/to/bank go test ./ui/bank/ -run '^$' -bench BankRequests -benchtime 5x
//
//	  - blank/before: the blank list of active records as one index request
//	    sorted by id with facets; blank/now: the same page through
//	    ServiceSource (the store's primary key and the index's term counts),
//	    and its facets from the term counts (estimateFacets) in a second
//	    request.
//	  - <query>/before: a typed query's first page sorted by score then id,
//	    with facets and highlights; <query>/now: sorted by score, with
//	    highlights (what the rows wait for); <query>/facets: the facet
//	    request that follows the rows.
//
// first-ms is the first request of each (facets not cached yet: the index
// caches them per contents); ms/op the mean of all.
func BenchmarkBankRequests(b *testing.B) {
	dir := testenv.BenchBank(b, "that `memreview sample gen` wrote")
	svc, err := app.Open(context.Background(), dir, app.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	if err := svc.HoldIndex(3 * time.Second); err != nil {
		b.Fatal(err)
	}
	src := ServiceSource{Service: svc}
	act := map[string][]string{"status": {string(review.Active)}}
	type step struct {
		name string
		reqs []app.SearchRequest
	}
	steps := []step{
		{"blank/before", []app.SearchRequest{{Type: "record", Filters: act, Sort: []string{"_id"}, Size: pageSize, Facets: facetFields, Highlight: true}}},
		{"blank/now", []app.SearchRequest{{Type: "record", Filters: act, Sort: []string{"_id"}, Size: pageSize}, {Type: "record", Sort: []string{"_id"}, Size: 1, Facets: facetFields}}},
		{"blank/now-page", []app.SearchRequest{{Type: "record", Filters: act, Sort: []string{"_id"}, Size: pageSize}}},
	}
	for _, q := range []string{"join", "join price", "schema"} {
		rq := app.QueryAsRead(q)
		steps = append(steps,
			step{q + "/before", []app.SearchRequest{{Query: rq, Type: "record", Filters: act, Sort: []string{"-_score", "_id"}, Size: pageSize, Facets: facetFields, Highlight: true}}},
			step{q + "/now", []app.SearchRequest{{Query: rq, Type: "record", Filters: act, Sort: sortFor(q), Size: pageSize, Highlight: true}}},
			step{q + "/facets", []app.SearchRequest{{Query: rq, Type: "record", Filters: act, Size: 1, Facets: facetFields}}})
	}
	for _, s := range steps {
		b.Run(s.name, func(b *testing.B) {
			runtime.GC()
			first := time.Duration(0)
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				for _, r := range s.reqs {
					if _, err := src.Search(r); err != nil {
						b.Fatal(err)
					}
				}
				if i == 0 {
					first = time.Since(start)
				}
			}
			b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
		})
	}
}
