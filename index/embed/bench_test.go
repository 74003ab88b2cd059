package embed

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/memreview/memreview/sample"
)

// BenchmarkOfflineTrain trains the offline embedder on n records of the
// synthetic bank (sample.SynthRecords), then embeds them all: it reports
// the training time, the vocabulary and the embed time per record.
//
// go test ./index/embed -run '^$' -bench OfflineTrain -benchtime 1x
func BenchmarkOfflineTrain(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var texts []string
			for _, r := range sample.SynthRecords(n, 1) {
				texts = append(texts, RecordText(r.Lemma, r.Trigger, r.Steps))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				o, err := TrainOffline(texts, OfflineOptions{})
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := o.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(t1.Sub(t0).Seconds(), "train-s")
				b.ReportMetric(float64(time.Since(t1).Microseconds())/float64(n), "embed-us/record")
				b.ReportMetric(float64(len(o.words)), "words")
			}
		})
	}
}

// BenchmarkOfflineEmbedQuery is one task's vector from a model trained
// on 10,000 records.
func BenchmarkOfflineEmbedQuery(b *testing.B) {
	var texts []string
	for _, r := range sample.SynthRecords(10_000, 1) {
		texts = append(texts, RecordText(r.Lemma, r.Trigger, r.Steps))
	}
	o, err := TrainOffline(texts, OfflineOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o.Embed(context.Background(), []string{"how many reviewed electronics have a warranty of two years or more"})
	}
}
