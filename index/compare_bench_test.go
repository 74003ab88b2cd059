package index

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
)

// cmpQuery is one query of the side-by-side search benchmark, written once
// and translated for each engine. Every part must hold for a hit.
type cmpQuery struct {
	name    string
	terms   []string // words, each required
	phrase  string   // an exact phrase
	field   string   // a keyword field ("category", "env", "tags") …
	value   string   // … and the value it must have
	minConf float64  // confidence above this
	facets  bool     // count category, env and status over all hits
}

// cmpQueries are the queries every engine runs: single terms, several
// terms, field filters, phrases and facet requests over the synthetic
// bank's vocabulary.
var cmpQueries = []cmpQuery{
	{name: "term/warranty_months", terms: []string{"warranty_months"}},
	{name: "term/coalesce", terms: []string{"coalesce"}},
	{name: "term/bookings", terms: []string{"bookings"}},
	{name: "term/renamed", terms: []string{"renamed"}},
	{name: "term/refreshed", terms: []string{"refreshed"}},
	{name: "term/join", terms: []string{"join"}},
	{name: "terms/coalesce+helpful_votes", terms: []string{"coalesce", "helpful_votes"}},
	{name: "terms/minimum+count+brands", terms: []string{"minimum", "count", "brands"}},
	{name: "terms/stored+cents", terms: []string{"stored", "cents"}},
	{name: "terms/flights+delay_min", terms: []string{"flights", "delay_min"}},
	{name: "terms/revenue+head+site", terms: []string{"revenue", "head"}},
	{name: "terms/join+fdbk_g1+items_g1", terms: []string{"join", "fdbk_g1", "items_g1"}},
	{name: "field/category=warning+null", terms: []string{"null"}, field: "category", value: "warning"},
	{name: "field/env=airline+fares", terms: []string{"fares"}, field: "env", value: "airline"},
	{name: "field/tags=g2+stars", terms: []string{"stars"}, field: "tags", value: "g2"},
	{name: "field/env=docs", field: "env", value: "docs"},
	{name: "field/confidence>0.9+join", terms: []string{"join"}, minConf: 0.9},
	{name: "phrase/one-row-per", phrase: "one row per"},
	{name: "phrase/never-null", phrase: "is never null"},
	{name: "phrase/recompute-from", phrase: "recompute from", field: "env", value: "shop"},
	{name: "facets/join", terms: []string{"join"}, facets: true},
	{name: "facets/price_cents", terms: []string{"price_cents"}, facets: true},
	{name: "facets/category=procedure", field: "category", value: "procedure", facets: true},
	{name: "facets/schema_migrations+renamed", terms: []string{"schema_migrations", "renamed"}, facets: true},
}

// cmpFacets are the fields a facet request counts.
var cmpFacets = []string{"category", "env", "status"}

// cmpHits is how many hits each engine returns, best first.
const cmpHits = 20

// requiredParts is q's terms, phrase and confidence bound, each required,
// in Bleve's query-string syntax.
func requiredParts(q cmpQuery) []string {
	var parts []string
	for _, t := range q.terms {
		parts = append(parts, "+"+t)
	}
	if q.phrase != "" {
		parts = append(parts, `+"`+q.phrase+`"`)
	}
	if q.minConf > 0 {
		parts = append(parts, fmt.Sprintf("+confidence:>%g", q.minConf))
	}
	return parts
}

// bleveRequest is q for index.Search: required terms and phrase in the
// query string, the keyword field as a filter.
func bleveRequest(q cmpQuery) Request {
	req := Request{Query: strings.Join(requiredParts(q), " "), Type: "record", Size: cmpHits}
	if q.field != "" {
		req.Filters = map[string][]string{q.field: {q.value}}
	}
	if q.facets {
		req.Facets = cmpFacets
	}
	return req
}

// ftsQuery is q for FTS5: a MATCH expression (terms, phrase and the
// keyword field as a column filter, all ANDed) and the extra WHERE clause
// for the numeric condition.
func ftsQuery(q cmpQuery) (match, where string, args []any) {
	var parts []string
	for _, t := range q.terms {
		parts = append(parts, `"`+t+`"`)
	}
	if q.phrase != "" {
		parts = append(parts, `"`+q.phrase+`"`)
	}
	if q.field != "" {
		parts = append(parts, q.field+`:"`+q.value+`"`)
	}
	match = strings.Join(parts, " AND ")
	if q.minConf > 0 {
		where, args = " AND confidence > ?", []any{q.minConf}
	}
	return match, where, args
}

