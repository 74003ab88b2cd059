package index

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// TestRetrieveMaxScore checks that Retrieve's max-score strategy picks
// exactly what bleve's own query sorted over every hit picks — the same
// records in the same order with bit-identical scores — on tasks of one
// to eleven words (repeats, words no record has, the commonest words),
// with scopes, exclusions and several k, over an index of several
// segments with deleted documents; and that it scores fewer documents
// than the query matches.
func TestRetrieveMaxScore(t *testing.T) {
	t.Parallel()
	src := newFake()
	recs := sample.SynthRecords(1200, benchSeed)
	src.putRecord(recs...)
	ix := openOn(t, src)
	// shared is an engine state kept from before the changes to after
	// (as the index keeps its own): what it remembers of the segments that
	// stay must still hold once they have deleted documents.
	shared := &plan.State{}
	for _, scope := range []review.Scope{{}, {Env: "shop"}, {Tags: []string{"g1"}}} {
		stateRetrieve(t, ix, plan.Tuning{}, shared, "join reviews to items", scope, 20, nil)
		stateRetrieve(t, ix, plan.Tuning{}, shared, strings.Join(strings.Fields(recs[3].Lemma)[:4], " "), scope, 20, nil)
	}
	// Changes after the build: new segments, and deleted documents in
	// the old ones (a changed record's old document).
	for i := 0; i < len(recs); i += 7 {
		r := recs[i]
		if i%3 == 0 {
			r.Status = review.Retired
		} else {
			r.Lemma += " join reviews"
		}
		src.putRecord(r)
	}
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	var tasks []string
	for i := 3; i < len(recs); i += 150 {
		tasks = append(tasks, strings.Join(strings.Fields(recs[i].Lemma)[:min(6, len(strings.Fields(recs[i].Lemma)))], " "))
	}
	tasks = append(tasks, "join", "join join reviews to items items items", "prices in cents", "coalesce null",
		"zyxwvut join", "qqqq", "the null value is never null when joined on the key column of items")
	exclude := [][]string{nil, {schema.DocID("record", recs[10].ID), schema.DocID("record", recs[500].ID)}}
	exact := plan.Tuning{Off: []string{plan.MaxScore, "top-scores"}}
	checked, ties := 0, 0
	for _, task := range tasks {
		for _, scope := range []review.Scope{{}, {Env: "shop"}, {Tags: []string{"g1"}}} {
			for _, k := range []int{1, 20} {
				for _, ex := range exclude[:1+k%2] {
					var want, got, kept []Scored
					onOneSnapshot(t, ix, func() {
						want = engineRetrieve(t, ix, exact, task, scope, k, ex)
						got = engineRetrieve(t, ix, plan.Tuning{}, task, scope, k, ex)
						kept = stateRetrieve(t, ix, plan.Tuning{}, shared, task, scope, k, ex)
					})
					if !slices.Equal(got, want) {
						t.Errorf("Retrieve(%q, %v, %d, exclude %v)\n got %v\nwant %v", task, scope, k, ex, got, want)
					}
					if !slices.Equal(kept, want) {
						t.Errorf("Retrieve(%q, %v, %d, exclude %v) with the state kept from before the changes\n got %v\nwant %v", task, scope, k, ex, kept, want)
					}
					for i := 1; i < len(want); i++ {
						if want[i].BM25 == want[i-1].BM25 {
							ties++
						}
					}
					checked += len(want)
				}
			}
		}
	}
	if checked == 0 || ties == 0 {
		t.Errorf("%d results compared, %d ties: the comparison tests too little", checked, ties)
	}
	testTopTermsPrunes(t, ix, tasks)
}

