package store_test

import (
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/review/store"

	"github.com/memreview/memreview/sample"
)

// BenchmarkPutRecords writes 20,000 synthetic records into a new bank in
// PutRecords calls of importBatch, as import and sample gen do, each
// iteration into an empty bank.
//
//	go test ./review/ -run '^$' -bench PutRecords -benchtime 5x -count 3
func BenchmarkPutRecords(b *testing.B) {
	recs := sample.SynthRecords(20_000, 1)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st, err := store.Create(filepath.Join(b.TempDir(), "bank"), store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for j := 0; j < len(recs); j += importBatch {
			if err := st.PutRecords(recs[j:min(j+importBatch, len(recs))], "bench", "import"); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "records/s")
}
