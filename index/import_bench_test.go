package index

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review/formats"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

// importSizes are the banks BenchmarkImportCaughtUp imports: 10,000 and
// 100,000 records, or MEMREVIEW_BENCH_SIZES (comma-separated, e.g.
// 1000000).
func importSizes() []int {
	v := os.Getenv("MEMREVIEW_BENCH_SIZES")
	if v == "" {
		return []int{10_000, 100_000}
	}
	var out []int
	for _, s := range strings.Split(v, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// BenchmarkImportCaughtUp measures issue 28's "an import that returns
// searchable" in one process, side by side with SQLite FTS5 importing the
// same records in the same run (fts5-s: importFTS, the records in memory,
// 5,000 to a transaction, WAL, synchronous=FULL). The import is what
// `memreview import records FILE` does: the JSON Lines file read and
// checked, the ids checked against the bank in one query, one PutRecords
// transaction, into a new bank with its (empty) index open. Then until the
// index holds every record:
//
//   - index=next-open: nothing in the import; the index is opened after it
//     (what a later process does today: Open finds the index far behind
//     and builds it again);
//   - index=sync: the importing process catches its open index up after
//     the commit (Index.Sync);
//   - index=follow: Index.Follow started before the import and told of its
//     commit (the writer protocol of sample gen's BuildFilling).
//
// Metrics: committed-s (the import), caughtup-s (the import and the
// index, until every record is searchable in the index itself),
// caughtup-x (against FTS5), cpu-s (this process's CPU, import and index).
//
//	go test ./index/ -run '^$' -bench 'ImportCaughtUp' -benchtime 1x -count 1 -timeout 60m
func BenchmarkImportCaughtUp(b *testing.B) {
	for _, n := range importSizes() {
		recs := sample.SynthRecords(n, benchSeed)
		var file bytes.Buffer
		if err := formats.WriteJSONL(&file, recs); err != nil {
			b.Fatal(err)
		}
		for _, mode := range []string{"next-open", "sync", "follow"} {
			b.Run(fmt.Sprintf("n=%d/index=%s", n, mode), func(b *testing.B) {
				var fts, committed, caught, cpu time.Duration
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					fts += importFTS(b, recs)
					bank := filepath.Join(b.TempDir(), "bank")
					st, err := store.Create(bank, store.Options{})
					if err != nil {
						b.Fatal(err)
					}
					dir := filepath.Join(bank, store.IndexDir)
					ix, err := Open(dir, st)
					if err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					c0, start := testenv.CPUTime(), time.Now()
					var f *Filling
					followed := make(chan error, 1)
					if mode == "follow" {
						f = NewFilling(n)
						go func() { followed <- ix.Follow(f) }()
					}
					if mode == "next-open" {
						ix.Close()
					}
					if err := importRecords(st, file.Bytes()); err != nil {
						b.Fatal(err)
					}
					committed += time.Since(start)
					switch mode {
					case "next-open":
						ix, err = Open(dir, st)
					case "sync":
						err = ix.Sync()
					case "follow":
						seq, serr := st.LastSeq()
						if serr != nil {
							b.Fatal(serr)
						}
						f.Committed(n)
						f.Inserted(seq)
						err = <-followed
					}
					if err != nil {
						b.Fatal(err)
					}
					caught += time.Since(start)
					cpu += testenv.CPUTime() - c0
					b.StopTimer()
					if res, err := ix.Search(Request{Type: "record", Size: 1}); err != nil || res.Total != uint64(n) || res.Behind != 0 {
						b.Fatalf("after the import: %v, %v; want %d records, not behind", res, err, n)
					}
					ix.Close()
					st.Close()
					b.StartTimer()
				}
				per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
				b.ReportMetric(per(fts), "fts5-s")
				b.ReportMetric(per(committed), "committed-s")
				b.ReportMetric(per(caught), "caughtup-s")
				b.ReportMetric(caught.Seconds()/fts.Seconds(), "caughtup-x")
				b.ReportMetric(committed.Seconds()/fts.Seconds(), "committed-x")
				b.ReportMetric(per(cpu), "cpu-s")
			})
		}
	}
}

// importRecords imports a JSON Lines file of new records into st as the
// service's Import does: read and checked whole, ids checked against the
// bank, then one transaction.
func importRecords(st *store.Store, file []byte) error {
	recs, lines, err := formats.ReadRecordsAt(bytes.NewReader(file), "records.jsonl")
	if err != nil {
		return err
	}
	ids := make([]string, len(recs))
	for i := range recs {
		ids[i] = recs[i].ID
	}
	have, err := st.ExistingRecordIDs(ids)
	if err != nil {
		return err
	}
	if err := formats.CheckNewRecords("records.jsonl", recs, lines, func(id string) bool { return have[id] }, map[string]string{}); err != nil {
		return err
	}
	return st.PutRecords(recs, "bench", "import")
}
