package index

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/sample/testenv"
)

// BenchmarkSearchCLI runs the comparison queries (cmpQueries) as
// `memreview search` processes on the 100,000-record corpus, side by side
// with FTS5 over the same records in the same loop: each iteration runs
// one query through every engine in turn, so all of them see the same
// load. The CLI is the real binary (go build of the module's main), run
// on the corpus bank with no other process holding its index, as a person
// runs it: every search a fresh process that opens the bank and takes
// the index over.
//
// `memreview search` asks for no facets, so the four facet requests of
// the mix run as their query alone in every engine here (fts5-facets
// keeps them, as BenchmarkSearchCompare's fts5 does). A keyword field
// becomes --env or --category; tags, which the CLI cannot filter on,
// the required term +tags:VALUE.
//
// Metrics (p50 and p99 over every query run, in ns):
//
//   - cli-took: the time `memreview search` prints ("20 hits (313µs)"):
//     the index's search alone (index/plan's Took), in the fresh process
//   - cli-wall: the process, from exec to exit: start, opening the bank and
//     the index, the search, reading and printing the hits, closing
//   - cli-cpu: the process's user + system CPU
//   - fts5: the same query on the FTS5 table in this process (searchFTS,
//     the prepared-per-call database/sql query of BenchmarkSearchCompare)
//   - fts5-facets: the same with the facet requests counting every hit
//   - sqlite3-took and sqlite3-wall: the query in a sqlite3 process on the
//     same FTS5 file: the time its .timer prints, and exec to exit
//
// and the ratios the target reads (cli-took ÷ fts5, p50 and p99;
// target ≤ 0.25) and cli-wall ÷ sqlite3-wall. MEMREVIEW_BENCH_CLI_PEER
// names another memreview binary (the code before a change) that runs
// each query too, in the same loop: peer-took, peer-wall, peer-cpu.
//
//	go test ./index/ -run '^$' -bench 'SearchCLI$' -benchtime 240x -timeout 60m
func BenchmarkSearchCLI(b *testing.B) {
	const n = 100_000
	c := corpus(b, n)
	c.release() // the CLI takes the index's lock
	sqlite3, _ := exec.LookPath("sqlite3")
	if sqlite3 == "" {
		b.Log("no sqlite3 on PATH: the sqlite3 process peer is left out")
	}
	bins := [][2]string{{"cli", buildCLI(b)}}
	if peer := os.Getenv("MEMREVIEW_BENCH_CLI_PEER"); peer != "" {
		bins = append(bins, [2]string{"peer", peer})
	}
	fts := filepath.Join(c.dir, "fts5.db")
	run := func(q cmpQuery, lat *cliLatencies) {
		for _, bin := range bins {
			took, wall, cpu, hits, err := searchCLI(bin[1], c.dir, q)
			if err != nil {
				b.Fatalf("%s: %v", q.name, err)
			}
			if hits == 0 {
				b.Fatalf("%s: %s search found nothing", q.name, bin[1])
			}
			lat.add(q.name, bin[0]+"-took", took)
			lat.add(q.name, bin[0]+"-wall", wall)
			lat.add(q.name, bin[0]+"-cpu", cpu)
		}
		plain := q
		plain.facets = false
		start := time.Now()
		if _, err := searchFTS(c.fts, plain); err != nil {
			b.Fatal(err)
		}
		lat.add(q.name, "fts5", time.Since(start))
		start = time.Now()
		if _, err := searchFTS(c.fts, q); err != nil {
			b.Fatal(err)
		}
		lat.add(q.name, "fts5-facets", time.Since(start))
		if sqlite3 != "" {
			took, wall, err := searchSQLite3(sqlite3, fts, plain)
			if err != nil {
				b.Fatalf("%s: %v", q.name, err)
			}
			lat.add(q.name, "sqlite3-took", took)
			lat.add(q.name, "sqlite3-wall", wall)
		}
	}
	var warm cliLatencies
	for _, q := range cmpQueries { // check each engine once, and warm the page cache
		run(q, &warm)
	}
	var lat cliLatencies
	for i := 0; b.Loop(); i++ {
		run(cmpQueries[i%len(cmpQueries)], &lat)
	}
	lat.report(b)
}

