package index

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
)

// openSample opens an index of sampleBank in a temporary directory.
func openSample(t *testing.T) (*Index, *fakeSource) {
	t.Helper()
	src := sampleBank()
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, src
}

// ids returns the sorted "type/id" of each hit.
func ids(res *Results) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Type+"/"+h.ID)
	}
	slices.Sort(out)
	return out
}

func recs(ids ...string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, "record/"+id)
	}
	slices.Sort(out)
	return out
}

func TestSearch(t *testing.T) {
	ix, _ := openSample(t)
	tests := []struct {
		name string
		req  Request
		want []string
	}{
		{"keyword field lower-case", Request{Query: "category:fact"}, recs("mem_2", "mem_3")},
		{"keyword field capitalised", Request{Query: "category:Fact"}, recs("mem_2", "mem_3")},
		{"quoted keyword value", Request{Query: `id:"mem_2"`}, recs("mem_2")},
		{"quoted keyword value, capitalised", Request{Query: `+category:"Fact" +id:"MEM_3"`}, recs("mem_3")},
		{"stemming joining finds join", Request{Query: "joining", Type: "record"}, recs("mem_1", "mem_4", "mem_5")},
		{"bare terms search text fields", Request{Query: "dollars"}, recs("mem_2")},
		{"bare terms search the catch-all", Request{Query: "airline", Type: "record"}, recs("mem_3")},
		{"numeric range", Request{Query: "confidence:>0.7", Type: "record"}, recs("mem_1", "mem_2", "mem_4", "mem_6")},
		{"must and must not", Request{Query: "+join -customers", Type: "record"}, recs("mem_1", "mem_5")},
		{"phrase", Request{Query: `"orders table"`, Type: "record"}, recs("mem_2")},
		{"phrase words apart do not match", Request{Query: `"table orders"`, Type: "record"}, nil},
		{"type filter", Request{Type: "proposal"}, []string{"proposal/prop_1"}},
		{"proposal fields from its record", Request{Query: "category:relation env:shop", Type: "proposal"}, []string{"proposal/prop_1"}},
		{"proposal rationale", Request{Query: "rationale:probing"}, []string{"proposal/prop_1"}},
		{"trajectory by tool name", Request{Query: "book_reservation", Type: "trajectory"}, []string{"trajectory/traj_1"}},
		{"trajectory tool name field", Request{Query: "tools:search_flights"}, []string{"trajectory/traj_1"}},
		{"trajectory tool name part", Request{Query: "reservation", Type: "trajectory"}, []string{"trajectory/traj_1"}},
		{"trajectory passed", Request{Query: "passed:false"}, []string{"trajectory/traj_2"}},
		{"trajectory answer", Request{Query: "answer:267"}, []string{"trajectory/traj_2"}},
		{"filters any-of and across fields", Request{Type: "record", Filters: map[string][]string{
			"env": {"Shop"}, "category": {"relation", "warning"}}}, recs("mem_1", "mem_4", "mem_5")},
		{"filters with query", Request{Query: "join", Filters: map[string][]string{"status": {"active"}}, Type: "record"}, recs("mem_1", "mem_4")},
		{"tags", Request{Query: "tags:G1"}, recs("mem_1")},
		{"date range", Request{Query: `created:>"2026-10-01T00:00:00Z" -type:trajectory -type:proposal`}, recs("mem_1", "mem_2", "mem_3", "mem_4", "mem_5", "mem_6")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ix.Search(tt.req)
			if err != nil {
				t.Fatalf("Search(%+v): %v", tt.req, err)
			}
			if got := ids(res); !slices.Equal(got, tt.want) {
				t.Errorf("Search(%q, type %q) = %v, want %v", tt.req.Query, tt.req.Type, got, tt.want)
			}
			if res.Total != uint64(len(tt.want)) {
				t.Errorf("Total = %d, want %d", res.Total, len(tt.want))
			}
		})
	}
}

func TestSearchErrors(t *testing.T) {
	ix, _ := openSample(t)
	tests := []struct {
		req  Request
		want string
	}{
		{Request{Query: `lemma:"unterminated`}, "unterminated quote"},
		{Request{Query: "confidence:>abc"}, "cannot parse"},
		{Request{Query: "nosuch:x"}, `unknown field "nosuch"`},
		{Request{Query: "+lemma:x -colour:red"}, `unknown field "colour"`},
		{Request{Filters: map[string][]string{"confidence": {"1"}}}, "cannot filter"},
		{Request{Facets: []string{"nosuch"}}, "cannot count facet"},
		{Request{Sort: []string{"-nosuch"}}, "cannot sort"},
		{Request{Type: "records"}, "unknown type"},
	}
	for _, tt := range tests {
		_, err := ix.Search(tt.req)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Search(%+v) error = %v, want one containing %q", tt.req, err, tt.want)
		}
	}
}

