package index

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/single"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

// legacyMapping is the part every past mapping version shares: BM25,
// English by default, bare terms on "_all", the keyword analyzer. The
// past versions (mappingV1, mappingV2) are deliberately frozen copies of
// what newMapping built then, not built from newMapping, so that a change
// to today's mapping cannot change what the equivalence tests compare
// against.
func legacyMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = "bm25"
	im.DefaultAnalyzer = en.AnalyzerName
	im.DefaultField = "_all"
	err := im.AddCustomAnalyzer(keywordAnalyzer, map[string]interface{}{
		"type": custom.Name, "tokenizer": single.Name, "token_filters": []string{lowercase.Name},
	})
	if err != nil {
		return nil, err
	}
	return im, nil
}

// mappingV1 is the mapping of version 1, as it was before the leaner
// mapping: doc values and stored values on every field, dates at full
// resolution. The equivalence test builds it beside the current one.
func mappingV1() (mapping.IndexMapping, error) {
	im, err := legacyMapping()
	if err != nil {
		return nil, err
	}
	dm := bleve.NewDocumentStaticMapping()
	for _, f := range keywordFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = keywordAnalyzer
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		dm.AddFieldMappingsAt(f, fm)
	}
	for _, f := range textFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.IncludeTermVectors = true
		dm.AddFieldMappingsAt(f, fm)
	}
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store = false
	text.IncludeTermVectors = true
	dm.AddFieldMappingsAt("text", text)
	for _, f := range numericFields {
		fm := bleve.NewNumericFieldMapping()
		fm.IncludeInAll = false
		dm.AddFieldMappingsAt(f, fm)
	}
	for _, f := range dateFields {
		fm := bleve.NewDateTimeFieldMapping()
		fm.IncludeInAll = false
		dm.AddFieldMappingsAt(f, fm)
	}
	im.DefaultMapping = dm
	return im, nil
}

// buildV1 writes src's items into a version-1 index: the
// documents of today with their dates at full resolution, as version 1
// indexed them.
func buildV1(t testing.TB, src *fakeSource) *Index {
	t.Helper()
	m, err := mappingV1()
	if err != nil {
		t.Fatal(err)
	}
	return buildLegacy(t, src, m, "1", func(add func(id string, d doc) error) error {
		recs, _ := src.Records(review.RecordFilter{})
		for i := range recs {
			d := recordDoc(&recs[i])
			d["created"], d["updated"] = recs[i].Created, recs[i].Updated
			if err := add(docID("record", recs[i].ID), d); err != nil {
				return err
			}
		}
		props, _ := src.Proposals()
		for i := range props {
			d := proposalDoc(&props[i])
			d["created"] = props[i].Created
			if err := add(docID("proposal", props[i].ID), d); err != nil {
				return err
			}
		}
		trajs, _ := src.Trajectories()
		for i := range trajs {
			d := trajectoryDoc(&trajs[i])
			d["created"], d["updated"] = trajs[i].Started, trajs[i].Ended
			if err := add(docID("trajectory", trajs[i].ID), d); err != nil {
				return err
			}
		}
		return nil
	})
}