// buildCLI builds memreview into a folder of b and returns its path.
func buildCLI(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "memreview")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/memreview/memreview")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build memreview: %v\n%s", err, out)
	}
	return bin
}

// cliArgs is q as `memreview search` arguments.
func cliArgs(bank string, q cmpQuery) []string {
	args := []string{"--bank", bank, "search", "--k", strconv.Itoa(cmpHits)}
	parts := requiredParts(q)
	switch q.field {
	case "env", "category":
		args = append(args, "--"+q.field, q.value)
	case "tags":
		parts = append(parts, "+tags:"+q.value)
	}
	// No parts (a filter alone): the empty query, which matches all.
	return append(args, "--", strings.Join(parts, " "))
}

// cliFaults sums the page faults of the memreview processes the
// benchmark ran: major faults read the index from disk (the page cache
// lost it to another process), minor ones map what the cache holds.
var cliFaults struct {
	sync.Mutex
	major int64
	minor []int64
}

// cliHeader is the first line `memreview search` prints: "≈ 40,123 hits
// (1.2ms)", perhaps with a note before the time.
var cliHeader = regexp.MustCompile(`^(?:≈ )?(\d+) hits.*\(([^()]+)\)$`)

// searchCLI runs q as a `memreview search` process on bank and returns the
// search time it prints, the process's wall and CPU time, and its hits.
func searchCLI(bin, bank string, q cmpQuery) (took, wall, cpu time.Duration, hits int, err error) {
	cmd := exec.Command(bin, cliArgs(bank, q)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("memreview %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, stderr.Bytes())
	}
	if stderr.Len() > 0 {
		return 0, 0, 0, 0, fmt.Errorf("memreview %s wrote to stderr: %s", strings.Join(cmd.Args[1:], " "), stderr.Bytes())
	}
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	major, minor := testenv.PageFaults(cmd.ProcessState)
	cliFaults.Lock()
	cliFaults.major += major
	cliFaults.minor = append(cliFaults.minor, minor)
	cliFaults.Unlock()
	first, _, _ := strings.Cut(stdout.String(), "\n")
	m := cliHeader.FindStringSubmatch(first)
	if m == nil {
		return 0, 0, 0, 0, fmt.Errorf("memreview search printed %q, not its hits and time", first)
	}
	hits, _ = strconv.Atoi(m[1])
	if took, err = time.ParseDuration(m[2]); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("memreview search's time %q: %w", m[2], err)
	}
	return took, wall, cpu, hits, nil
}

// sqliteTimer is the line sqlite3's .timer prints after a statement.
var sqliteTimer = regexp.MustCompile(`Run Time: real ([0-9.]+)`)

// searchSQLite3 runs q's FTS5 query in a sqlite3 process on the FTS5 file
// db and returns the query time its .timer prints and the process's wall
// time.
func searchSQLite3(sqlite3, db string, q cmpQuery) (took, wall time.Duration, err error) {
	match, where, args := ftsQuery(q)
	if len(args) > 0 {
		where = strings.Replace(where, "?", fmt.Sprint(args[0]), 1)
	}
	stmt := fmt.Sprintf(".timer on\nSELECT id FROM recs WHERE recs MATCH '%s'%s ORDER BY bm25(recs) LIMIT %d;\n",
		strings.ReplaceAll(match, "'", "''"), where, cmpHits)
	cmd := exec.Command(sqlite3, "-bail", db)
	cmd.Stdin = strings.NewReader(stmt)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil || stderr.Len() > 0 {
		return 0, 0, fmt.Errorf("sqlite3 %q: %v %s", stmt, err, stderr.Bytes())
	}
	m := sqliteTimer.FindSubmatch(stdout.Bytes())
	if m == nil {
		return 0, 0, fmt.Errorf("sqlite3 printed no timer: %q", stdout.Bytes())
	}
	if bytes.Count(stdout.Bytes(), []byte("\n")) < 2 {
		return 0, 0, fmt.Errorf("sqlite3 found nothing for %q", match)
	}
	secs, _ := strconv.ParseFloat(string(m[1]), 64)
	return time.Duration(secs * float64(time.Second)), wall, nil
}

