package index

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// phraseRecords hold phrases at the edges of what "_all" without positions
// must still get right: a phrase split over two steps (array elements)
// or over two fields, which no version matches, and one inside a step.
var phraseRecords = []review.Record{
	{ID: "mem_p1", Lemma: "Count one row per order.", Steps: []string{"keep one row", "per item always"}, Trigger: "row per item"},
	{ID: "mem_p2", Lemma: "Totals need one row", Trigger: "per customer", Steps: []string{"then one row per customer is left"}},
	{ID: "mem_p3", Lemma: "A row is never null here", Steps: []string{"is never", "null"}},
}

// v3Requests are requests that lean on what version 3 changed: phrases on
// "_all" (bare, named, with stop words, excluded, ORed, on every type),
// phrases on one field, and highlighting of terms, prefixes and fuzzy
// terms.
func v3Requests() []Request {
	sorted := []string{"-_score", "_id"}
	var reqs []Request
	for _, q := range []string{
		`"one row per"`, `+"is never null"`, `_all:"row per"`, `"row per item"`, `"row per customer"`,
		`lemma:"one row"`, `steps:"row per"`, `+join -"one row per"`, `"never null" OR "one row per"`,
		`+"one row per" +category:fact`, `"recompute from" cents`, `joi*`, `jion~1`, `+join +reviews`,
		`"book reservation"`, `"the"`, `+"price cents" +confidence:>0.5`,
	} {
		for _, typ := range []string{"", "record"} {
			reqs = append(reqs, Request{Query: q, Type: typ, Highlight: true, Sort: sorted, Size: 50,
				Facets: []string{"category", "env", "status"}})
		}
	}
	reqs = append(reqs,
		Request{Query: `"one row per"`, Filters: map[string][]string{"env": {"docs", "shop"}}, Highlight: true, Sort: sorted},
		Request{Query: `"is never null"`, Type: "record", Highlight: true, From: 10, Size: 5, Sort: sorted},
	)
	return reqs
}

// TestMappingV3Equivalent checks that today's index ("_all" without
// positions since version 3, phrases checked on the text fields,
// fragments from a second search of the page) answers the comparison
// queries, the phrase requests and Retrieve with the same totals, hits,
// scores, facets and fragments as mapping version 2 did: version 2's
// answers are its golden file.
func TestMappingV3Equivalent(t *testing.T) {
	t.Parallel()
	src := sampleBank()
	recs := sample.SynthRecords(equivalenceN(), benchSeed)
	src.putRecord(recs...)
	src.putRecord(phraseRecords...)
	g := readGolden(t, "2", len(recs))
	if !g.Phrases {
		t.Fatal("the golden answers of version 2 were not written with the phrase records")
	}
	reqs := append(equivalenceRequests(recs), v3Requests()...)
	checkGoldenRequests(t, g.Searches, reqs)
	cur, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	fragments := compareGolden(t, g.Searches, cur)
	if fragments < len(reqs) {
		t.Errorf("%d fragments over %d requests; the highlights test little", fragments, len(reqs))
	}
	checkTopScores(t, cur, reqs)
	compareGoldenRetrieve(t, g.Retrieve, cur)
}

// TestPhraseEdges pins what the phrase requests above find, so that the
// equivalence is not two versions agreeing on nothing: a phrase holds
// within one step or one field, never across two (the phrase check's
// positions decide, not only which field holds the terms).
func TestPhraseEdges(t *testing.T) {
	t.Parallel()
	src := newFake()
	src.putRecord(phraseRecords...)
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for q, want := range map[string]string{
		`"one row per"`:       "record/mem_p1 record/mem_p2",
		`"row per item"`:      "record/mem_p1",
		`"row per customer"`:  "record/mem_p2",
		`"is never null"`:     "record/mem_p3",
		`lemma:"one row per"`: "record/mem_p1",
		`steps:"row per"`:     "record/mem_p2",
		// Every term in one field, but over two steps only (mem_p1's
		// "keep one row", "per item always") or over two fields only
		// (mem_p2's lemma and trigger): no hit.
		`"one row per item"`:          "",
		`"need one row per customer"`: "",
	} {
		res, err := ix.Search(Request{Query: q, Sort: []string{"_id"}, Highlight: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(ids(res)); got != "["+want+"]" {
			t.Errorf("%s: %s, want [%s]", q, got, want)
		}
		for _, h := range res.Hits {
			if len(h.Fragments) == 0 {
				t.Errorf("%s: %s has no fragments", q, h.ID)
			}
		}
	}
}
