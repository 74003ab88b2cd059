package index

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

// equivalenceRequests are the comparison queries of the benchmarks (with
// highlights and facets on every one), blank queries with filters, sorts
// hits with equal scores are ordered by
// id, as the screens order them.
func equivalenceRequests(recs []review.Record) []Request {
	var reqs []Request
	for _, q := range cmpQueries {
		r := bleveRequest(q)
		r.Highlight = true
		r.Facets = []string{"category", "env", "status", "tags"}
		// Ties go by id: documents fed by two goroutines reach the
		// segments in no fixed order, and bleve breaks ties by position.
		r.Sort = []string{"-_score", "_id"}
		reqs = append(reqs, r)
	}
	reqs = append(reqs,
		Request{Type: "record", Facets: []string{"category", "env", "status"}, Sort: []string{"_id"}, Size: 50},
		Request{Type: "record", Filters: map[string][]string{"env": {"docs"}}, Facets: []string{"category"}, Sort: []string{"_id"}, Size: 50},
		Request{Type: "record", Filters: map[string][]string{"category": {"warning", "fact"}, "env": {"shop"}}, Sort: []string{"-_id"}, Size: 50},
		Request{Query: "join", Sort: []string{"-confidence", "_id"}, Size: 30, Highlight: true},
		Request{Query: `"dollars"`, Highlight: true, Sort: []string{"-_score", "_id"}},
	)
	return reqs
}

// dateRequests are date ranges on a day boundary. They find the same
// records under both mappings, but their scores differ: bleve scores a
// range as the terms it spans, and a day spans other terms than a
// timestamp. So they are compared by total and ids (in id order) only.
func dateRequests(recs []review.Record) []Request {
	mid := schema.Day(recs[len(recs)/2].Created).Format("2006-01-02")
	return []Request{
		{Query: fmt.Sprintf(`+created:>="%s" +join`, mid), Type: "record", Sort: []string{"_id"}, Size: 1000},
		{Query: fmt.Sprintf(`updated:<"%s"`, mid), Type: "record", Sort: []string{"-_id"}, Size: 1000},
		{Query: fmt.Sprintf(`created:>"%s"`, mid), Sort: []string{"_id"}, Size: 1000},
	}
}

// equivalenceN is the corpus of the mapping equivalence tests: 1,000
// records under CI, 500 otherwise (the test suite's time).
func equivalenceN() int {
	if testenv.CI() {
		return 1000
	}
	return 500
}

// TestMappingV2Equivalent checks that today's index answers the
// comparison requests with the same totals, hits in the same order, the
// same scores, facets and highlight fragments as mapping version 1 did
// (day dates, fewer doc values and stored values came with version 2),
// that the date ranges find the same records, and that Retrieve ranks
// alike: version 1's answers are its golden file.
func TestMappingV2Equivalent(t *testing.T) {
	t.Parallel()
	src := sampleBank()
	recs := sample.SynthRecords(equivalenceN(), benchSeed)
	src.putRecord(recs...)
	g := readGolden(t, "1", len(recs))
	checkGoldenRequests(t, g.Searches, equivalenceRequests(recs))
	checkGoldenRequests(t, g.Dates, dateRequests(recs))
	cur, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	compareGolden(t, g.Searches, cur)
	for _, d := range g.Dates {
		got, err := cur.search(d.Request, noCache)
		if err != nil {
			t.Fatal(err)
		}
		if d.Total == 0 || d.Total == uint64(len(recs)) {
			t.Errorf("%q: %d hits; the date bound splits nothing", d.Request.Query, d.Total)
		}
		if want := (&Results{Hits: d.Hits}); got.Total != d.Total || !slices.Equal(ids(got), ids(want)) {
			t.Errorf("%q: %d hits %v, want %d %v", d.Request.Query, got.Total, ids(got), d.Total, ids(want))
		}
	}
	compareGoldenRetrieve(t, g.Retrieve, cur)
}

// goldenFile is one golden file: the corpus it was answered on, and each
// request with what the old version answered.
type goldenFile struct {
	About    string           `json:"about"`
	Records  int              `json:"records"` // sample.SynthRecords(Records, Seed) beside sampleBank
	Seed     int64            `json:"seed"`
	Phrases  bool             `json:"phrase_records"` // phraseRecords too
	Searches []goldenSearch   `json:"searches"`
	Dates    []goldenSearch   `json:"dates,omitempty"` // compared by total and ids only
	Retrieve []goldenRetrieve `json:"retrieve"`
}

type goldenSearch struct {
	Request Request                 `json:"request"`
	Total   uint64                  `json:"total"`
	Hits    []Hit                   `json:"hits"`
	Facets  map[string][]FacetCount `json:"facets,omitempty"`
}

type goldenRetrieve struct {
	Task   string       `json:"task"`
	Scope  review.Scope `json:"scope"`
	K      int          `json:"k"`
	Scored []Scored     `json:"scored"`
}

