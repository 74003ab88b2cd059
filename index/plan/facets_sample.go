package plan

import (
	"math"
	"slices"
	"strings"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/schema"
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
		counts := scaleFacets(sample, p.total, res.Total)
		if err := capFacets(e, counts, p.total, oneValued(sample, res.Total)); err != nil {
			return facets{}, false, err
		}
		return facets{counts: counts, estimated: true}, true, nil
	},
}

// capFacets lowers, in place, each scaled count to what it can be at
// most: the hits' total, and the documents of the whole index that hold
// the term (a keyword or date field's postings, bleveext.TermCount). A
// term on one document of the index that the sample happened to hold
// scales to total/sampled ("status=pending ≈ 13" for the one pending
// record); it counts 1. On a field whose every sampled hit held exactly
// one term (one[field]: status, category), what the caps took off goes
// back to the terms not capped, in proportion, so that the counts still
// sum to the total. The order (most frequent first, ties by term) is
// kept.
func capFacets(e *Engine, counts map[string][]FacetCount, total uint64, one map[string]bool) error {
	return bleveext.Snapshot(e.idx, func(r index.IndexReader) error {
		for field, list := range counts {
			keyword := slices.Contains(schema.KeywordFields, field) || slices.Contains(schema.DateFields, field)
			most := make([]int, len(list))
			capped := make([]bool, len(list))
			lowered := false
			for i := range list {
				most[i] = int(total)
				if keyword {
					n, err := bleveext.TermCount(r, field, list[i].Term)
					if err != nil {
						return err
					}
					most[i] = int(min(total, n))
				}
				if c := max(1, min(list[i].Count, most[i])); c != list[i].Count {
					list[i].Count, capped[i], lowered = c, true, true
				}
			}
			if !lowered {
				continue
			}
			if one[field] {
				refill(list, capped, most, int(total))
			}
			slices.SortStableFunc(list, func(a, b FacetCount) int {
				if a.Count != b.Count {
					return b.Count - a.Count
				}
				return strings.Compare(a.Term, b.Term)
			})
		}
		return nil
	})
}

// refill scales the counts not capped so that all of list sums to total,
// each still at most its most.
func refill(list []FacetCount, capped []bool, most []int, total int) {
	left, free := total, 0
	for i, c := range list {
		if capped[i] {
			left -= c.Count
		} else {
			free += c.Count
		}
	}
	if free == 0 || left <= free {
		return
	}
	k := float64(left) / float64(free)
	for i := range list {
		if !capped[i] {
			list[i].Count = min(most[i], int(math.Round(float64(list[i].Count)*k)))
		}
	}
}

// oneValued names the fields every sampled hit held exactly one term of:
// their counts sum to the sample's hits.
func oneValued(sample map[string][]FacetCount, sampled uint64) map[string]bool {
	out := map[string]bool{}
	for field, counts := range sample {
		sum := 0
		for _, c := range counts {
			sum += c.Count
		}
		out[field] = uint64(sum) == sampled
	}
	return out
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
