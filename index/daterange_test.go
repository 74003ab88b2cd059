package index

import (
	"slices"
	"testing"
)

// TestDateRangeOutsideTheIndex checks that a date range no indexed day
// falls in matches nothing, as a clause of the query like any other:
// bleve drops a clause without terms from a query string (meant for stop
// words), which made `+created:>="2099-01-01" +join` find every "join"
// in an index (or a tail chunk) without a later day.
func TestDateRangeOutsideTheIndex(t *testing.T) {
	t.Parallel()
	ix, _ := openSample(t)
	search := func(req Request) *Results {
		t.Helper()
		req.Size = 100
		res, err := ix.search(req, noCache)
		if err != nil {
			t.Fatalf("%q: %v", req.Query, err)
		}
		return res
	}
	join := search(Request{Query: "join"})
	within := search(Request{Query: `+created:>="2026-11-01" +join`})
	if join.Total == 0 || within.Total != join.Total || !slices.Equal(ids(within), ids(join)) {
		t.Fatalf("join: %v; +created:>=\"2026-11-01\" +join: %v; want the same, not none (the sample's day is 2026-11-01)", ids(join), ids(within))
	}
	for _, req := range []Request{
		{Query: `+created:>="2099-01-01" +join`},
		{Query: `+join +updated:<"2000-01-01"`, Type: "record"},
		{Query: `created:>="2099-01-01"`, Type: "record"},
		{Query: `+created:>="2099-01-01"`, Type: "record", Filters: map[string][]string{"env": {"shop"}}},
		{Query: `+created:>="2099-01-01"`},
	} {
		if res := search(req); res.Total != 0 || len(res.Hits) != 0 {
			t.Errorf("%q type=%q filters=%v: %d hits %v, want none (no day in range)", req.Query, req.Type, req.Filters, res.Total, ids(res))
		}
	}
	for _, q := range []string{`join -created:<"2000-01-01"`, `join created:>"2099-01-01"`} {
		if res := search(Request{Query: q}); !slices.Equal(ids(res), ids(join)) {
			t.Errorf("%q: %v, want join's %v", q, ids(res), ids(join))
		}
	}
}
