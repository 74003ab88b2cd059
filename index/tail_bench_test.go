package index

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/memreview/memreview/index/schema"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkImportToSearchable measures issue 16's "import to searchable"
// through the CLI, side by side with SQLite FTS5 importing the same
// records in the same run: (a) `memreview import records FILE` returns
// (committed); (b) a new process's `memreview search` of the last
// record's id prints it (the tail: the index is behind, being built in
// the background); (c) that process exits, its catch-up done
// (FinishIndex); then a second search, the index caught up. The file is
// the corpus's records as `memreview export records` writes them.
// Metrics: seconds, and each against FTS5's import (…-x); cpu-s are the
// child processes' user+system CPU.
//
//	go test ./index/ -run '^$' -bench 'ImportToSearchable/n=100000' -benchtime 1x -count 1 -timeout 30m
func BenchmarkImportToSearchable(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c := corpus(b, n)
			c.release()
			bin := buildBinary(b)
			file := filepath.Join(b.TempDir(), "records.jsonl")
			out, err := exec.Command(bin, "--bank", c.dir, "export", "records").Output()
			if err != nil {
				b.Fatalf("export: %v", err)
			}
			if err := os.WriteFile(file, out, 0o644); err != nil {
				b.Fatal(err)
			}
			lastID := c.recs[len(c.recs)-1].ID
			var fts, committed, searchable, caught, again, cpuImport, cpuSearch time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				fts += importFTS(b, c.recs)

				bank := filepath.Join(b.TempDir(), "bank")
				if out, err := exec.Command(bin, "--bank", bank, "init").CombinedOutput(); err != nil {
					b.Fatalf("init: %v\n%s", err, out)
				}
				b.StartTimer()
				start := time.Now()
				imp := exec.Command(bin, "--bank", bank, "import", "records", file)
				if out, err := imp.CombinedOutput(); err != nil {
					b.Fatalf("import: %v\n%s", err, out)
				}
				committed += time.Since(start)
				cpuImport += cpuOf(imp)
				found, exited, note, cpu := timeSearch(b, bin, bank, lastID)
				searchable += committed + found
				caught += committed + exited
				cpuSearch += cpu
				b.StopTimer()
				found2, _, note2, _ := timeSearch(b, bin, bank, lastID)
				again += found2
				if i == 0 {
					b.Logf("first search: %s; second: %q", note, note2)
				}
				b.StartTimer()
			}
			per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
			b.ReportMetric(per(fts), "fts5-s")
			b.ReportMetric(per(committed), "committed-s")
			b.ReportMetric(per(searchable), "searchable-s")
			b.ReportMetric(per(caught), "caughtup-s")
			b.ReportMetric(per(again), "search-after-s")
			b.ReportMetric(committed.Seconds()/fts.Seconds(), "committed-x")
			b.ReportMetric(searchable.Seconds()/fts.Seconds(), "searchable-x")
			b.ReportMetric(caught.Seconds()/fts.Seconds(), "caughtup-x")
			b.ReportMetric(per(cpuImport), "import-cpu-s")
			b.ReportMetric(per(cpuSearch), "search+catchup-cpu-s")
		})
	}
}

// timeSearch runs `memreview search ID` in a new process and returns when
// its output named the record (found), when the process exited, its
// stderr note, and its CPU time.
func timeSearch(b *testing.B, bin, bank, id string) (found, exited time.Duration, note string, cpu time.Duration) {
	b.Helper()
	cmd := exec.Command(bin, "--bank", bank, "search", id)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if found == 0 && strings.Contains(sc.Text(), id) {
			found = time.Since(start)
		}
	}
	if err := cmd.Wait(); err != nil {
		b.Fatalf("search: %v\n%s", err, stderr.String())
	}
	exited = time.Since(start)
	if found == 0 {
		b.Fatalf("search %s did not find it\n%s", id, stderr.String())
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "behind") {
			note = l
		}
	}
	return found, exited, note, cpuOf(cmd)
}

func cpuOf(cmd *exec.Cmd) time.Duration {
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// buildBinary builds memreview into a temporary folder.
func buildBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "memreview")
	cmd := exec.Command("go", "build", "-o", bin, "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkSearchBehind is the comparison queries (BenchmarkSearchCompare)
// on the 100,000-record corpus while the index is behind: behind=0 caught
// up; behind=20000 and behind=100000 with the index's sequence set back
// that far, so that the last 20,000 or all 100,000 records are searched
// from the bank (the newest tailMax of them) and excluded from the index
// (each is there in an older version: the costliest case, where every
// tail item is excluded by id); build=100000 as during a first build in
// the background, an empty index and the whole bank behind. chunks=none:
// before the background chunks exist, every tail candidate is indexed per
// search (at most tailIndexMax); chunks=built: after they hold the tail.
//
//	go test ./index/ -run '^$' -bench 'SearchBehind' -benchtime 100x -count 1 -timeout 30m
func BenchmarkSearchBehind(b *testing.B) {
	const n = 100_000
	cases := []struct {
		name     string
		behind   int64
		empty    bool
		noChunks bool
	}{
		{"behind=0", 0, false, false},
		{"behind=20000/chunks=none", 20_000, false, true}, {"behind=20000/chunks=built", 20_000, false, false},
		{"behind=100000/chunks=built", 100_000, false, false},
		{"build=100000/chunks=none", 0, true, true}, {"build=100000/chunks=built", 0, true, false},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			c := corpus(b, n)
			main := c.index(b)
			ix := main
			if tc.behind > 0 || tc.empty {
				ix = newIndex(main.dir, c.st, Tuning{NoChunks: tc.noChunks})
				ix.idx = main.idx
				defer func() { close(ix.stop); ix.tail.Close() }()
				last, err := c.st.LastSeq()
				if err != nil {
					b.Fatal(err)
				}
				ix.seq.Store(max(last-tc.behind, 0))
				if tc.empty {
					if ix.idx, err = schema.NewMem(); err != nil {
						b.Fatal(err)
					}
					ix.seq.Store(0)
					defer ix.idx.Close()
				}
			}
			reqs := make([]Request, len(cmpQueries))
			start := time.Now()
			for i, q := range cmpQueries {
				reqs[i] = bleveRequest(q)
				if _, err := ix.Search(reqs[i]); err != nil { // warm: reads the tail once
					b.Fatal(err)
				}
			}
			b.Logf("%s: first pass over %d queries (reads the tail) %s", tc.name, len(reqs), time.Since(start).Round(time.Millisecond))
			if !tc.noChunks && ix != main {
				start = time.Now()
				if err := ix.tail.WaitChunks(); err != nil {
					b.Fatal(err)
				}
				b.Logf("%s: %d chunks built in %s", tc.name, ix.tail.Chunks(), time.Since(start).Round(time.Millisecond))
			}
			res, _ := ix.Search(Request{Type: "record"})
			b.Logf("%s: behind %d, direct %d, unsearched %d", tc.name, res.Behind, res.Direct, res.Unsearched)
			runMix(b, func(k int) error {
				_, err := ix.Search(reqs[k])
				return err
			}).report(b)
		})
	}
}
