package index

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// testFirstHits checks that a blank query with filters ordered by score
// alone, answered from its first From+Size hits with the total counted
// apart (firstHits), gives what bleve's collector gives over every hit:
// totals, hits in order, scores and facets, on several filters and pages,
// one past the last hit included.
func testFirstHits(t *testing.T, ix *Index) {
	var reqs []Request
	for _, typ := range []string{"record", ""} {
		for _, filters := range []map[string][]string{
			nil,
			{"env": {"docs"}},
			{"env": {"shop"}, "category": {"warning", "fact"}},
			{"status": {"active"}},
			{"lemma": {"join"}},
		} {
			if typ == "" && filters == nil {
				continue // a plain blank query is not rewritten
			}
			for _, sort := range [][]string{nil, {"-_score"}} {
				for _, page := range [][2]int{{0, 20}, {5, 40}, {113, 7}, {0, 1}, {10_000, 5}} {
					reqs = append(reqs, Request{Type: typ, Filters: filters, Sort: sort, From: page[0], Size: page[1], Facets: []string{"env"}})
				}
			}
		}
	}
	// The first hits must stop early somewhere: totals above the page.
	partial := 0
	for _, req := range reqs {
		name := fmt.Sprintf("type %q filters %v sort %v from %d size %d", req.Type, req.Filters, req.Sort, req.From, req.Size)
		var want, got *Results
		onOneSnapshot(t, ix, func() { want, got = searchOff(t, ix, req, "first-hits"), mustSearch(t, ix, req) })
		sameResults(t, name, got, want)
		if got.Ranked != 0 || got.Estimated != want.Estimated {
			t.Errorf("%s: ranked %d, estimated %v; want 0 and %v", name, got.Ranked, got.Estimated, want.Estimated)
		}
		if want.Total > uint64(req.From+req.Size) && len(want.Hits) > 0 {
			partial++
		}
	}
	if partial < 20 {
		t.Errorf("only %d requests have more hits than their page", partial)
	}
}

// TestRankBound checks the bounded ranking of huge result sets: with
// rankOver lowered, a query ordered by score with more hits returns the
// best of its first rankOver hits in index order (computed here apart,
// from an unscored search, which keeps that order), marked Ranked and
// Estimated, with a total near the exact one; Exact, or a query with
// fewer hits, gives exactly what the unbounded search gives.
func TestRankBound(t *testing.T) {
	t.Parallel()
	src := newFake()
	src.putRecord(sample.SynthRecords(1500, benchSeed)...)
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	const bound = 120
	unbounded := func(req Request) *Results {
		t.Helper()
		return tunedSearch(t, ix, plan.Tuning{RankOver: math.MaxInt}, req, noCache)
	}
	bounded := func(req Request) *Results {
		t.Helper()
		return tunedSearch(t, ix, plan.Tuning{RankOver: bound}, req, noCache)
	}
	for _, sort := range [][]string{nil, {"-_score"}, {"-_score", "_id"}} {
		for _, page := range [][2]int{{0, 20}, {10, 30}, {140, 20}} {
			req := Request{Query: "+join", Sort: sort, From: page[0], Size: page[1]}
			name := fmt.Sprintf("%q sort %v from %d", req.Query, sort, req.From)
			var exact, got, exactAgain *Results
			var want []string
			onOneSnapshot(t, ix, func() {
				exact = unbounded(req)
				got = bounded(req)
				want = bestOfFirst(t, ix, exact, req, bound)
				r := req
				r.Exact = true
				exactAgain = bounded(r)
			})
			if exact.Total < 3*bound || exact.Ranked != 0 {
				t.Fatalf("%s: %d hits, ranked %d; want over %d, not ranked", name, exact.Total, exact.Ranked, 3*bound)
			}
			if got.Ranked != bound || !got.Estimated {
				t.Errorf("%s: ranked %d, estimated %v; want %d, estimated", name, got.Ranked, got.Estimated, bound)
			}
			if r := float64(got.Total) / float64(exact.Total); r < 0.65 || r > 1.5 {
				t.Errorf("%s: estimated %d hits, exact %d", name, got.Total, exact.Total)
			}
			if !slices.Equal(hitKeys(got), want) {
				t.Errorf("%s: hits %v, want the best of the first %d: %v", name, hitKeys(got), bound, want)
			}
			if slices.Equal(hitKeys(got), hitKeys(exact)) && req.From == 0 {
				t.Errorf("%s: the bounded page is the exact one; the test tells nothing", name)
			}
			sameResults(t, name+" exact", exactAgain, exact)
		}
	}
	// Under the bound nothing changes.
	for _, q := range []string{"+coalesce", "+warranty_months", `+"recompute from"`} {
		req := Request{Query: q, Size: 20}
		var exact, got *Results
		onOneSnapshot(t, ix, func() { exact, got = unbounded(req), bounded(req) })
		if exact.Total == 0 || exact.Total > bound {
			t.Fatalf("%q: %d hits; want 1 to %d", q, exact.Total, bound)
		}
		sameResults(t, q, got, exact)
		if got.Ranked != 0 {
			t.Errorf("%q: ranked %d under the bound", q, got.Ranked)
		}
	}
	testRankBoundPhrase(t, ix, bound)
	testWorkBound(t, ix)
	testBlockSample(t, ix)
	testRetrieveTopScores(t, ix)
}

