package index

import (
	"testing"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/review"
)

// tunedSearch runs req on ix's index as it is now under the plan's tuning
// pt instead of ix's: the same documents and segments. Its caches are its
// own, unless opt.Cache, which reads and fills ix's (as Search does).
// Results.Behind is not set.
func tunedSearch(t testing.TB, ix *Index, pt plan.Tuning, req Request, opt plan.Options) *Results {
	t.Helper()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	st := &plan.State{}
	if opt.Cache {
		st = &ix.plans
	}
	res, err := plan.NewEngine(ix.idx, pt, st, ix.gen.Load).Search(req, opt)
	if err != nil {
		t.Fatalf("%+v under %+v: %v", req, pt, err)
	}
	return res
}

// searchOff runs req on ix's index with the named strategies turned off.
func searchOff(t testing.TB, ix *Index, req Request, off ...string) *Results {
	t.Helper()
	return tunedSearch(t, ix, plan.Tuning{Off: off}, req, plan.Options{})
}

// tunedRetrieve is Retrieve on ix's index (caught up) under pt.
func tunedRetrieve(t testing.TB, ix *Index, pt plan.Tuning, task string, scope review.Scope, k int) []Scored {
	t.Helper()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out, err := plan.NewEngine(ix.idx, pt, &plan.State{}, ix.gen.Load).Retrieve(task, scope, k, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// explainOf runs req on ix's index (uncached) and returns the plan that
// answered it.
func explainOf(t testing.TB, ix *Index, req Request) *plan.Plan {
	t.Helper()
	_, p, err := ix.explain(req, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// noCache is how the tests search ix without its facet cache.
var noCache = plan.Options{}