func TestSearchFacets(t *testing.T) {
	ix, _ := openSample(t)
	res, err := ix.Search(Request{Type: "record", Facets: []string{"category", "env", "status"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]int{
		"category": {"relation": 2, "fact": 2, "warning": 1, "strategy": 1},
		"env":      {"shop": 4, "airline": 1},
		"status":   {"active": 5, "retired": 1},
	}
	for field, terms := range want {
		got := map[string]int{}
		for _, fc := range res.Facets[field] {
			got[fc.Term] = fc.Count
		}
		if len(got) != len(terms) {
			t.Errorf("facet %s = %v, want %v", field, got, terms)
		}
		for term, n := range terms {
			if got[term] != n {
				t.Errorf("facet %s[%s] = %d, want %d (all: %v)", field, term, got[term], n, got)
			}
		}
	}
	// Facets count the hits of the query, not the whole index.
	res, err = ix.Search(Request{Query: "env:airline", Facets: []string{"type"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, fc := range res.Facets["type"] {
		got[fc.Term] = fc.Count
	}
	if got["record"] != 1 || got["trajectory"] != 1 || len(got) != 2 {
		t.Errorf("type facet for env:airline = %v, want record 1, trajectory 1", got)
	}
}

func TestSearchHighlight(t *testing.T) {
	ix, _ := openSample(t)
	res, err := ix.Search(Request{Query: "reviews", Type: "record", Highlight: true})
	if err != nil {
		t.Fatal(err)
	}
	var frag []string
	for _, h := range res.Hits {
		if h.ID == "mem_1" {
			frag = h.Fragments["lemma"]
		}
	}
	if len(frag) == 0 || !strings.Contains(frag[0], "<mark>reviews</mark>") {
		t.Fatalf("mem_1 lemma fragments = %q, want one marking %q", frag, "reviews")
	}
	if !strings.Contains(frag[0], "fdbk_g1.ref_id = items_g1.item_id") {
		t.Errorf("fragment %q lost or escaped the stored text", frag[0])
	}
	res, err = ix.Search(Request{Query: "reviews", Type: "record"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if len(h.Fragments) > 0 {
			t.Errorf("hit %s has fragments without Highlight", h.ID)
		}
	}
}

func TestSearchSortAndPage(t *testing.T) {
	ix, _ := openSample(t)
	res, err := ix.Search(Request{Type: "record", Sort: []string{"-confidence"}, From: 1, Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Hits {
		got = append(got, h.ID)
	}
	if want := []string{"mem_1", "mem_2"}; !slices.Equal(got, want) || res.Total != 6 {
		t.Errorf("page 2 by -confidence = %v (total %d), want %v (total 6)", got, res.Total, want)
	}
}

func retrieved(t *testing.T, ix *Index, task string, scope review.Scope, k int) []string {
	t.Helper()
	got, err := ix.Retrieve(task, scope, k)
	if err != nil {
		t.Fatalf("Retrieve(%q): %v", task, err)
	}
	var out []string
	for i, s := range got {
		if i > 0 && s.Score > got[i-1].Score {
			t.Errorf("Retrieve(%q) not sorted by score: %v", task, got)
		}
		out = append(out, s.ID)
	}
	return out
}

func TestRetrieveScope(t *testing.T) {
	ix, _ := openSample(t)
	tests := []struct {
		task  string
		scope review.Scope
		k     int
		want  []string
	}{
		// mem_5 is retired; mem_3 is for another env.
		{"how do reviews join items", review.Scope{Env: "shop"}, 5, []string{"mem_1", "mem_4"}},
		{"flight prices per passenger", review.Scope{Env: "shop"}, 5, nil},
		{"flight prices per passenger", review.Scope{Env: "airline"}, 5, []string{"mem_3"}},
		{"flight prices per passenger", review.Scope{}, 5, []string{"mem_3"}},
		// Records without env apply everywhere.
		{"list tables in the schema", review.Scope{Env: "airline"}, 5, []string{"mem_6"}},
		// mem_1 is tagged g1 only; mem_4 carries g2.
		{"join", review.Scope{Env: "shop", Tags: []string{"G2"}}, 5, []string{"mem_4"}},
		// Records without tags pass a tag scope.
		{"orders totals", review.Scope{Env: "shop", Tags: []string{"g9"}}, 5, []string{"mem_2"}},
		{"join reviews customers orders", review.Scope{Env: "shop"}, 1, []string{"mem_4"}},
	}
	for _, tt := range tests {
		got := retrieved(t, ix, tt.task, tt.scope, tt.k)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Retrieve(%q, %+v, %d) = %v, want %v", tt.task, tt.scope, tt.k, got, tt.want)
		}
	}
}

func TestRetrieveRanking(t *testing.T) {
	src := newFake()
	lemma := "Check the shipping table for delayed parcels."
	src.putRecord(
		review.Record{ID: "low", Lemma: lemma, Category: review.Fact, Priority: 0, Confidence: 0.9},
		review.Record{ID: "high", Lemma: lemma, Category: review.Fact, Priority: 5, Confidence: 0.9},
		review.Record{ID: "suspect", Lemma: lemma, Category: review.Fact, Priority: 5, Confidence: 0.9, Suspect: true},
		review.Record{ID: "other", Lemma: "Invoices are monthly.", Category: review.Fact, Priority: 9},
	)
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	got, err := ix.Retrieve("delayed parcels in shipping", review.Scope{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range got {
		order = append(order, s.ID)
	}
	// Same BM25 score: weights 1.5 (high), 1.0 (low), 0.75 (suspect).
	if want := []string{"high", "low", "suspect"}; !slices.Equal(order, want) {
		t.Fatalf("Retrieve order = %v, want %v", order, want)
	}
	if r := got[0].Score / got[1].Score; r < 1.49 || r > 1.51 {
		t.Errorf("high/low score ratio = %.3f, want 1.5 (score × (1 + 0.1×priority))", r)
	}
	// A blank task ranks by weight alone.
	if order := retrieved(t, ix, "  ", review.Scope{}, 2); !slices.Equal(order, []string{"other", "high"}) {
		t.Errorf("Retrieve(blank) = %v, want [other high]", order)
	}
}

// TestDateRanges checks date queries on the date fields, which hold days:
// a lower bound takes its whole day, an upper bound at midnight leaves
// that day out and one inside a day takes all of it, a quoted day is that
// day, and a sort by date orders by day, then by the next key.
func TestDateRanges(t *testing.T) {
	src := newFake()
	day := func(d int, h int) time.Time { return time.Date(2026, 3, d, h, 30, 0, 0, time.UTC) }
	for i, d := range []int{1, 2, 2, 3, 4} {
		src.putRecord(review.Record{ID: fmt.Sprintf("mem_d%d", i), Lemma: "dated note", Category: review.Fact,
			Created: day(d, 10+i), Updated: day(d, 12)})
	}
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for q, want := range map[string][]string{
		`created:>="2026-03-02"`:                         recs("mem_d1", "mem_d2", "mem_d3", "mem_d4"),
		`created:>"2026-03-02T11:00:00Z"`:                recs("mem_d1", "mem_d2", "mem_d3", "mem_d4"), // the whole day of a lower bound
		`created:<"2026-03-03"`:                          recs("mem_d0", "mem_d1", "mem_d2"),           // midnight: that day left out
		`created:<="2026-03-03T01:00:00Z"`:               recs("mem_d0", "mem_d1", "mem_d2", "mem_d3"), // inside a day: all of it
		`+created:>="2026-03-02" +created:<"2026-03-04"`: recs("mem_d1", "mem_d2", "mem_d3"),
		`created:"2026-03-02"`:                           recs("mem_d1", "mem_d2"),
		`updated:>"2026-03-04"`:                          recs("mem_d4"),
	} {
		res, err := ix.Search(Request{Query: q, Type: "record", Size: 10})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := ids(res); !slices.Equal(got, want) || res.Total != uint64(len(want)) {
			t.Errorf("%s: %d %v, want %v", q, res.Total, got, want)
		}
	}
	res, err := ix.Search(Request{Type: "record", Sort: []string{"-created", "_id"}, Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, h := range res.Hits {
		order = append(order, h.ID)
	}
	if want := []string{"mem_d4", "mem_d3", "mem_d1", "mem_d2", "mem_d0"}; !slices.Equal(order, want) {
		t.Errorf("sorted by -created, _id: %v, want %v", order, want)
	}
}