// testRetrieveTopScores checks that Retrieve, which reads the tie-break
// keys of only the hits that can reach its pool, picks what it picks
// with bleve's sort of every hit.
func testRetrieveTopScores(t *testing.T, ix *Index) {
	ties := 0
	for _, task := range []string{"join", "join reviews to items", "prices in cents", "coalesce null"} {
		for _, scope := range []review.Scope{{}, {Env: "shop"}, {Tags: []string{"g1"}}} {
			for _, k := range []int{1, 5, 20} {
				want := tunedRetrieve(t, ix, plan.Tuning{Off: []string{"top-scores"}}, task, scope, k)
				got, err := ix.Retrieve(task, scope, k)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) == 0 || !slices.Equal(got, want) {
					t.Errorf("Retrieve(%q, %v, %d) = %v, want %v", task, scope, k, got, want)
				}
				for i := 1; i < len(want); i++ {
					if want[i].Score == want[i-1].Score {
						ties++
					}
				}
			}
		}
	}
	if ties == 0 {
		t.Error("no retrieval has a tie; the id order is not tested")
	}
}

// testBlockSample checks the facet sample: about target of a query's
// hits, all in the runs of doc numbers it samples, and spread over the
// whole index (runs from its start to its end).
func testBlockSample(t *testing.T, ix *Index) {
	q, err := plan.ParseQuery("+join") // no phrase: the query the plan runs
	if err != nil {
		t.Fatal(err)
	}
	root := query.NewBooleanQuery([]query.Query{q}, nil, nil)
	all, err := ix.idx.Search(bleve.NewSearchRequestOptions(root, 0, 0, false))
	if err != nil {
		t.Fatal(err)
	}
	const target = 120
	bs := &bleveext.BlockSampleQuery{Inner: root, Total: all.Total, Target: target}
	sr := bleve.NewSearchRequestOptions(bs, 10_000, 0, false)
	sr.Score = "none"
	res, err := ix.idx.Search(sr)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total < target/2 || res.Total > 2*target || all.Total < 4*target {
		t.Fatalf("sampled %d of %d hits; want about %d", res.Total, all.Total, target)
	}
	// The sampled hits are a subset of the query's, in at least half of
	// the bleveext.SampleBlocks runs.
	full, err := ix.idx.Search(bleve.NewSearchRequestOptions(root, int(all.Total), 0, false))
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]bool{}
	for _, h := range full.Hits {
		in[h.ID] = true
	}
	runs := map[uint64]bool{}
	for _, h := range res.Hits {
		if !in[h.ID] {
			t.Fatalf("sampled %s, not a hit of the query", h.ID)
		}
		n, _ := bleveext.DocNumber(h.IndexInternalID)
		runs[n*bleveext.SampleBlocks/docSpace(t, ix)] = true
	}
	if len(runs) < bleveext.SampleBlocks/2 {
		t.Errorf("the sample lies in %d of %d runs", len(runs), bleveext.SampleBlocks)
	}
}

