package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review/store"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// importBatch is how many records go into one PutRecords call, as the
// importer and sample.Synth write them.
const importBatch = 5000

// BenchmarkImport imports synthetic records (10,000 and 100,000) into a new
// bank and indexes them, each iteration from an empty directory:
//
//   - engine=bleve-build: store.Store.PutRecords in batches of 5,000, then
//     index.Open, which finds no index and builds it from the bank.
//   - engine=bleve-catchup: the index exists (opened on the empty bank and
//     closed) before the import, so index.Open catches it up from the
//     change feed, one record read per change.
//
// records/s is over the whole iteration; put-s and index-s split the bleve
// engines' time; heap-inuse-MB and sys-MB are read at the end of the last
// iteration (sys-MB: the memory the process had from the OS so far;
// peak-rss-MB: the process's peak resident set so far, Linux only, so run
// one engine and size per process to read it for that one).
//
//	go test ./review/ -run '^$' -bench 'Import' -benchtime 1x -count 5 -timeout 60m
func BenchmarkImport(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		recs := sample.SynthRecords(n, 1)
		for _, mode := range []string{"bleve-build", "bleve-catchup"} {
			b.Run(fmt.Sprintf("n=%d/engine=%s", n, mode), func(b *testing.B) {
				benchImportBleve(b, recs, mode == "bleve-catchup")
			})
		}
	}
}

// benchImportBleve is one bleve engine of BenchmarkImport.
func benchImportBleve(b *testing.B, recs []review.Record, catchUp bool) {
	var put, idx time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "bank")
		st, err := store.Create(dir, store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if catchUp {
			ix, err := index.Open(filepath.Join(dir, store.IndexDir), st)
			if err != nil {
				b.Fatal(err)
			}
			ix.Close()
		}
		b.StartTimer()
		start := time.Now()
		for j := 0; j < len(recs); j += importBatch {
			if err := st.PutRecords(recs[j:min(j+importBatch, len(recs))], "bench", "import"); err != nil {
				b.Fatal(err)
			}
		}
		put += time.Since(start)
		start = time.Now()
		ix, err := index.Open(filepath.Join(dir, store.IndexDir), st)
		if err != nil {
			b.Fatal(err)
		}
		idx += time.Since(start)
		b.StopTimer()
		if i == b.N-1 {
			reportMem(b)
		}
		ix.Close()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(put.Seconds()/float64(b.N), "put-s")
	b.ReportMetric(idx.Seconds()/float64(b.N), "index-s")
}

func reportMem(b *testing.B) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-inuse-MB")
	b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MB")
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(st), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				var kb float64
				fmt.Sscanf(strings.TrimSpace(rest), "%f", &kb)
				b.ReportMetric(kb/1024, "peak-rss-MB")
			}
		}
	}
}
