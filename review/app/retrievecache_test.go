package app_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// TestRetrieveCache checks the retrieval cache as a fleet meets it: the
// same task asked again on an unchanged bank is answered from the cache
// with the same records (and logged again); a caller changing what it was
// given changes nothing the next caller gets; a commit empties the cache,
// and the next answer is the bank's new one (the deleted record gone);
// and with the cache off nothing is answered from it.
func TestRetrieveCache(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	req := app.RetrieveRequest{Task: "how are prices stored", Scope: review.Scope{Env: "shop"}, K: 3, Client: "mcp:test", TaskID: "t1"}
	ids := func(rs []app.Retrieved) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Record.ID)
		}
		return out
	}
	// The first retrieval of a small bank embeds its records (the vector
	// side changes: nothing is cached across it).
	if _, err := svc.Retrieve(app.RetrieveRequest{Task: "warm up", Preview: true}); err != nil {
		t.Fatal(err)
	}
	// Embedding runs in the background: wait for it, or a loaded machine
	// changes the vector side between the two asks below.
	if _, err := svc.WaitEmbeddings(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	// The next retrieval loads the vectors into the served index (its
	// count changes from 0: not cached across either).
	if _, err := svc.Retrieve(app.RetrieveRequest{Task: "warm up", Preview: true}); err != nil {
		t.Fatal(err)
	}
	first, err := svc.Retrieve(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) < 2 {
		t.Fatalf("retrieved %v; want at least 2 records", ids(first))
	}
	// A caller changing what it was given changes nothing the next caller
	// gets: every answer is changed as soon as it is given.
	mutate := func(rs []app.Retrieved) {
		rs[0].Record.Lemma, rs[0].Record.Scope.Tags = "changed by the caller", append(rs[0].Record.Scope.Tags, "x")
	}
	want := ids(first)
	given := map[string]int{strings.Join(want, ","): 1} // t1's answers, by their records
	mutate(first)
	// The same task asked again on an unchanged bank is answered from the
	// cache. On a loaded machine what runs in the background (the vector
	// side taking in the embeddings, the index catching up) can still
	// change the state an answer depends on between two asks, and then
	// the cache rightly answers nothing: the task is asked again until it
	// does, for at most 10 s.
	var again []app.Retrieved
	for deadline := time.Now().Add(10 * time.Second); ; {
		again, err = svc.Retrieve(req)
		if err != nil {
			t.Fatal(err)
		}
		if hits, _ := svc.RetrieveCacheStats(); hits == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer from the cache after asking the same task %d times", given[strings.Join(ids(again), ",")]+1)
		}
		want = ids(again)
		given[strings.Join(want, ",")]++
		mutate(again)
		time.Sleep(20 * time.Millisecond)
	}
	given[strings.Join(want, ",")]++
	if !slices.Equal(ids(again), want) || again[0].Record.Lemma == "changed by the caller" || slices.Contains(again[0].Record.Scope.Tags, "x") {
		t.Errorf("the cache's answer %v (lemma %q, tags %v); want %v as first given", ids(again), again[0].Record.Lemma, again[0].Record.Scope.Tags, want)
	}
	// Another task is not the first one's answer.
	other, err := svc.Retrieve(app.RetrieveRequest{Task: "join reviews to items", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(ids(other), want) {
		t.Errorf("another task got the first one's answer %v", want)
	}
	// A commit: the top record deleted.
	if _, err := svc.DecideRecords(t.Context(), review.RecordRequest{Verb: review.Delete, IDs: []string{want[0]}}); err != nil {
		t.Fatal(err)
	}
	after, err := svc.Retrieve(req)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ids(after), want[0]) || len(after) == 0 {
		t.Errorf("after deleting %s, retrieved %v", want[0], ids(after))
	}
	if hits, _ := svc.RetrieveCacheStats(); hits != 1 {
		t.Errorf("%d cache hits after the commit; want still 1", hits)
	}
	// Every call is logged, hits too: each of task t1's asks before the
	// commit, with the records it was given.
	log, err := svc.Retrievals(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	logged := 0
	for _, l := range log {
		if l.TaskID == "t1" && slices.Equal(l.Records, want) {
			logged++
		}
	}
	if w := given[strings.Join(want, ",")]; logged != w || w < 2 {
		t.Errorf("%d retrievals of t1 logged with %v; want %d (the cached answer is logged too): %+v", logged, want, w, log)
	}

	off := sampleService(t, app.Options{RetrieveCache: -1})
	for range 2 {
		if _, err := off.Retrieve(req); err != nil {
			t.Fatal(err)
		}
	}
	if hits, misses := off.RetrieveCacheStats(); hits != 0 || misses != 0 {
		t.Errorf("cache off: %d hits, %d misses; want none", hits, misses)
	}
}
