package index

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/review"
)

// Search runs req. A query that does not parse, or that names a field the
// index does not have, is an error that says so. The plan (index/plan)
// picks how each part of the request is answered.
//
// Facet counts are cached per query, type, filters and facet fields until
// the index next changes (Sync applying a change, Rebuild), so a repeated
// request (the bank browser's blank first page, paging back to page 0, the
// same query typed again) skips bleve's per-hit facet counting, which at
// 100,000 records is most of the cost. The first request of each kind
// still counts every hit.
//
// While the index is behind the bank, the items changed since its
// sequence are searched directly from the bank as well (index/tail), and
// Results says how many were and were not.
func (ix *Index) Search(req Request) (*Results, error) {
	defer ix.answer()
	if res, behind, err := ix.tail.Search(req); behind || err != nil {
		return res, err
	}
	return ix.search(req, plan.Options{Cache: true})
}

// Explain runs req on the index as Search does, leaving out the tail, and
// says how it was answered: the strategies of the plan that answered its
// hits and facets, the rewrite and the bound, and the strategies that
// declined (plan.Plan.String). While the index is behind, the tail's
// in-memory indexes answer the same request by the same plan.
func (ix *Index) Explain(req Request) (string, error) {
	_, p, err := ix.explain(req, plan.Options{Cache: true})
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

// search runs req on the index alone, with Results.Behind set.
func (ix *Index) search(req Request, opt plan.Options) (*Results, error) {
	res, _, err := ix.explain(req, opt)
	return res, err
}

func (ix *Index) explain(req Request, opt plan.Options) (*Results, *plan.Plan, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.idx == nil {
		return nil, nil, errClosed
	}
	res, p, err := ix.engine().Explain(req, opt)
	if err != nil {
		return nil, p, err
	}
	if res.Behind, err = ix.Behind(); err != nil {
		return nil, p, err
	}
	return res, p, nil
}

// engine is the plan's engine on ix's index now, under ix's tuning and
// caches. Callers hold ix.mu.
func (ix *Index) engine() *plan.Engine {
	return plan.NewEngine(ix.idx, ix.tune.Plan, &ix.plans, ix.gen.Load)
}

// Retrieve returns the k records a task agent working on task should be
// given (k <= 0 means 5), best first. Candidates are active records whose
// env is scope.Env or unset (any env when scope.Env is ""), and, when
// scope.Tags is given, whose tags meet scope.Tags or who have no tags. They
// are matched against task by BM25 over the text fields (all of them when
// task is blank), and ranked by
//
//	score × max(0.1, 1 + 0.1×priority) × (0.5 if suspect)
//
// Suspect records (a check failed at the last verify) are kept but halved.
// The weighting re-ranks the best max(4k, 50) BM25 candidates (BM25 ties
// to the higher priority, then the smaller id); ties go to the smaller id.
//
// While the index is behind the bank, the records changed since its
// sequence are ranked from the bank as well (index/tail).
func (ix *Index) Retrieve(task string, scope review.Scope, k int) ([]Scored, error) {
	if k <= 0 {
		k = 5
	}
	defer ix.answer()
	if out, behind, err := ix.tail.Retrieve(task, scope, k); behind || err != nil {
		return out, err
	}
	return ix.retrieve(task, scope, k, nil)
}

// retrieve is Retrieve on the index alone, without the documents exclude
// names.
func (ix *Index) retrieve(task string, scope review.Scope, k int, exclude []string) ([]Scored, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.idx == nil {
		return nil, errClosed
	}
	return ix.engine().Retrieve(task, scope, k, exclude)
}

// tailView is ix as its tail sees it (tail.Index).
type tailView struct{ ix *Index }

func (v tailView) Seq() int64  { return v.ix.seq.Load() }
func (v tailView) Gen() uint64 { return v.ix.gen.Load() }
func (v tailView) Empty() bool { return v.ix.empty() }

func (v tailView) Search(req Request, opt plan.Options) (*Results, error) {
	return v.ix.search(req, opt)
}

func (v tailView) Retrieve(task string, scope review.Scope, k int, exclude []string) ([]Scored, error) {
	return v.ix.retrieve(task, scope, k, exclude)
}

// Holding returns those of ids (bleve ids) that the index holds.
func (v tailView) Holding(ids []string) ([]string, error) {
	sr := bleve.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
	sr.Score = "none"
	v.ix.mu.RLock()
	defer v.ix.mu.RUnlock()
	if v.ix.idx == nil {
		return nil, errClosed
	}
	res, err := plan.Guarded(v.ix.idx, sr)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.ID)
	}
	return out, nil
}

// empty reports whether the index holds no document (a first build
// serves an empty one).
func (ix *Index) empty() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.idx == nil {
		return false
	}
	n, err := ix.idx.DocCount()
	return err == nil && n == 0
}
