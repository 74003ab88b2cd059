package app

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memreview/memreview/index/vecbank"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

// bigCounts is a bank whose counting is slow and says it is too big to
// embed at once.
type bigCounts struct {
	*store.Store
	calls atomic.Int32
	gate  chan struct{}
}

func (b *bigCounts) EmbedCounts(string) (review.EmbedCounts, error) {
	n, err := b.ActiveRecordsUpTo(syncEmbedMax + 1)
	return review.EmbedCounts{Active: n}, err
}

// ActiveRecordsUpTo is the count catchUpEmbeddings asks for.
func (b *bigCounts) ActiveRecordsUpTo(n int) (int, error) {
	b.calls.Add(1)
	<-b.gate
	return syncEmbedMax + 1, nil
}

// TestCatchUpCountsOnce: the retrievals that arrive together at a new
// process count the bank once between them (the first; the others go on
// without waiting for it), and none counts again before the bank changes.
func TestCatchUpCountsOnce(t *testing.T) {
	st, err := store.Create(filepath.Join(t.TempDir(), "bank"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.PutRecords([]review.Record{{ID: "mem_1", Lemma: "a", Category: review.Fact, Confidence: 0.5}}, "t", "fixture"); err != nil {
		t.Fatal(err)
	}
	b := &bigCounts{Store: st, gate: make(chan struct{})}
	s := New(b, Options{Operator: "t"})
	s.emb.side = &vecbank.Side{} // as the index owner is
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); s.catchUpEmbeddings(context.Background()) }()
	}
	deadline := time.Now().Add(5 * time.Second)
	for b.calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // the others have arrived by now
	close(b.gate)
	wg.Wait()
	if n := b.calls.Load(); n != 1 {
		t.Fatalf("8 retrievals at once counted the bank %d times, want 1", n)
	}
	s.catchUpEmbeddings(context.Background())
	if n := b.calls.Load(); n != 1 {
		t.Fatalf("counted again before the bank changed: %d", n)
	}
}
