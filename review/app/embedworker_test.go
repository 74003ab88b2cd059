package app

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/index/vecbank"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

// TestEmbedWorkerNamesWithoutCounting: the process that takes the index
// over names its embedder at once (here the endpoint the config names),
// and counts nothing to do so: every CLI search that took the index over
// at 100,000 records paid three counts over the bank that no one read
// (BenchmarkSearchCLI, BENCHMARKS.md).
func TestEmbedWorkerNamesWithoutCounting(t *testing.T) {
	st, err := store.Create(filepath.Join(t.TempDir(), "bank"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := review.Config{Embeddings: review.EmbeddingsConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "named-now", Dims: 8}}
	if err := st.SaveConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if err := st.PutRecords([]review.Record{{ID: "mem_1", Lemma: "a", Category: review.Fact, Confidence: 0.5}}, "t", "fixture"); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	close(gate)
	b := &bigCounts{Store: st, gate: gate}
	side, err := vecbank.Open(vecbank.Options{Store: st, Dir: filepath.Join(t.TempDir(), "vectors")})
	if err != nil {
		t.Fatal(err)
	}
	defer side.Close()
	s := New(b, Options{Operator: "t"}) // no background embedding: the worker only names the model
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.embedWorker(ctx, side)
	if n := b.calls.Load(); n != 0 {
		t.Errorf("naming the embedder counted the bank %d times, want none", n)
	}
	s.emb.mu.Lock()
	tg := s.emb.target
	s.emb.mu.Unlock()
	if tg == nil || tg.model != "named-now" {
		t.Fatalf("the worker named %+v, want the configured model named-now", tg)
	}
	if got := side.Status().Target; got != "named-now" {
		t.Errorf("the vector side's target is %q, want named-now", got)
	}
}