// cliLatencies holds BenchmarkSearchCLI's times, by metric.
type cliLatencies struct {
	by      map[string][]time.Duration
	byQuery map[string][]time.Duration // by "metric query"
	order   []string
}

func (l *cliLatencies) add(query, metric string, d time.Duration) {
	if l.by == nil {
		l.by, l.byQuery = map[string][]time.Duration{}, map[string][]time.Duration{}
	}
	if _, ok := l.by[metric]; !ok {
		l.order = append(l.order, metric)
	}
	l.by[metric] = append(l.by[metric], d)
	l.byQuery[metric+" "+query] = append(l.byQuery[metric+" "+query], d)
}

// report adds each metric's p50 and p99 and the ratios the target reads.
func (l *cliLatencies) report(b *testing.B) {
	q := func(metric string, p float64) float64 { return float64(quantile(l.by[metric], p)) }
	for _, m := range l.order {
		b.ReportMetric(q(m, 0.5), m+"-p50-ns")
		b.ReportMetric(q(m, 0.99), m+"-p99-ns")
	}
	ratio := func(a, c string, p float64) {
		if len(l.by[a]) > 0 && len(l.by[c]) > 0 {
			b.ReportMetric(q(a, p)/q(c, p), fmt.Sprintf("%s/%s-p%d", a, c, int(p*100)))
		}
	}
	for _, p := range []float64{0.5, 0.99} {
		ratio("cli-took", "fts5", p)
		ratio("cli-took", "fts5-facets", p)
		ratio("cli-wall", "sqlite3-wall", p)
		ratio("peer-took", "fts5", p)
	}
	var line []string
	for _, m := range l.order {
		s := slices.Clone(l.by[m])
		slices.Sort(s)
		line = append(line, fmt.Sprintf("%s min %v p50 %v max %v", m, s[0].Round(time.Microsecond),
			quantile(s, 0.5).Round(time.Microsecond), s[len(s)-1].Round(time.Microsecond)))
	}
	b.Logf("%d runs of each: %s", len(l.by["cli-wall"]), strings.Join(line, "; "))
	cliFaults.Lock()
	if n := len(cliFaults.minor); n > 0 {
		minor := slices.Sorted(slices.Values(cliFaults.minor))
		b.Logf("memreview processes (warm-up and peer included): %d major page faults in all; minor a process p50 %d, max %d",
			cliFaults.major, minor[n/2], minor[n-1])
	}
	cliFaults.major, cliFaults.minor = 0, nil
	cliFaults.Unlock()
	// The runs at and above p99, with their queries: which queries, or
	// which moments of load, the p99 is made of.
	for _, m := range []string{"cli-took", "fts5"} {
		type run struct {
			q string
			d time.Duration
		}
		var runs []run
		for _, cq := range cmpQueries {
			for _, d := range l.byQuery[m+" "+cq.name] {
				runs = append(runs, run{cq.name, d})
			}
		}
		slices.SortFunc(runs, func(a, b run) int { return int(b.d - a.d) })
		var top []string
		for _, r := range runs[:min(len(runs), max(3, len(runs)/100+1))] {
			top = append(top, fmt.Sprintf("%s=%v", r.q, r.d.Round(10*time.Microsecond)))
		}
		b.Logf("%s slowest: %s", m, strings.Join(top, " "))
	}
	// One line a metric: b.Logf keeps the first lines of a benchmark only.
	for _, m := range []string{"cli-took", "cli-wall", "fts5"} {
		var per []string
		for _, cq := range cmpQueries {
			per = append(per, fmt.Sprintf("%s=%v", cq.name, quantile(l.byQuery[m+" "+cq.name], 0.5).Round(10*time.Microsecond)))
		}
		b.Logf("%s p50 by query: %s", m, strings.Join(per, " "))
	}
}
