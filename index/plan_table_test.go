package index

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/sample"
)

// How TestPlanTable checks a strategy against the plan without it.
const (
	sameAnswer  = "same"     // it only saves work: the plan without it answers exactly alike (exactly, where that plan estimates)
	sameHits    = "hits"     // its hits are exact, its total may be an estimate (Estimated)
	estimates   = "estimate" // it estimates (Estimated, Ranked), near the exact answer
	cachedAgain = "cache"    // a request asked again is answered alike from the cache
	likeExact   = "exact"    // its counts are those the request made Exact counts
	lastResort  = "last"     // it ends its table: nothing to compare with
)

// planChecksEach is how many answers of one strategy, under one tuning,
// TestPlanTable compares with the plan without it (the first ones the
// matrix meets; the rest are counted only).
const planChecksEach = 12

// planChecks says how each strategy, rewrite and bound of the plan is
// checked; every name plan.Strategies gives must be here.
var planChecks = map[string]string{
	"id-page": sameAnswer, "phrase-relaxed": sameHits, "first-hits": sameAnswer, "filter-id-page": sameAnswer,
	"top-scores": sameAnswer, "collect": lastResort,
	"cache": cachedAgain, "dict-facets": sameAnswer, "with-hits": sameAnswer, "count": likeExact, "block-sample": estimates,
	"filters-only": sameAnswer, "rank-bound": estimates,
}

// planRequests is the matrix TestPlanTable runs: queries with terms,
// phrases, fields and none, over one type or all, with and without
// filters, sorts, pages and facets, some of them Exact.
func planRequests() []Request {
	var reqs []Request
	queries := []string{"", "join", "+coalesce", `+"one row per"`, `"is never null" +category:warning`}
	for qi, q := range queries {
		for _, typ := range []string{"", "record"} {
			for fi, filters := range []map[string][]string{nil, {"env": {"docs", "shop"}}} {
				for si, sort := range [][]string{nil, {"-_score", "_id"}, {"_id"}, {"-confidence", "_id"}} {
					req := Request{Query: q, Type: typ, Filters: filters, Sort: sort, Size: 15, Highlight: true}
					if (qi+fi+si)%2 == 0 {
						req.Facets = []string{"category", "env", "status"}
					}
					if (qi+si)%3 == 0 {
						req.From = 20
					}
					reqs = append(reqs, req)
					if si == 1 && fi == 0 {
						exact := req
						exact.Exact = true
						exact.Facets = []string{"category", "status"}
						reqs = append(reqs, exact)
					}
				}
			}
		}
	}
	return reqs
}

// TestPlanTable iterates the plan's tables (plan.Strategies) over a
// matrix of requests on one index: every strategy, the rewrite and the
// bound answer some request (none is dead code), and each answers as the
// plan without it does (Tuning.Off): exactly alike for those that only
// save work, with the same hits and a near total for those that estimate
// a total, near the exact counts and marked for those that estimate
// counts. Once under the program's thresholds, once under thresholds low
// enough for the estimates to take over at this size.
func TestPlanTable(t *testing.T) {
	t.Parallel()
	hitNames, facetNames, other := plan.Strategies()
	all := slices.Concat(hitNames, facetNames, other)
	for _, name := range all {
		if _, ok := planChecks[name]; !ok {
			t.Fatalf("strategy %q has no check in planChecks: say how it compares with the plan without it", name)
		}
	}
	if len(planChecks) != len(all) {
		t.Fatalf("planChecks names %d strategies, the plan has %d (%v)", len(planChecks), len(all), all)
	}
	src := sampleBank()
	src.putRecord(sample.SynthRecords(800, benchSeed)...) // one segment: nothing merges under the comparisons
	src.putRecord(phraseRecords...)
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	seen := map[string]int{}
	for _, tune := range []plan.Tuning{{}, {EstimateOver: 40, SampleTarget: 25, RankOver: 150}} {
		checked := map[string]int{} // comparisons a strategy had under tune: enough at planChecksEach
		check := func(name string, req Request, s string, got *Results) {
			seen[s]++
			if checked[s]++; checked[s] <= planChecksEach {
				checkStrategy(t, name, ix, tune, req, s, got)
			}
		}
		for _, req := range planRequests() {
			name := fmt.Sprintf("%+v under %+v", req, tune)
			st := &plan.State{}
			got, p := runPlan(t, ix, tune, st, req, plan.Options{Cache: true})
			for _, s := range []string{p.Hits(), p.Facets()} {
				if s != "" {
					check(name, req, s, got)
				}
			}
			if p.FiltersOnly() {
				check(name, req, "filters-only", got)
			}
			if p.Bounded() && got.Ranked > 0 {
				check(name, req, "rank-bound", got)
			}
			if len(req.Facets) > 0 { // the same request again: its facets from the cache
				again, p2 := runPlan(t, ix, tune, st, req, plan.Options{Cache: true})
				if p2.Facets() != "cache" {
					t.Errorf("%s asked again: facets by %q (plan %s), want the cache", name, p2.Facets(), p2)
					continue
				}
				seen["cache"]++
				sameResults(t, name+" from the cache", again, got)
				if again.Estimated != got.Estimated {
					t.Errorf("%s from the cache: estimated %v, want %v", name, again.Estimated, got.Estimated)
				}
			}
		}
	}
	t.Logf("answered by: %v", seen)
	for _, name := range all {
		if seen[name] == 0 {
			t.Errorf("no request was answered by %q: the matrix leaves it untested (or it is dead)", name)
		}
	}
}

