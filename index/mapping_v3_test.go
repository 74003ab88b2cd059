package index

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// mappingV2 is the mapping of version 2, as it was before "_all" lost its
// positions: bleve's composite "_all" over the text fields, with term
// vectors. The equivalence test builds it beside the current one. It is
// a frozen copy of newMapping at version 2, kept apart from it on purpose
// (legacyMapping).
func mappingV2() (mapping.IndexMapping, error) {
	im, err := legacyMapping()
	if err != nil {
		return nil, err
	}
	stored := map[string]bool{"priority": true, "suspect": true}
	dm := bleve.NewDocumentStaticMapping()
	for _, f := range keywordFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = keywordAnalyzer
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		fm.Store = stored[f]
		dm.AddFieldMappingsAt(f, fm)
	}
	for _, f := range textFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.IncludeTermVectors = true
		fm.DocValues = false
		dm.AddFieldMappingsAt(f, fm)
	}
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store = false
	text.IncludeTermVectors = true
	text.DocValues = false
	dm.AddFieldMappingsAt("text", text)
	for _, f := range numericFields {
		fm := bleve.NewNumericFieldMapping()
		fm.IncludeInAll = false
		fm.Store = stored[f]
		dm.AddFieldMappingsAt(f, fm)
	}
	for _, f := range dateFields {
		fm := bleve.NewDateTimeFieldMapping()
		fm.IncludeInAll = false
		fm.Store = false
		dm.AddFieldMappingsAt(f, fm)
	}
	im.DefaultMapping = dm
	return im, nil
}

// buildV2 writes src's items into a version-2 index: today's documents,
// indexed through bleve's own mapping (and so its composite "_all").
func buildV2(t testing.TB, src *fakeSource) *Index {
	t.Helper()
	m, err := mappingV2()
	if err != nil {
		t.Fatal(err)
	}
	return buildLegacy(t, src, m, "2", func(add func(id string, d doc) error) error {
		return eachDoc(chunkOf(src), add)
	})
}

// chunkOf is every item of src as one chunk, records in id order.
func chunkOf(src *fakeSource) chunk {
	recs, _ := src.Records(review.RecordFilter{})
	props, _ := src.Proposals()
	trajs, _ := src.Trajectories()
	return chunk{recs: recs, props: props, trajs: trajs}
}

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

// TestMappingV3Equivalent checks that version 3 ("_all" without positions,
// phrases checked on the text fields, fragments from a second search of
// the page) answers the comparison queries, the phrase requests and
// Retrieve with the same totals, hits, scores, facets and fragments as
// version 2.
func TestMappingV3Equivalent(t *testing.T) {
	t.Parallel()
	src := sampleBank()
	recs := sample.SynthRecords(equivalenceN(), benchSeed)
	src.putRecord(recs...)
	src.putRecord(phraseRecords...)
	v2 := buildV2(t, src)
	v3, err := Open(filepath.Join(t.TempDir(), "v3"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer v3.Close()
	reqs := append(equivalenceRequests(recs), v3Requests()...)
	fragments := compareSearches(t, reqs, v2, v3)
	if fragments < len(reqs) {
		t.Errorf("%d fragments over %d requests; the highlights test little", fragments, len(reqs))
	}
	checkTopScores(t, v3, reqs)
	compareRetrieve(t, v2, v3, "join reviews to items", "prices in cents", "one row per order", "")
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
