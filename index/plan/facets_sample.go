package plan

import (
	"math"

	"github.com/memreview/memreview/index/bleveext"
)

// blockSample counts the facets of a query with more than EstimateOver
// hits on a sample of about SampleTarget of them, and scales the counts
// to the total (Results.Estimated): the hits in runs of doc numbers
// spread evenly over the index (bleveext.BlockSampleQuery), which read
// few of zap's compressed doc-value chunks. It always answers, so it ends
// the table.
var blockSample = facetStrategy{
	strategy: strategy{name: "block-sample", applies: func(*Plan) bool { return true }},
	after:    true,
	run: func(e *Engine, p *Plan) (facets, bool, error) {
		q := &bleveext.BlockSampleQuery{Inner: p.root, Total: p.total, Target: e.tune.sampleTarget()}
		sample, res, err := e.countOn(q, p.req.Facets)
		if err != nil {
			return facets{}, false, err
		}
		return facets{counts: scaleFacets(sample, p.total, res.Total), estimated: true}, true, nil
	},
}

// scaleFacets scales counts made on sampled of total hits up to total: a
// term seen in the sample counts at least 1. The order (most frequent
// first) is kept.
func scaleFacets(sample map[string][]FacetCount, total, sampled uint64) map[string][]FacetCount {
	k := float64(total) / float64(max(sampled, 1))
	out := make(map[string][]FacetCount, len(sample))
	for name, counts := range sample {
		scaled := make([]FacetCount, len(counts))
		for i, c := range counts {
			scaled[i] = FacetCount{Term: c.Term, Count: max(1, int(math.Round(float64(c.Count)*k)))}
		}
		out[name] = scaled
	}
	return out
}