// checkStrategy compares got, req's answer by strategy s under tune, with
// the answer of the plan without s.
func checkStrategy(t *testing.T, name string, ix *Index, tune plan.Tuning, req Request, s string, got *Results) {
	t.Helper()
	off := tune
	off.Off = append(slices.Clone(tune.Off), s)
	switch planChecks[s] {
	case sameAnswer:
		want, _ := runPlan(t, ix, off, &plan.State{}, req, plan.Options{})
		if got.Estimated || want.Estimated { // one of them estimates here: compare their exact answers
			exact := tune
			exact.EstimateOver, exact.RankOver = math.MaxUint64, math.MaxInt
			var p *plan.Plan
			if got, p = runPlan(t, ix, exact, &plan.State{}, req, plan.Options{}); !usedStrategy(p, s) {
				return
			}
			off.EstimateOver, off.RankOver = exact.EstimateOver, exact.RankOver
			want, _ = runPlan(t, ix, off, &plan.State{}, req, plan.Options{})
		}
		sameResults(t, name+" without "+s, got, want)
		if got.Estimated != want.Estimated || got.Ranked != want.Ranked {
			t.Errorf("%s: estimated %v ranked %d; without %s %v, %d", name, got.Estimated, got.Ranked, s, want.Estimated, want.Ranked)
		}
	case sameHits:
		want, _ := runPlan(t, ix, off, &plan.State{}, req, plan.Options{})
		g, w := *got, *want
		g.Facets, w.Facets, g.Total = nil, nil, w.Total
		sameResults(t, name+" without "+s, &g, &w)
		nearTotal(t, name, s, got, want)
	case likeExact:
		exact := req
		exact.Exact = true
		want, _ := runPlan(t, ix, tune, &plan.State{}, exact, plan.Options{})
		sameResults(t, name+" made exact", &Results{Total: want.Total, Hits: got.Hits, Facets: got.Facets}, &Results{Total: want.Total, Hits: got.Hits, Facets: want.Facets})
	case estimates:
		exactTune := tune
		exactTune.EstimateOver, exactTune.RankOver = math.MaxUint64, math.MaxInt
		want, _ := runPlan(t, ix, exactTune, &plan.State{}, req, plan.Options{})
		if !got.Estimated || want.Estimated {
			t.Errorf("%s by %s: estimated %v; without the estimates %v", name, s, got.Estimated, want.Estimated)
		}
		nearTotal(t, name, s, got, want)
		if s == "block-sample" {
			for f, counts := range want.Facets {
				for _, c := range counts[:min(len(counts), 3)] {
					est := 0
					for _, e := range got.Facets[f] {
						if e.Term == c.Term {
							est = e.Count
						}
					}
					if d := math.Abs(float64(est - c.Count)); d > 3*float64(c.Count)/2+10 {
						t.Errorf("%s: %s=%s estimated %d, exact %d", name, f, c.Term, est, c.Count)
					}
				}
			}
		}
	}
}

// usedStrategy reports whether p answered a part by s, or used the
// rewrite or the bound s names.
func usedStrategy(p *plan.Plan, s string) bool {
	return p.Hits() == s || p.Facets() == s || s == "filters-only" && p.FiltersOnly() || s == "rank-bound" && p.Bounded()
}

// nearTotal checks that an estimated total is near the exact one, and
// that a total not marked Estimated is exact.
func nearTotal(t *testing.T, name, s string, got, want *Results) {
	t.Helper()
	if !got.Estimated && got.Total != want.Total {
		t.Errorf("%s by %s: total %d, not estimated; without it %d", name, s, got.Total, want.Total)
	}
	if d := math.Abs(float64(got.Total) - float64(want.Total)); d > float64(want.Total)/2+5 {
		t.Errorf("%s by %s: total ≈ %d, exact %d", name, s, got.Total, want.Total)
	}
}

// runPlan runs req on ix's index under tune, with the caches of st.
func runPlan(t *testing.T, ix *Index, tune plan.Tuning, st *plan.State, req Request, opt plan.Options) (*Results, *plan.Plan) {
	t.Helper()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	res, p, err := plan.NewEngine(ix.idx, tune, st, ix.gen.Load).Explain(req, opt)
	if err != nil {
		t.Fatalf("%+v: %v", req, err)
	}
	return res, p
}