// buildLegacy writes an index of a past mapping version under m: fill
// adds the documents through add (bleve's own Batch.Index, so bleve's
// composite "_all"), and the index is marked as version and as caught up
// with src.
func buildLegacy(t testing.TB, src *fakeSource, m mapping.IndexMapping, version string, fill func(add func(id string, d doc) error) error) *Index {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "v"+version)
	idx, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := idx.NewBatch()
	err = fill(func(id string, d doc) error {
		if err := b.Index(id, d); err != nil {
			return err
		}
		if b.Size() >= batchSize {
			if err := idx.Batch(b); err != nil {
				return err
			}
			b.Reset()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b.SetInternal(mappingKey, []byte(version))
	b.SetInternal(seqKey, []byte(strconv.Itoa(len(src.log))))
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	ix := &Index{dir: dir, src: src, idx: idx}
	ix.seq.Store(int64(len(src.log)))
	t.Cleanup(func() { ix.Close() })
	return ix
}

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
	mid := day(recs[len(recs)/2].Created).Format("2006-01-02")
	return []Request{
		{Query: fmt.Sprintf(`+created:>="%s" +join`, mid), Type: "record", Sort: []string{"_id"}, Size: 1000},
		{Query: fmt.Sprintf(`updated:<"%s"`, mid), Type: "record", Sort: []string{"-_id"}, Size: 1000},
		{Query: fmt.Sprintf(`created:>"%s"`, mid), Sort: []string{"_id"}, Size: 1000},
	}
}

// TestMappingV2Equivalent checks that the version-2 mapping (day dates,
// fewer doc values and stored values) answers the comparison queries with
// the same totals, hits in the same order, the same scores, facets and
// highlight fragments as version 1, and that Retrieve ranks alike.
// equivalenceN is the corpus of the mapping equivalence tests: 1,000
// records under CI, 500 otherwise (the test suite's time).
func equivalenceN() int {
	if testenv.CI() {
		return 1000
	}
	return 500
}

func TestMappingV2Equivalent(t *testing.T) {
	t.Parallel()
	src := sampleBank()
	recs := sample.SynthRecords(equivalenceN(), benchSeed)
	src.putRecord(recs...)
	v1 := buildV1(t, src)
	v2, err := Open(filepath.Join(t.TempDir(), "v2"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	compareSearches(t, equivalenceRequests(recs), v1, v2)
	for _, req := range dateRequests(recs) {
		want, err1 := v1.search(req, false)
		got, err2 := v2.search(req, false)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if want.Total == 0 || want.Total == uint64(len(recs)) {
			t.Errorf("%q: %d hits; the date bound splits nothing", req.Query, want.Total)
		}
		if got.Total != want.Total || !slices.Equal(ids(got), ids(want)) {
			t.Errorf("%q: %d hits %v, want %d %v", req.Query, got.Total, ids(got), want.Total, ids(want))
		}
	}
	compareRetrieve(t, v1, v2, "join reviews to items", "prices in cents", "")
}

// compareSearches checks that cur answers every request as old does, and
// that the requests find something: at most a fifth of them may find
// nothing. It returns the number of fragments old's hits held.
func compareSearches(t *testing.T, reqs []Request, old, cur *Index) (fragments int) {
	t.Helper()
	empty := 0
	for _, req := range reqs {
		name := fmt.Sprintf("%q type=%q filters=%v sort=%v from=%d", req.Query, req.Type, req.Filters, req.Sort, req.From)
		want, err := old.search(req, false)
		if err != nil {
			t.Fatalf("%s on the old version: %v", name, err)
		}
		got, err := cur.search(req, false)
		if err != nil {
			t.Fatalf("%s on the current version: %v", name, err)
		}
		if want.Total == 0 {
			empty++
		}
		for _, h := range want.Hits {
			fragments += len(h.Fragments)
		}
		sameResults(t, name, got, want)
	}
	if empty > len(reqs)/5 {
		t.Errorf("%d of %d requests found nothing; they test little", empty, len(reqs))
	}
	return fragments
}

// compareRetrieve checks that cur's Retrieve ranks each task as old's
// does, in three scopes.
func compareRetrieve(t *testing.T, old, cur *Index, tasks ...string) {
	t.Helper()
	for _, task := range tasks {
		for _, scope := range []review.Scope{{}, {Env: "shop"}, {Env: "docs", Tags: []string{"g1"}}} {
			want, err1 := old.Retrieve(task, scope, 10)
			got, err2 := cur.Retrieve(task, scope, 10)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if len(got) != len(want) {
				t.Fatalf("Retrieve(%q, %v): %d records, want %d", task, scope, len(got), len(want))
			}
			for i := range got {
				if got[i].ID != want[i].ID || !near(got[i].Score, want[i].Score) {
					t.Errorf("Retrieve(%q, %v)[%d] = %v, want %v", task, scope, i, got[i], want[i])
				}
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
