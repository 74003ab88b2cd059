package index

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// The golden files of the mapping equivalence tests, written once from the
// frozen copies of mapping versions 1 and 2 (mappingV1, mappingV2) by
// TestWriteMappingGoldens; the equivalence tests compare today's index
// with them, so that they no longer need the old mappings' code.

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

// TestWriteMappingGoldens writes the golden files from the frozen old
// mappings (MEMREVIEW_WRITE_GOLDENS=1 only; run once, then removed with
// the old mappings).
func TestWriteMappingGoldens(t *testing.T) {
	if os.Getenv("MEMREVIEW_WRITE_GOLDENS") != "1" {
		t.Skip("writes the golden files: MEMREVIEW_WRITE_GOLDENS=1")
	}
	for _, n := range []int{500, 1000} {
		for _, v := range []string{"1", "2"} {
			src := sampleBank()
			recs := sample.SynthRecords(n, benchSeed)
			src.putRecord(recs...)
			g := goldenFile{Records: n, Seed: benchSeed}
			var old *Index
			var reqs []Request
			tasks := []string{"join reviews to items", "prices in cents", ""}
			if v == "1" {
				g.About = "mapping version 1's answers (frozen copy of its mapping, bleve v2.6.3), written once before the planner; TestMappingV2Equivalent checks today's index against them"
				old = buildV1(t, src)
				reqs = equivalenceRequests(recs)
			} else {
				g.About = "mapping version 2's answers (frozen copy of its mapping, bleve v2.6.3), written once before the planner; TestMappingV3Equivalent checks today's index against them"
				src.putRecord(phraseRecords...)
				g.Phrases = true
				old = buildV2(t, src)
				reqs = append(equivalenceRequests(recs), v3Requests()...)
				tasks = []string{"join reviews to items", "prices in cents", "one row per order", ""}
			}
			for _, req := range reqs {
				res, err := old.search(req, false)
				if err != nil {
					t.Fatal(err)
				}
				g.Searches = append(g.Searches, goldenOf(req, res))
			}
			if v == "1" {
				for _, req := range dateRequests(recs) {
					res, err := old.search(req, false)
					if err != nil {
						t.Fatal(err)
					}
					gs := goldenOf(req, res)
					for i := range gs.Hits {
						gs.Hits[i].Score, gs.Hits[i].Fragments = 0, nil
					}
					gs.Facets = nil
					g.Dates = append(g.Dates, gs)
				}
			}
			for _, task := range tasks {
				for _, scope := range []review.Scope{{}, {Env: "shop"}, {Env: "docs", Tags: []string{"g1"}}} {
					got, err := old.Retrieve(task, scope, 10)
					if err != nil {
						t.Fatal(err)
					}
					g.Retrieve = append(g.Retrieve, goldenRetrieve{Task: task, Scope: scope, K: 10, Scored: got})
				}
			}
			b, err := json.MarshalIndent(g, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(goldenPath(v, n)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(goldenPath(v, n), append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func goldenOf(req Request, res *Results) goldenSearch {
	return goldenSearch{Request: req, Total: res.Total, Hits: res.Hits, Facets: res.Facets}
}
