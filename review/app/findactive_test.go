package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// FindActive (the merge picker's search): any term of the query matches,
// env narrows, exclude and n are kept to, and a record retired is no
// longer found.
func TestFindActive(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	find := func(query, env string, exclude []string, n int) []string {
		t.Helper()
		recs, err := svc.FindActive(query, env, exclude, n)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range recs {
			if r.Status != review.Active || env != "" && r.Scope.Env != env {
				t.Errorf("%q in %q: found %s (%s, env %q)", query, env, r.ID, r.Status, r.Scope.Env)
			}
			ids = append(ids, r.ID)
		}
		return ids
	}
	envs := map[string]bool{}
	for _, id := range find("revenue prices", "", nil, 50) {
		r, err := svc.Record(id)
		if err != nil {
			t.Fatal(err)
		}
		envs[r.Scope.Env] = true
	}
	if !envs["shop"] || !envs["docs"] {
		t.Fatalf("revenue prices in every env: envs %v, want shop (prices) and docs (revenue): any term matches", envs)
	}
	docs := find("revenue prices", "docs", nil, 50)
	if len(docs) < 3 {
		t.Fatalf("revenue prices in docs: %v, want several", docs)
	}
	if got := find("revenue prices", "docs", []string{docs[0]}, 50); slices.Contains(got, docs[0]) || len(got) != len(docs)-1 {
		t.Errorf("without %s: %v (all: %v)", docs[0], got, docs)
	}
	if got := find("revenue prices", "docs", nil, 2); !slices.Equal(got, docs[:2]) {
		t.Errorf("n = 2: %v, want %v", got, docs[:2])
	}
	if _, err := svc.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Delete, IDs: []string{docs[0]}}); err != nil {
		t.Fatal(err)
	}
	if got := find("revenue prices", "docs", nil, 50); slices.Contains(got, docs[0]) {
		t.Errorf("%s retired, still found: %v", docs[0], got)
	}
	if _, err := svc.FindActive("revenue:(", "", nil, 5); err == nil || !strings.Contains(err.Error(), `search "revenue:("`) {
		t.Errorf("a query the syntax refuses: %v, want an error naming the query", err)
	}
}
