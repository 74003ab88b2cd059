package app_test

// Benchmarks of one bank shared by several processes. The bank has
// MEMREVIEW_BENCH_RECORDS records (default 10,000; BENCHMARKS.md uses
// 100,000), generated once per run. Run with e.g.
//
//	MEMREVIEW_BENCH_RECORDS=100000 go test ./review/app -run '^$' -bench Shared -benchtime 400x

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
)

var benchBank struct {
	once sync.Once
	dir  string
	err  error
}

func benchBankDir(b *testing.B) string {
	b.Helper()
	benchBank.once.Do(func() {
		n := 10000
		if v, err := strconv.Atoi(os.Getenv("MEMREVIEW_BENCH_RECORDS")); err == nil && v > 0 {
			n = v
		}
		root, err := os.MkdirTemp("", "memreview-bench-")
		if err != nil {
			benchBank.err = err
			return
		}
		benchBank.dir = filepath.Join(root, "bank")
		start := time.Now()
		if benchBank.err = sample.Synth(benchBank.dir, sample.SynthOptions{Records: n, Trajectories: 50, Seed: sample.Seed}); benchBank.err != nil {
			return
		}
		svc, err := app.Open(context.Background(), benchBank.dir, app.Options{})
		if err != nil {
			benchBank.err = err
			return
		}
		_, benchBank.err = svc.IndexDocs()
		svc.Close()
		fmt.Fprintf(os.Stderr, "bench bank: %d records generated and indexed in %s\n", n, time.Since(start).Round(time.Millisecond))
	})
	if benchBank.err != nil {
		b.Fatal(benchBank.err)
	}
	return benchBank.dir
}

var benchQueries = []app.SearchRequest{
	{Query: "prices cents", Type: "record", Size: 10},
	{Query: "join reviews items", Type: "record", Size: 10},
	{Query: "category:warning schema", Type: "record", Size: 10},
	{Query: "brand", Type: "record", Size: 10, Facets: []string{"category", "env"}},
}

// percentiles reports p50 and p99 of d as benchmark metrics.
func percentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	at := func(p float64) float64 { return float64(d[min(len(d)-1, int(p*float64(len(d))))].Microseconds()) }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}

// BenchmarkSharedSearch: one search, timed in this process.
//   - in-process: this process owns the index (today's single-process
//     figure: a direct index.Search).
//   - procs=N: another process owns the index; this process searches
//     through it while N-1 more processes search flat out.
func BenchmarkSharedSearch(b *testing.B) {
	dir := benchBankDir(b)
	b.Run("in-process", func(b *testing.B) {
		svc, err := app.Open(context.Background(), dir, app.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer svc.Close()
		if err := svc.HoldIndex(5 * time.Second); err != nil {
			b.Fatal(err)
		}
		benchSearches(b, svc)
	})
	for _, procs := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			owner, out := startChild(b, "owner", dir, 0)
			if !out.Scan() || out.Text() != "ready" {
				b.Fatalf("owner not ready: %q", out.Text())
			}
			defer owner.Process.Kill()
			for range procs - 1 {
				c, _ := startChild(b, "search", dir, time.Hour)
				defer c.Process.Kill()
			}
			svc, err := app.Open(context.Background(), dir, app.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer svc.Close()
			benchSearches(b, svc)
		})
	}
}

func benchSearches(b *testing.B, svc *app.Service) {
	for _, q := range benchQueries { // warm
		if _, err := svc.Search(q); err != nil {
			b.Fatal(err)
		}
	}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		if _, err := svc.Search(benchQueries[i%len(benchQueries)]); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		i++
	}
	percentiles(b, lat)
}

// BenchmarkCommitToVisible: this process commits a new record straight to
// the store (as any writer process does) while another process owns the
// index; the time until a search finds it.
func BenchmarkCommitToVisible(b *testing.B) {
	dir := benchBankDir(b)
	owner, out := startChild(b, "owner", dir, 0)
	if !out.Scan() || out.Text() != "ready" {
		b.Fatalf("owner not ready: %q", out.Text())
	}
	defer owner.Process.Kill()
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc, err := app.Open(context.Background(), dir, app.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	var lat []time.Duration
	n := 0
	for b.Loop() {
		// Commit at a random moment of the owner's poll period.
		b.StopTimer()
		time.Sleep(time.Duration(rand.IntN(250)) * time.Millisecond)
		b.StartTimer()
		n++
		id := fmt.Sprintf("vis_%d_%06d", os.Getpid(), n)
		if err := st.PutRecords([]review.Record{{ID: id, Lemma: "visible yet?", Category: review.Fact, Confidence: 0.5}}, "bench", "visibility"); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for {
			res, err := svc.Search(app.SearchRequest{Query: "id:" + index.EscapeQuery(id), Type: "record", Size: 1})
			if err != nil {
				b.Fatal(err)
			}
			if res.Total == 1 {
				break
			}
			if time.Since(start) > 5*time.Second {
				b.Fatalf("%s not visible after 5 s", id)
			}
			time.Sleep(2 * time.Millisecond)
		}
		lat = append(lat, time.Since(start))
	}
	percentiles(b, lat)
}

// BenchmarkOpenPerOperation is the design not chosen: open the index for
// each search and close it again (what a process that holds it only for
// an operation pays), next to a search on an index held open.
func BenchmarkOpenPerOperation(b *testing.B) {
	dir := benchBankDir(b)
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		ix, err := index.Open(filepath.Join(dir, store.IndexDir), st)
		if err != nil {
			b.Fatal(err)
		}
		q := benchQueries[i%len(benchQueries)]
		if _, err := ix.Search(index.Request{Query: q.Query, Type: q.Type, Size: q.Size, Facets: q.Facets}); err != nil {
			b.Fatal(err)
		}
		ix.Close()
		lat = append(lat, time.Since(start))
		i++
	}
	percentiles(b, lat)
}
