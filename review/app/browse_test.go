package app_test

import (
	"slices"
	"testing"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// TestBrowseRecordsMatchesSearch: the blank list of one status paged from
// the store holds the same ids in the same order, and the same total, as
// the index's answer to the same request, for active and retired records,
// on the first page and past it; after a delete, both move alike.
func TestBrowseRecordsMatchesSearch(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	check := func(when string) {
		t.Helper()
		for _, st := range []review.Status{review.Active, review.Retired} {
			for _, from := range []int{0, 3} {
				req := app.SearchRequest{Type: "record", Filters: map[string][]string{"status": {string(st)}}, Sort: []string{"_id"}, From: from, Size: 5}
				want, err := svc.Search(req)
				if err != nil {
					t.Fatal(err)
				}
				got, ok, err := svc.BrowseRecords(st, from, 5)
				if err != nil || !ok {
					t.Fatalf("BrowseRecords(%s, %d): ok %v, %v", st, from, ok, err)
				}
				ids := func(r *index.Results) (out []string) {
					for _, h := range r.Hits {
						out = append(out, h.ID)
					}
					return out
				}
				if got.Total != want.Total || !slices.Equal(ids(got), ids(want)) {
					t.Errorf("%s: %s from %d: browse %d %v, search %d %v", when, st, from, got.Total, ids(got), want.Total, ids(want))
				}
				if st == review.Active && from == 0 && len(got.Hits) != 5 {
					t.Errorf("%s: first page of active records has %d hits", when, len(got.Hits))
				}
			}
		}
	}
	check("sample world")
	first, _, err := svc.BrowseRecords(review.Active, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.DecideRecords(t.Context(), review.RecordRequest{Verb: review.Delete, IDs: []string{first.Hits[0].ID}, Operator: "ana"}); err != nil {
		t.Fatal(err)
	}
	check("after deleting " + first.Hits[0].ID)
}
