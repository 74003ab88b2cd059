package index

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
)

// benchBank generates n records over a small vocabulary, so that terms
// repeat across many records as they do in a real bank.
func benchBank(n int) *fakeSource {
	words := []string{"reviews", "items", "orders", "customers", "join", "table", "column", "schema",
		"flight", "booking", "passenger", "refund", "cents", "dollars", "timestamp", "index",
		"duplicate", "aggregate", "count", "distinct", "filter", "date", "region", "warehouse"}
	cats := review.Categories
	envs := []string{"shop", "airline", "retail", "files", ""}
	src := newFake()
	recs := make([]review.Record, n)
	for i := range recs {
		w := func(k int) string { return words[(i*7+k*13+i/len(words))%len(words)] }
		recs[i] = review.Record{
			ID:         fmt.Sprintf("mem_%05d", i),
			Lemma:      fmt.Sprintf("When %s %s, check %s before %s the %s.", w(0), w(1), w(2), w(3), w(4)),
			Trigger:    fmt.Sprintf("tasks about %s and %s", w(5), w(6)),
			Category:   cats[i%len(cats)],
			Scope:      review.Scope{Env: envs[i%len(envs)], Tags: []string{fmt.Sprintf("g%d", i%10)}},
			Confidence: float64(i%100) / 100,
			Priority:   i % 4,
			Status:     review.Active,
			Created:    t0,
			Updated:    t0,
		}
	}
	src.putRecord(recs...)
	return src
}

// openBench builds an index of 10,000 records once per benchmark function
// (b.Loop runs the function body once).
func openBench(b *testing.B) *Index {
	b.Helper()
	src := benchBank(10_000)
	start := time.Now()
	ix, err := Open(filepath.Join(b.TempDir(), "index"), src)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("indexed 10,000 records in %v", time.Since(start))
	b.Cleanup(func() { ix.Close() })
	return ix
}

func BenchmarkSearch(b *testing.B) {
	ix := openBench(b)
	queries := []Request{
		{Query: "reviews join", Type: "record"},
		{Query: "category:fact +orders", Type: "record", Facets: []string{"category", "env", "status"}},
		{Query: `"check customers"`, Type: "record", Highlight: true},
		{Query: "confidence:>0.7 warehouse"},
	}
	for _, q := range queries {
		b.Run(q.Query, func(b *testing.B) {
			for b.Loop() {
				res, err := ix.Search(q)
				if err != nil {
					b.Fatal(err)
				}
				if res.Total == 0 {
					b.Fatalf("%q found nothing", q.Query)
				}
			}
		})
	}
	b.Run("retrieve", func(b *testing.B) {
		for b.Loop() {
			got, err := ix.Retrieve("count distinct customers per region", review.Scope{Env: "shop", Tags: []string{"g5"}}, 5)
			if err != nil {
				b.Fatal(err)
			}
			if len(got) == 0 {
				b.Fatal("retrieve found nothing")
			}
		}
	})
}