// goldenPath is the golden file of mapping version v at n records.
func goldenPath(v string, n int) string {
	return filepath.Join("testdata", "golden", fmt.Sprintf("mapping_v%s_%d.json", v, n))
}

// readGolden reads the golden file of mapping version v at n records:
// that version's answers, written once from a frozen copy of its mapping
// (git log testdata/golden), never from today's code.
func readGolden(t *testing.T, v string, n int) goldenFile {
	t.Helper()
	b, err := os.ReadFile(goldenPath(v, n))
	if err != nil {
		t.Fatalf("golden answers of mapping version %s at %d records: %v", v, n, err)
	}
	var g goldenFile
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", goldenPath(v, n), err)
	}
	if g.Records != n || g.Seed != benchSeed {
		t.Fatalf("%s: written for %d records, seed %d; want %d, seed %d", goldenPath(v, n), g.Records, g.Seed, n, benchSeed)
	}
	return g
}

// checkGoldenRequests fails when the requests of the golden file are not
// reqs, the requests the code builds: the goldens pin the answers to
// those requests, and are not written again.
func checkGoldenRequests(t *testing.T, golden []goldenSearch, reqs []Request) {
	t.Helper()
	if len(golden) != len(reqs) {
		t.Fatalf("%d golden requests, the code builds %d", len(golden), len(reqs))
	}
	for i, g := range golden {
		want := reqs[i]
		if !reflect.DeepEqual(normRequest(g.Request), normRequest(want)) {
			t.Fatalf("golden request %d is %+v, the code builds %+v", i, g.Request, want)
		}
	}
}

// normRequest is req with empty maps and lists as nil (as JSON reads them).
func normRequest(req Request) Request {
	if len(req.Filters) == 0 {
		req.Filters = nil
	}
	if len(req.Facets) == 0 {
		req.Facets = nil
	}
	if len(req.Sort) == 0 {
		req.Sort = nil
	}
	return req
}

// compareGolden checks that cur answers every golden request as the old
// version did, and that the requests find something: at most a fifth of
// them may find nothing. It returns the number of fragments the old
// version's hits held.
func compareGolden(t *testing.T, golden []goldenSearch, cur *Index) (fragments int) {
	t.Helper()
	empty := 0
	for _, g := range golden {
		req := g.Request
		name := fmt.Sprintf("%q type=%q filters=%v sort=%v from=%d", req.Query, req.Type, req.Filters, req.Sort, req.From)
		got, err := cur.search(req, noCache)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g.Total == 0 {
			empty++
		}
		for _, h := range g.Hits {
			fragments += len(h.Fragments)
		}
		sameResults(t, name, got, &Results{Total: g.Total, Hits: g.Hits, Facets: g.Facets})
	}
	if empty > len(golden)/5 {
		t.Errorf("%d of %d requests found nothing; they test little", empty, len(golden))
	}
	return fragments
}

// compareGoldenRetrieve checks that cur's Retrieve ranks each golden task
// and scope as the old version did.
func compareGoldenRetrieve(t *testing.T, golden []goldenRetrieve, cur *Index) {
	t.Helper()
	for _, g := range golden {
		got, err := cur.Retrieve(g.Task, g.Scope, g.K)
		if err != nil {
			t.Fatal(err)
		}
		want := g.Scored
		if len(got) != len(want) {
			t.Fatalf("Retrieve(%q, %v): %d records, want %d", g.Task, g.Scope, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID || !near(got[i].Score, want[i].Score) {
				t.Errorf("Retrieve(%q, %v)[%d] = %v, want %v", g.Task, g.Scope, i, got[i], want[i])
			}
		}
	}
}

// sameResults compares two answers to one request.
func sameResults(t *testing.T, name string, got, want *Results) {
	t.Helper()
	if got.Total != want.Total {
		t.Errorf("%s: total %d, want %d", name, got.Total, want.Total)
	}
	if len(got.Hits) != len(want.Hits) {
		t.Fatalf("%s: %d hits, want %d", name, len(got.Hits), len(want.Hits))
	}
	for i := range got.Hits {
		g, w := got.Hits[i], want.Hits[i]
		if g.ID != w.ID || g.Type != w.Type || !near(g.Score, w.Score) {
			t.Errorf("%s: hit %d = %s %s %.6f, want %s %s %.6f", name, i, g.Type, g.ID, g.Score, w.Type, w.ID, w.Score)
		}
		if !reflect.DeepEqual(g.Fragments, w.Fragments) {
			t.Errorf("%s: hit %s fragments %v, want %v", name, g.ID, g.Fragments, w.Fragments)
		}
	}
	if !reflect.DeepEqual(got.Facets, want.Facets) {
		t.Errorf("%s: facets %v, want %v", name, got.Facets, want.Facets)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
