package app_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
)

// TestSearchWhileOwnerRebuilds writes a batch long enough to be rebuilt,
// not replayed, then starts an owner process, whose catch-up (a rebuild
// beside the index) runs in the background: another process's search
// finds the batch's last record at once, while the index is still behind
// (from the bank directly, index.Results.Direct), instead of waiting for
// the rebuild. The owner is then killed with SIGKILL in the middle of it;
// the next process's search takes over and finds the record again, and
// its catch-up completes with the index agreeing with the store.
func TestSearchWhileOwnerRebuilds(t *testing.T) {
	t.Parallel()
	dir := bankCopy(t)
	// Over the rebuild threshold and a quarter of the index: rebuilt.
	// Both processes take the rebuild path at 200 changes (the program's
	// threshold is 2,000); under CI, at the program's, with more.
	n, tune := 400, index.Tuning{RebuildMin: 200}
	if ci {
		n, tune = 12000, index.Tuning{}
	}
	writer, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	recs := make([]review.Record, n)
	for i := range recs {
		recs[i] = review.Record{ID: fmt.Sprintf("late_%05d", i), Lemma: fmt.Sprintf("late note %d about refunds", i),
			Category: review.Fact, Confidence: 0.5}
	}
	recs[n-1].Lemma = "the last one mentions zanzibar"
	if err := writer.PutRecords(recs, "test", "a large write"); err != nil {
		t.Fatal(err)
	}

	owner, out := startChild(t, "owner", dir, 0, childRebuildEnv+"="+strconv.Itoa(tune.RebuildMin))
	if !out.Scan() || out.Text() != "ready" {
		t.Fatalf("the owner did not get ready: %q", out.Text())
	}
	reader, err := app.Open(context.Background(), dir, app.Options{IndexTuning: tune})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	search := func(when string) *index.Results {
		t.Helper()
		start := time.Now()
		res, err := reader.Search(app.SearchRequest{Query: "zanzibar", Type: "record"})
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if res.Total != 1 || res.Hits[0].ID != recs[n-1].ID {
			t.Fatalf("%s: found %d (%v), want %s", when, res.Total, res.Hits, recs[n-1].ID)
		}
		t.Logf("%s: answered in %s, %d changes behind, %d searched directly", when, time.Since(start).Round(time.Millisecond), res.Behind, res.Direct)
		return res
	}
	if res := search("while the owner rebuilds"); res.Behind == 0 || res.Direct == 0 {
		t.Fatalf("the search waited for the rebuild (behind %d, direct %d)", res.Behind, res.Direct)
	}
	if err := owner.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	owner.Wait()
	search("after kill -9 of the rebuilding owner") // this process takes over

	// The catch-up completes: every record is in the index, none from the tail.
	if _, err := reader.IndexDocs(); err != nil { // waits for the catch-up
		t.Fatal(err)
	}
	all, err := writer.Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := reader.Search(app.SearchRequest{Type: "record", Size: 0, Filters: everyStatus})
	if err != nil {
		t.Fatal(err)
	}
	if res.Behind != 0 || res.Direct != 0 || res.Total != uint64(len(all)) {
		t.Fatalf("after the catch-up: behind %d, direct %d, %d records indexed; want 0, 0, %d", res.Behind, res.Direct, res.Total, len(all))
	}
}
