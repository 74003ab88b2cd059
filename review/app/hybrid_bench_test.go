package app_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// BenchmarkRetrieveHybrid: one retrieve (k = 5, env shop) on the bench
// bank (MEMREVIEW_BENCH_RECORDS, bench_test.go) once every record has an
// offline vector, ranked by BM25 alone and by hybrid ranking (the task
// embedded, the vector side searched, the lists fused), side by side in
// one process that owns the index:
//
//	MEMREVIEW_BENCH_RECORDS=100000 go test ./review/app -run '^$' -bench RetrieveHybrid -benchtime 400x -timeout 30m
func BenchmarkRetrieveHybrid(b *testing.B) {
	dir := benchBankDir(b)
	svc, err := app.Open(context.Background(), dir, app.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	start := time.Now()
	st, err := svc.WaitEmbeddings(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "bench bank: %s, embedded in %s\n", st, time.Since(start).Round(time.Millisecond))
	tasks := []string{"average price of electronics in dollars", "how many reviewed bluetooth gadgets", "join reviews to items by brand",
		"stars on the partner feed scale", "revenue per head by site"}
	for _, mode := range []struct {
		name string
		bm25 bool
	}{{"bm25", true}, {"hybrid", false}} {
		b.Run(mode.name, func(b *testing.B) {
			var d []time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				res, err := svc.RetrieveWith(context.Background(), app.RetrieveRequest{Task: tasks[i%len(tasks)], Scope: review.Scope{Env: "shop"},
					K: 5, Preview: true, BM25Only: mode.bm25})
				d = append(d, time.Since(t0))
				if err != nil || len(res.Records) == 0 {
					b.Fatalf("retrieve: %v (%d records)", err, len(res.Records))
				}
				if !mode.bm25 && res.Model == "" {
					b.Fatalf("hybrid retrieval used no vectors: %v", res.Notes)
				}
			}
			percentiles(b, d)
		})
	}
}