// testTopTermsPrunes runs bleveext.TopTermsQuery beside the bleve query it
// stands for: every document it keeps has bleve's score for it, it keeps
// every document scoring at least bleve's K-th best, and on the tasks
// with many hits it scores fewer documents than the query matches.
func testTopTermsPrunes(t *testing.T, ix *Index, tasks []string) {
	const k = 10
	pruned, tighter := 0, 0
	memo := &bleveext.SegmentMemo{}
	for _, task := range tasks {
		terms, boosts := schema.TaskTerms(task)
		if len(terms) == 0 || len(terms) > 10 {
			continue
		}
		filter := query.NewConjunctionQuery([]query.Query{keywordTerm("type", "record"), keywordTerm("status", "active")})
		bq := query.NewBooleanQuery([]query.Query{schema.TaskQuery(task)}, nil, nil)
		bq.AddFilter(filter)
		tq := &bleveext.TopTermsQuery{Field: schema.AllField, Terms: terms, Boosts: boosts, K: k, Filter: filter, Fallback: bq}
		var all, top *bleve.SearchResult
		onOneSnapshot(t, ix, func() {
			ix.mu.RLock()
			defer ix.mu.RUnlock()
			var err error
			if all, err = ix.idx.Search(bleve.NewSearchRequestOptions(bq, 100_000, 0, false)); err != nil {
				t.Fatal(err)
			}
			if top, err = ix.idx.Search(bleve.NewSearchRequestOptions(tq, 100_000, 0, false)); err != nil {
				t.Fatal(err)
			}
		})
		if tq.Stats.FellBack {
			t.Fatalf("%q: fell back to bleve's query", task)
		}
		score := map[string]float64{}
		for _, h := range all.Hits {
			score[h.ID] = h.Score
		}
		for _, h := range top.Hits {
			if s, ok := score[h.ID]; !ok || s != h.Score {
				t.Errorf("%q: kept %s scoring %v; bleve scores it %v (found %v)", task, h.ID, h.Score, s, ok)
			}
		}
		if n := len(all.Hits); n > 0 {
			kth := all.Hits[min(k, n)-1].Score
			want := 0
			for _, h := range all.Hits {
				if h.Score >= kth {
					want++
				}
			}
			if len(top.Hits) != want {
				t.Errorf("%q: kept %d documents; %d score at least the %d-th best %v", task, len(top.Hits), want, k, kth)
			}
		}
		if len(all.Hits) > 100 && tq.Stats.Scored < len(all.Hits) {
			pruned++
		}
		t.Logf("%q: %d hits, %d candidates, %d scored, %d kept", task, len(all.Hits), tq.Stats.Candidates, tq.Stats.Scored, tq.Stats.Kept)
		// Bounded by each term's best score per segment, twice (the pairs
		// read, then remembered): the same documents and scores, from no
		// more candidates.
		saturated := tq.Stats
		for range 2 {
			tq.Memo = memo
			var tight *bleve.SearchResult
			onOneSnapshot(t, ix, func() {
				ix.mu.RLock()
				defer ix.mu.RUnlock()
				var err error
				if tight, err = ix.idx.Search(bleve.NewSearchRequestOptions(tq, 100_000, 0, false)); err != nil {
					t.Fatal(err)
				}
			})
			if !sameTopHits(tight, top) {
				t.Errorf("%q: with per-segment maxima kept %v, without %v", task, hitScores(tight), hitScores(top))
			}
			if tq.Stats.Candidates > saturated.Candidates {
				t.Errorf("%q: %d candidates with per-segment maxima, %d without", task, tq.Stats.Candidates, saturated.Candidates)
			}
		}
		if tq.Stats.Candidates < saturated.Candidates {
			tighter++
		}
	}
	if pruned == 0 {
		t.Error("max-score scored every hit of every task")
	}
	if tighter == 0 {
		t.Error("per-segment maxima took no candidate away from any task")
	}
}

func sameTopHits(a, b *bleve.SearchResult) bool {
	return slices.EqualFunc(a.Hits, b.Hits, func(x, y *bsearch.DocumentMatch) bool { return x.ID == y.ID && x.Score == y.Score })
}

func hitScores(r *bleve.SearchResult) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, fmt.Sprintf("%s=%v", h.ID, h.Score))
	}
	return out
}

func engineRetrieve(t testing.TB, ix *Index, pt plan.Tuning, task string, scope review.Scope, k int, exclude []string) []Scored {
	t.Helper()
	return stateRetrieve(t, ix, pt, &plan.State{}, task, scope, k, exclude)
}

// stateRetrieve is engineRetrieve with the engine's state kept by the
// caller (as the index keeps its own from search to search).
func stateRetrieve(t testing.TB, ix *Index, pt plan.Tuning, st *plan.State, task string, scope review.Scope, k int, exclude []string) []Scored {
	t.Helper()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out, err := plan.NewEngine(ix.idx, pt, st, ix.gen.Load).Retrieve(task, scope, k, exclude)
	if err != nil {
		t.Fatal(fmt.Errorf("retrieve %q: %w", task, err))
	}
	return out
}
