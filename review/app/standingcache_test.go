package app_test

import (
	"context"
	"testing"

	"github.com/memreview/memreview/index/embed/embedtest"
	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
)

// The standings cache keeps no standing past a change of it: a record
// whose check another process finds failing after a retrieval (its old
// standing in the cache) drops below the next record in the next one, as
// a new process ranks it.
func TestStandingsFollowChanges(t *testing.T) {
	t.Parallel()
	srv := embedtest.New(t, embedtest.Topics(8, topics))
	recs := []review.Record{
		rec("mem_cents", "amounts are stored in cents", review.Convention),
		rec("mem_round", "cents are rounded half up", review.Convention),
		rec("mem_stars", "stars go from one to five", review.Fact),
	}
	svc := vecBank(t, recs, srv, app.Options{RetrieveCache: -1})
	waitEmbedded(t, svc)
	// No record holds a word of the task: only the vector side finds them,
	// ranked by similarity × their standing's factor.
	retrieve := func(svc *app.Service) []string {
		t.Helper()
		res, err := svc.RetrieveWith(context.Background(), app.RetrieveRequest{Task: "what price", Scope: review.Scope{Env: "shop"}, K: 2, Preview: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Model != "topic-embed" || len(res.Records) != 2 {
			t.Fatalf("retrieved %v with model %q (notes %v); want 2 records by vectors", ids(res.Records), res.Model, res.Notes)
		}
		return ids(res.Records)
	}
	before := retrieve(svc)
	first, second := before[0], before[1]
	if first+second != "mem_centsmem_round" && first+second != "mem_roundmem_cents" {
		t.Fatalf("retrieved %v; want the two records about cents", before)
	}
	// Another process finds the first's check failing now (factor 0.5).
	other, err := store.Open(svc.Dir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = other.SetCheckResults([]review.CheckResult{{RecordID: first, Verdict: probe.FailsNow}})
	other.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := retrieve(svc); got[0] != second {
		t.Fatalf("after %s's check failed: %v (before %v); want %s first", first, got, before, second)
	}
}
