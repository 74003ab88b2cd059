package plan

import "slices"

// Tuning moves the plan's thresholds and turns strategies off. Its zero
// value is what the program runs; tests set a threshold to reach a
// strategy's edge at a small size, or name strategies in Off to compare
// the plan with and without them. It is fixed when an Engine is made
// (index.OpenOptions.Tuning), never changed under a running search.
type Tuning struct {
	// EstimateOver is the number of hits above which facets are counted
	// on a sample and scaled (block-sample), and a phrase query's total is
	// estimated from a sample of its phrase checks (phrase-relaxed);
	// 0: 10,000. Counting facets costs about 0.25 µs per hit and field,
	// 30 ms for three fields over 40,000 hits at 100,000 records.
	EstimateOver uint64
	// SampleTarget is about how many hits an estimate counts facets on;
	// 0: 2,000.
	SampleTarget uint64
	// RankOver is how many hits of a query ordered by score are scored at
	// most (unless Request.Exact): a query with more hits ranks the first
	// RankOver of them in index order and estimates its total
	// (Results.Ranked). Bleve finds the best k only by scoring every hit,
	// about 0.2 µs of CPU a hit: "join" at 1,000,000 records has 393,000.
	// 0: 100,000.
	RankOver int
	// RankWork is the work, in steps of the query's leaf searchers (about
	// one a posting visited), after which a query ordered by score that
	// has already passed on RankAfter hits stops too, as if it had reached
	// RankOver: a sparse conjunction or a filtered query steps over
	// several postings a hit (at 1,000,000 records "join" with
	// confidence:>0.9, 70,099 hits, stops after 20,846 of them; "null"
	// filtered on category=warning, 51,362 hits, after 32,049). A term
	// alone takes about a step a hit, so it stops at about RankOver hits
	// either way. At 100,000 records the benchmark queries take at most
	// 42,196 steps ("join"), and no benchmark query nor bank screen
	// request is bounded. 0 (with RankAfter 0): 100,000 steps after
	// 20,000 hits.
	RankWork, RankAfter uint64
	// Off names strategies the planner never picks (the names of the hit
	// and facet tables, "rank-bound", "filters-only").
	Off []string
}

// Defaults of Tuning.
const (
	defaultEstimateOver = 10_000
	defaultSampleTarget = 2000
	defaultRankOver     = 100_000
	defaultRankWork     = 100_000
	defaultRankAfter    = 20_000
)

func (t Tuning) estimateLimit() uint64 {
	if t.EstimateOver != 0 {
		return t.EstimateOver
	}
	return defaultEstimateOver
}

func (t Tuning) sampleTarget() uint64 {
	if t.SampleTarget != 0 {
		return t.SampleTarget
	}
	return defaultSampleTarget
}

func (t Tuning) rankLimit() int {
	if t.RankOver != 0 {
		return t.RankOver
	}
	return defaultRankOver
}

func (t Tuning) workLimits() (work, after uint64) {
	if t.RankWork != 0 {
		return t.RankWork, t.RankAfter
	}
	return defaultRankWork, defaultRankAfter
}

// on reports whether the strategy called name may be picked.
func (t Tuning) on(name string) bool { return !slices.Contains(t.Off, name) }
