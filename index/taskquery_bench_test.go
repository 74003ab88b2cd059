package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// BenchmarkRetrieveRepeatedWords: a retrieval whose task repeats words
// (issue 23 item 19), today's task query (taskQuery: each distinct term
// once) against bleve's match query of the whole text (one term searcher
// per word, as Retrieve built it before), side by side on one index of
// $MEMREVIEW_BENCH_RECORDS records (default 50,000). Both run the rest of
// Retrieve's request: the active-records filter and the pool of 50,
// without the time limit (the match query runs past it).
func BenchmarkRetrieveRepeatedWords(b *testing.B) {
	n := 50_000
	if v, err := strconv.Atoi(os.Getenv("MEMREVIEW_BENCH_RECORDS")); err == nil && v > 0 {
		n = v
	}
	start := time.Now()
	ix, err := Open(filepath.Join(b.TempDir(), "index"), benchBank(n))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	b.Logf("indexed %d records in %v", n, time.Since(start))
	tasks := []struct{ name, text string }{
		{"plain", "count distinct customers per region"},
		{"one-word-x1000", strings.Repeat("reviews ", 1000)},
		{"one-word-x4000", strings.Repeat("reviews ", 4000)},
		{"two-words-x2000", strings.Repeat("reviews items ", 2000)},
	}
	run := func(b *testing.B, q query.Query) {
		bq := query.NewBooleanQuery([]query.Query{q}, nil, nil)
		bq.AddFilter(query.NewConjunctionQuery([]query.Query{keywordTerm("type", "record"), keywordTerm("status", string(review.Active))}))
		sr := bleve.NewSearchRequestOptions(bq, 50, 0, false) // plan.Retrieve's pool
		sr.SortBy([]string{"-_score", "-priority", "_id"})
		for b.Loop() {
			ix.mu.RLock()
			res, err := plan.SearchWithin(ix.idx, sr, time.Hour) // the match query runs past SearchLimit
			ix.mu.RUnlock()
			if err != nil {
				b.Fatal(err)
			}
			if res.Total == 0 {
				b.Fatal("found nothing")
			}
		}
	}
	for _, task := range tasks {
		b.Run(fmt.Sprintf("%s/taskQuery", task.name), func(b *testing.B) { run(b, schema.TaskQuery(task.text)) })
		b.Run(fmt.Sprintf("%s/matchQuery", task.name), func(b *testing.B) {
			mq := query.NewMatchQuery(task.text)
			mq.SetField(schema.AllField)
			run(b, mq)
		})
	}
	b.Run("Retrieve/one-word-x4000", func(b *testing.B) {
		for b.Loop() {
			if got, err := ix.Retrieve(tasks[2].text, review.Scope{Env: "shop"}, 5); err != nil || len(got) == 0 {
				b.Fatalf("retrieve: %v, %v", got, err)
			}
		}
	})
}

// keywordTerm matches a keyword field exactly, as index/plan's filters do.
func keywordTerm(field, value string) query.Query {
	tq := query.NewTermQuery(strings.ToLower(value))
	tq.SetField(field)
	return tq
}