// docSpace is how many doc numbers ix's index spans.
func docSpace(t *testing.T, ix *Index) uint64 {
	t.Helper()
	var space uint64
	err := bleveext.Snapshot(ix.idx, func(r bindex.IndexReader) error {
		space = bleveext.DocSpace(r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return space
}

// testWorkBound checks the bound on work: with rankOver out of reach, a
// filtered query (several steps a hit) stops once it passed on rankAfter
// hits and took rankWork steps, ranking the best of the hits it saw; one
// with fewer hits than rankAfter is ranked in full however many steps it
// takes.
func testWorkBound(t *testing.T, ix *Index) {
	req := Request{Query: "+join", Filters: map[string][]string{"category": {"procedure"}}, Size: 15}
	var exact, got, under *Results
	var want []string
	var after uint64
	onOneSnapshot(t, ix, func() {
		tune := plan.Tuning{RankOver: math.MaxInt}
		exact = tunedSearch(t, ix, tune, Request{Query: req.Query, Filters: req.Filters, Size: req.Size, Exact: true}, noCache)
		// A step or more a hit: the work reaches 2×after by 2×after hits.
		after = exact.Total / 4
		tune.RankWork, tune.RankAfter = 2*after, after
		got = tunedSearch(t, ix, tune, req, noCache)
		want = bestOfFirst(t, ix, exact, req, int(got.Ranked))
		tune.RankWork, tune.RankAfter = 1, exact.Total+1
		under = tunedSearch(t, ix, tune, req, noCache)
	})
	if exact.Total < 100 {
		t.Fatalf("%q on %v: %d hits; want 100 or more", req.Query, req.Filters, exact.Total)
	}
	if got.Ranked < after || got.Ranked > 2*after || !got.Estimated {
		t.Fatalf("%q on %v: ranked %d of %d, estimated %v; want %d to %d, estimated", req.Query, req.Filters, got.Ranked, exact.Total, got.Estimated, after, 2*after)
	}
	if r := float64(got.Total) / float64(exact.Total); r < 0.5 || r > 2 {
		t.Errorf("%q on %v: estimated %d hits, exact %d", req.Query, req.Filters, got.Total, exact.Total)
	}
	if !slices.Equal(hitKeys(got), want) {
		t.Errorf("%q on %v: hits %v, want the best of the first %d: %v", req.Query, req.Filters, hitKeys(got), got.Ranked, want)
	}
	sameResults(t, "under rankAfter", under, exact)
}

// testRankBoundPhrase checks a phrase query over the bound: its hits are
// phrase hits of the exact search, best first, marked Ranked.
func testRankBoundPhrase(t *testing.T, ix *Index, bound int) {
	req := Request{Query: `+"one row per"`, Size: 10}
	var exact, got *Results
	onOneSnapshot(t, ix, func() {
		exact = tunedSearch(t, ix, plan.Tuning{RankOver: bound}, Request{Query: req.Query, Size: 10_000, Exact: true}, noCache)
		got = tunedSearch(t, ix, plan.Tuning{EstimateOver: 20, RankOver: 60}, req, noCache)
	})
	if got.Ranked != 60 || !got.Estimated || len(got.Hits) == 0 {
		t.Fatalf("ranked %d, estimated %v, %d hits; want 60, estimated, hits", got.Ranked, got.Estimated, len(got.Hits))
	}
	score := map[string]float64{}
	for _, h := range exact.Hits {
		score[h.Type+"/"+h.ID] = h.Score
	}
	for i, h := range got.Hits {
		s, ok := score[h.Type+"/"+h.ID]
		if !ok || !near(s, h.Score) || i > 0 && h.Score > got.Hits[i-1].Score {
			t.Errorf("hit %d %s %.6f: not an exact hit of that score in order (exact %.6f, %v)", i, h.ID, h.Score, s, ok)
		}
	}
}

func mustSearch(t *testing.T, ix *Index, req Request) *Results {
	t.Helper()
	res, err := ix.search(req, noCache)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// hitKeys is res's hits as type/id, in order.
func hitKeys(res *Results) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Type+"/"+h.ID)
	}
	return out
}

// bestOfFirst is req's page among the first n hits of req.Query in index
// order, scored as exact scored them: by score, then by id when req sorts
// so, else in index order.
func bestOfFirst(t *testing.T, ix *Index, exact *Results, req Request, n int) []string {
	t.Helper()
	all := mustSearch(t, ix, Request{Query: req.Query, Filters: req.Filters, Size: int(exact.Total), Exact: true})
	score := map[string]float64{}
	for _, h := range all.Hits {
		score[h.Type+"/"+h.ID] = h.Score
	}
	q, err := plan.ParseQuery(req.Query) // no phrase (bestOfFirst's callers): the query the plan runs
	if err != nil {
		t.Fatal(err)
	}
	bq := query.NewBooleanQuery([]query.Query{q}, nil, nil)
	for f, vs := range req.Filters {
		mq := query.NewMatchQuery(vs[0])
		mq.SetField(f)
		bq.AddFilter(mq)
	}
	sr := bleve.NewSearchRequestOptions(bq, n, 0, false)
	sr.Score = "none" // every hit scores 0: index order
	res, err := ix.idx.Search(sr)
	if err != nil {
		t.Fatal(err)
	}
	type hit struct {
		key   string
		pos   int
		score float64
	}
	var first []hit
	for i, h := range res.Hits {
		s, ok := score[h.ID]
		if !ok {
			t.Fatalf("%s: in the unscored search, not in the scored one", h.ID)
		}
		first = append(first, hit{h.ID, i, s})
	}
	byID := len(req.Sort) > 1
	slices.SortFunc(first, func(a, b hit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if byID {
			return cmp.Compare(a.key, b.key)
		}
		return cmp.Compare(a.pos, b.pos)
	})
	var out []string
	for _, h := range first[min(req.From, len(first)):min(req.From+req.Size, len(first))] {
		out = append(out, h.key)
	}
	return out
}

// TestFilterOnlyPages runs the tests of blank queries with filters on one
// index, the id page with replaced and deleted documents.
func TestFilterOnlyPages(t *testing.T) {
	t.Parallel()
	src := sampleBank()
	recs := sample.SynthRecords(900, benchSeed)
	src.putRecord(recs...)
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	// Hits in index order are compared before the changes below, whose
	// segment may be merged at any time (renumbering the documents).
	t.Run("first-hits", func(t *testing.T) { testFirstHits(t, ix) })
	for i, r := range recs[:120] {
		if i%2 == 0 {
			src.deleteRecord(r.ID)
		} else {
			r.Lemma += " (revised)"
			src.putRecord(r)
		}
	}
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	t.Run("id-page", func(t *testing.T) { testFilterIDPage(t, ix) })
}

// testFilterIDPage checks that a blank query with filters sorted by id,
// answered from the id dictionary and the filters' doc numbers
// (filterIDPage), gives what bleve's sort of every hit gives; and that it
// does answer the broad filters and leaves a rare one to bleve.
func testFilterIDPage(t *testing.T, ix *Index) {
	var reqs []Request
	for _, typ := range []string{"record", ""} {
		for _, filters := range []map[string][]string{
			{"status": {"active"}},
			{"env": {"docs"}},
			{"env": {"shop"}, "category": {"warning", "fact"}},
			{"lemma": {"join"}},
		} {
			for _, sort := range [][]string{{"_id"}, {"-_score", "_id"}} {
				for _, page := range [][2]int{{0, 20}, {5, 40}, {113, 7}, {0, 1}, {10_000, 5}} {
					reqs = append(reqs, Request{Type: typ, Filters: filters, Sort: sort, From: page[0], Size: page[1], Facets: []string{"env"}})
				}
			}
		}
	}
	for _, req := range reqs {
		name := fmt.Sprintf("type %q filters %v sort %v from %d size %d", req.Type, req.Filters, req.Sort, req.From, req.Size)
		want := searchOff(t, ix, req, "filter-id-page")
		got := mustSearch(t, ix, req)
		sameResults(t, name, got, want)
	}
	rare := map[string][]string{"lemma": {"coalesce"}}
	if n := mustSearch(t, ix, Request{Type: "record", Filters: rare, Sort: []string{"_id"}}).Total; n == 0 || n > 50 {
		t.Fatalf("lemma:coalesce has %d hits; want a few", n)
	}
	answers := func(filters map[string][]string) bool {
		p := explainOf(t, ix, Request{Type: "record", Filters: filters, Sort: []string{"_id"}, Size: 20})
		declined := slices.Contains(p.Declined(), "filter-id-page")
		if answered := p.Hits() == "filter-id-page"; answered == declined {
			t.Fatalf("%v: plan %s: filter-id-page neither answered nor declined", filters, p)
		}
		return !declined
	}
	if !answers(map[string][]string{"status": {"active"}}) || !answers(map[string][]string{"env": {"docs"}}) {
		t.Error("filterIDPage did not answer a broad filter")
	}
	if answers(rare) {
		t.Error("filterIDPage answered a rare filter, which would look up most ids")
	}
}

// onOneSnapshot runs compute, which searches ix more than once to compare
// the results, again while the index's segments changed during it: a
// merge in the background renumbers the documents (their index order)
// and, in bleve, moves BM25 scores a little, on an index that is not
// being written.
func onOneSnapshot(t *testing.T, ix *Index, compute func()) {
	t.Helper()
	for range 20 {
		before := segmentIDs(t, ix)
		compute()
		if segmentIDs(t, ix) == before {
			return
		}
	}
	t.Fatal("the index's segments changed during each of 20 tries")
}

// segmentIDs names the segments of ix's index now.
func segmentIDs(t *testing.T, ix *Index) string {
	t.Helper()
	ids, err := bleveext.SegmentIDs(ix.idx)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