// searchFTS runs q against the FTS5 table: the best cmpHits by bm25, and
// for a facet request the counts over every hit.
func searchFTS(db *sql.DB, q cmpQuery) (int, error) {
	match, where, args := ftsQuery(q)
	rows, err := db.Query(`SELECT id FROM recs WHERE recs MATCH ?`+where+` ORDER BY bm25(recs) LIMIT ?`,
		append(append([]any{match}, args...), cmpHits)...)
	if err != nil {
		return 0, fmt.Errorf("fts5 %q: %w", match, err)
	}
	hits := 0
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		hits++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if q.facets {
		rows, err := db.Query(`SELECT category, env, status FROM recs WHERE recs MATCH ?`+where, append([]any{match}, args...)...)
		if err != nil {
			return 0, err
		}
		counts := map[string]map[string]int{"category": {}, "env": {}, "status": {}}
		for rows.Next() {
			var c, e, s string
			if err := rows.Scan(&c, &e, &s); err != nil {
				rows.Close()
				return 0, err
			}
			counts["category"][c]++
			counts["env"][e]++
			counts["status"][s]++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, err
		}
	}
	return hits, nil
}

// searchScan runs q over the records in memory: lower-cased substring
// matching, scored by how often the words occur, the best cmpHits kept;
// it returns the number of matches.
func searchScan(docs []scanDoc, q cmpQuery) (int, []string) {
	terms := make([]string, len(q.terms))
	for i, t := range q.terms {
		terms[i] = strings.ToLower(t)
	}
	phrase := strings.ToLower(q.phrase)
	tag := " " + strings.ToLower(q.value) + " "
	type scored struct {
		i     int
		score int
	}
	var top []scored
	var facets map[string]map[string]int
	if q.facets {
		facets = map[string]map[string]int{"category": {}, "env": {}, "status": {}}
	}
	total := 0
docs:
	for i := range docs {
		d := &docs[i]
		switch q.field {
		case "category":
			if d.category != q.value {
				continue
			}
		case "env":
			if d.env != q.value {
				continue
			}
		case "tags":
			if !strings.Contains(d.tags, tag) {
				continue
			}
		}
		if q.minConf > 0 && d.confidence <= q.minConf {
			continue
		}
		if phrase != "" && !strings.Contains(d.text, phrase) {
			continue
		}
		score := 1
		for _, t := range terms {
			n := strings.Count(d.text, t)
			if n == 0 {
				continue docs
			}
			score += n
		}
		total++
		if facets != nil {
			facets["category"][d.category]++
			facets["env"][d.env]++
			facets["status"][d.status]++
		}
		if len(top) == cmpHits && score <= top[len(top)-1].score {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, score, func(s scored, score int) int {
			if s.score >= score {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, at, scored{i, score})
		if len(top) > cmpHits {
			top = top[:cmpHits]
		}
	}
	ids := make([]string, len(top))
	for i, s := range top {
		ids[i] = docs[s.i].id
	}
	return total, ids
}

// latencies collects per-query latencies and reports their quantiles.
type latencies struct {
	all, noFacets []time.Duration
	byQuery       map[string][]time.Duration
	cpu           []time.Duration // each query's own CPU time (timeQuery)
	cpuByQuery    map[string][]time.Duration
}

// timeQuery runs f and adds its wall time and the CPU time of the calling
// thread (the caller locks its goroutine to the thread) to l.
func (l *latencies) timeQuery(q cmpQuery, f func()) {
	c0 := threadCPU()
	start := time.Now()
	f()
	d := time.Since(start)
	cpu := threadCPU() - c0
	l.cpu = append(l.cpu, cpu)
	if l.cpuByQuery == nil {
		l.cpuByQuery = map[string][]time.Duration{}
	}
	l.cpuByQuery[q.name] = append(l.cpuByQuery[q.name], cpu)
	l.add(q, d)
}

func (l *latencies) add(q cmpQuery, d time.Duration) {
	name := q.name
	l.all = append(l.all, d)
	if !q.facets {
		l.noFacets = append(l.noFacets, d)
	}
	if l.byQuery == nil {
		l.byQuery = map[string][]time.Duration{}
	}
	l.byQuery[name] = append(l.byQuery[name], d)
}

// runMix runs the comparison queries in turn, one a b.Loop iteration,
// query(k) running cmpQueries[k] on the calling goroutine locked to its
// thread (timeQuery measures the thread's CPU), and returns their
// latencies.
func runMix(b *testing.B, query func(k int) error) *latencies {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var lat latencies
	for i := 0; b.Loop(); i++ {
		k := i % len(cmpQueries)
		lat.timeQuery(cmpQueries[k], func() {
			if err := query(k); err != nil {
				b.Fatal(err)
			}
		})
	}
	return &lat
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// report adds p50-ns and p99-ns over every query run, p99-nofacet-ns over
// the queries without a facet request, and logs each query's median.
func (l *latencies) report(b *testing.B) {
	b.ReportMetric(float64(quantile(l.all, 0.5)), "p50-ns")
	b.ReportMetric(float64(quantile(l.all, 0.99)), "p99-ns")
	b.ReportMetric(float64(quantile(l.noFacets, 0.99)), "p99-nofacet-ns")
	if len(l.cpu) > 0 {
		b.ReportMetric(float64(quantile(l.cpu, 0.5)), "p50-cpu-ns")
		b.ReportMetric(float64(quantile(l.cpu, 0.99)), "p99-cpu-ns")
	}
	var per, perCPU []string
	for _, q := range cmpQueries {
		per = append(per, fmt.Sprintf("%s=%v", q.name, quantile(l.byQuery[q.name], 0.5).Round(time.Microsecond)))
		perCPU = append(perCPU, fmt.Sprintf("%s=%v", q.name, quantile(l.cpuByQuery[q.name], 0.5).Round(time.Microsecond)))
	}
	b.Logf("per-query p50 over %d runs: %s", len(l.all), strings.Join(per, " "))
	if len(l.cpu) > 0 {
		b.Logf("per-query p50 cpu: %s", strings.Join(perCPU, " "))
	}
}

// BenchmarkSearchCompare runs the same queries through the Bleve index,
// SQLite FTS5 (bm25) and a plain in-memory scan, over the same synthetic
// bank at 10,000 and 100,000 records. Each iteration is one query, the
// queries taken in turn; p50-ns and p99-ns are over all of them.
//
//	go test ./index/ -run '^$' -bench 'SearchCompare' -count 5 -timeout 60m
func BenchmarkSearchCompare(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		// engine=bleve is Search as the program calls it: the facets of a
		// request seen before come from the cache (every facet request
		// repeats here, every 24 queries). engine=bleve-nocache counts
		// them every time: what the first request of each kind costs.
		for _, cached := range []bool{true, false} {
			name := "bleve"
			if !cached {
				name = "bleve-nocache"
			}
			b.Run(fmt.Sprintf("n=%d/engine=%s", n, name), func(b *testing.B) {
				ix := corpus(b, n).index(b)
				reqs := make([]Request, len(cmpQueries))
				for i, q := range cmpQueries {
					reqs[i] = bleveRequest(q)
					res, err := ix.search(reqs[i], plan.Options{Cache: cached}) // warm and check
					if err != nil {
						b.Fatal(err)
					}
					if res.Total == 0 {
						b.Fatalf("%s: bleve found nothing for %q", q.name, reqs[i].Query)
					}
					if cached {
						checkCachedFacets(b, ix, reqs[i])
					}
				}
				runMix(b, func(k int) error {
					_, err := ix.search(reqs[k], plan.Options{Cache: cached})
					return err
				}).report(b)
			})
		}
		b.Run(fmt.Sprintf("n=%d/engine=fts5", n), func(b *testing.B) {
			db := corpus(b, n).fts
			for _, q := range cmpQueries {
				hits, err := searchFTS(db, q)
				if err != nil {
					b.Fatal(err)
				}
				if hits == 0 {
					b.Fatalf("%s: fts5 found nothing", q.name)
				}
			}
			runMix(b, func(k int) error {
				_, err := searchFTS(db, cmpQueries[k])
				return err
			}).report(b)
		})
		b.Run(fmt.Sprintf("n=%d/engine=scan", n), func(b *testing.B) {
			docs := corpus(b, n).scan
			for _, q := range cmpQueries {
				if total, _ := searchScan(docs, q); total == 0 {
					b.Fatalf("%s: scan found nothing", q.name)
				}
			}
			var lat latencies
			i := 0
			for b.Loop() {
				k := i % len(cmpQueries)
				start := time.Now()
				searchScan(docs, cmpQueries[k])
				lat.add(cmpQueries[k], time.Since(start))
				i++
			}
			lat.report(b)
		})
	}
}

// BenchmarkBrowserPage runs, through the Bleve index only, the requests
// the bank browser (ui/bank) sends at 100,000 records: the first page of a
// blank query (all records by id, with facets and highlighting), the first
// page of a query (best first then by id, facets, highlighting), later
// pages (no facets), 100 hits a page. The "-sort", "-facets" and
// "-highlight" variants of a first page leave that part out, to show what
// each costs.
//
//	go test ./index/ -run '^$' -bench 'BrowserPage' -count 5 -timeout 30m
func BenchmarkBrowserPage(b *testing.B) {
	facets := []string{"category", "env", "status"}
	type page struct {
		name string
		req  Request
	}
	pages := []page{
		{"blank/page=3", Request{Type: "record", Sort: []string{"_id"}, From: 300, Size: 100, Highlight: true}},
		{"query=join/page=3", Request{Query: "join", Type: "record", Sort: []string{"-_score", "_id"}, From: 300, Size: 100, Highlight: true}},
		{"query=coalesce-helpful_votes/page=0", Request{Query: "coalesce helpful_votes", Type: "record", Sort: []string{"-_score", "_id"}, Size: 100, Highlight: true, Facets: facets}},
	}
	for _, first := range []page{
		{"blank/page=0", Request{Type: "record", Sort: []string{"_id"}, Size: 100, Highlight: true, Facets: facets}},
		{"query=join/page=0", Request{Query: "join", Type: "record", Sort: []string{"-_score", "_id"}, Size: 100, Highlight: true, Facets: facets}},
	} {
		noSort, noFacets, noHighlight := first.req, first.req, first.req
		noSort.Sort, noFacets.Facets, noHighlight.Highlight = nil, nil, false
		pages = append(pages, first, page{first.name + "/-sort", noSort},
			page{first.name + "/-facets", noFacets}, page{first.name + "/-highlight", noHighlight})
	}
	for _, p := range pages {
		// Search caches facets, so a first page seen before costs less
		// than the first one ever: "/nocache" counts them every time.
		for _, cached := range []bool{true, false} {
			name := p.name
			if !cached {
				if len(p.req.Facets) == 0 {
					continue
				}
				name += "/nocache"
			}
			b.Run(name, func(b *testing.B) {
				ix := corpus(b, 100_000).index(b)
				if cached && len(p.req.Facets) > 0 {
					checkCachedFacets(b, ix, p.req)
				}
				for b.Loop() {
					res, err := ix.search(p.req, plan.Options{Cache: cached})
					if err != nil {
						b.Fatal(err)
					}
					if len(res.Hits) == 0 {
						b.Fatal("no hits")
					}
				}
			})
		}
	}
}

// checkCachedFacets fails b unless Search, asked twice (the second time
// answered from the facet cache), gives the facets and totals of the
// uncached path on the benchmark corpus.
func checkCachedFacets(b *testing.B, ix *Index, req Request) {
	b.Helper()
	want, err := ix.search(req, noCache)
	if err != nil {
		b.Fatal(err)
	}
	for range 2 {
		got, err := ix.Search(req)
		if err != nil {
			b.Fatal(err)
		}
		if got.Total != want.Total || !reflect.DeepEqual(got.Facets, want.Facets) || len(got.Hits) != len(want.Hits) {
			b.Fatalf("%+v: cached total %d facets %v, uncached total %d facets %v", req, got.Total, got.Facets, want.Total, want.Facets)
		}
		for i := range got.Hits {
			if got.Hits[i].ID != want.Hits[i].ID || got.Hits[i].Score != want.Hits[i].Score {
				b.Fatalf("%+v: hit %d cached %+v, uncached %+v", req, i, got.Hits[i], want.Hits[i])
			}
		}
	}
}

// TestCompareQueriesTranslate checks the query translations on the small
// fixture bank, so a broken translation fails in plain go test.
func TestCompareQueriesTranslate(t *testing.T) {
	for _, q := range cmpQueries {
		req := bleveRequest(q)
		if _, err := plan.ParseQuery(req.Query); err != nil {
			t.Errorf("%s: %v", q.name, err)
		}
		if m, _, _ := ftsQuery(q); m == "" {
			t.Errorf("%s: empty fts5 MATCH", q.name)
		}
	}
	docs := scanDocs([]review.Record{{ID: "mem_1", Lemma: "Dates in shop.db are ISO text; one row per item.", Category: review.Fact, Scope: review.Scope{Env: "shop", Tags: []string{"g2"}}}})
	if n, ids := searchScan(docs, cmpQuery{phrase: "one row per", field: "tags", value: "G2"}); n != 1 || ids[0] != "mem_1" {
		t.Errorf("scan = %d %v, want mem_1", n, ids)
	}
}

// BenchmarkOpenBank opens an existing bank of 100,000 records (plus 1,000
// trajectories) with a caught-up index: store.Open then index.Open, the
// time until search is ready. It reports the heap in use (after a GC, with
// the bank open), the part of it the open bank holds, the memory the
// process got from the OS, and its resident set (which counts the pages of
// the memory-mapped index read so far); run it on its own (-bench 'OpenBank$') so no
// other corpus shares the heap.
//
//	go test ./index/ -run '^$' -bench 'OpenBank$' -count 5 -timeout 30m
func BenchmarkOpenBank(b *testing.B) {
	const n = 100_000
	dir := corpusDir(n)
	corporaMu.Lock()
	if c := corpora[n]; c != nil {
		c.release() // its index lock would make Open wait, then fail
	}
	err := ensureBank(b, dir, n)
	corporaMu.Unlock()
	if err != nil {
		b.Fatal(err)
	}
	open := func() (*store.Store, *Index) {
		st, err := store.Open(dir, store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ix, err := Open(filepath.Join(dir, store.IndexDir), st)
		if err != nil {
			b.Fatal(err)
		}
		return st, ix
	}
	st, ix := open() // catch up once, so every timed open starts caught up
	ix.Close()
	st.Close()
	runtime.GC()
	var before, after runtime.MemStats
	var rss float64
	runtime.ReadMemStats(&before)
	for b.Loop() {
		st, ix := open()
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		rss = procStatusMB("VmRSS")
		ix.Close()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(after.HeapInuse)/(1<<20), "heap-inuse-MB")
	b.ReportMetric((float64(after.HeapInuse)-float64(before.HeapInuse))/(1<<20), "heap-open-MB")
	b.ReportMetric(float64(after.Sys)/(1<<20), "sys-MB")
	b.ReportMetric(rss, "rss-MB")
}

// BenchmarkImportFTS5 inserts the synthetic records into the FTS5 table of
// the search comparison (5,000 to a transaction, WAL, synchronous=FULL),
// the peer of review's BenchmarkImport for the bank plus Bleve:
//
//	go test ./index/ -run '^$' -bench 'ImportFTS5' -benchtime 1x -count 5
func BenchmarkImportFTS5(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		recs := sample.SynthRecords(n, 1)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var took time.Duration
			for b.Loop() {
				took += importFTS(b, recs)
			}
			b.ReportMetric(float64(len(recs)*b.N)/took.Seconds(), "records/s")
		})
	}
}

// importFTS imports recs into a new FTS5 database (WAL, synchronous=FULL)
// and returns how long that took, the database's opening and closing
// left out.
func importFTS(b *testing.B, recs []review.Record) time.Duration {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(b.TempDir(), "fts5.db")+"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	start := time.Now()
	if err := fillFTS(db, recs); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
