package plan

import (
	"math"
	"time"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/memreview/memreview/index/bleveext"
)

// phraseRelaxed answers a query holding required phrases on "_all" when
// it has so many candidates that checking the phrase in every one would
// dominate (at 100,000 records "one row per" has 12,579): it searches with
// the phrase checks left out, which matches every document with the
// phrases' terms and scores each as the full query would, then checks the
// phrases on the best of those only, in the request's order, until it has
// From+Size hits. Those hits are exactly the full query's.
//
// It declines when there are at most EstimateOver candidates: checking
// them all costs less. The total is exact when every candidate was
// checked; otherwise it is estimated from the phrase checks of one
// candidate in 16 during the first search (bleveext.TallyQuery), at most
// the candidates and at least the hits found. Under a rank bound each
// candidate search ranks the first candidates only: when there are more,
// the hits are the best of those that hold the phrases, Ranked says how
// many candidates were ranked, and the total is estimated from the
// estimated candidates.
var phraseRelaxed = hitStrategy{
	strategy: strategy{name: "phrase-relaxed", applies: func(p *Plan) bool {
		return len(p.phrases) > 0 && !p.req.Exact
	}},
	run: func(e *Engine, p *Plan) (hits, bool, error) {
		limit := e.tune.estimateLimit()
		// The candidates hold every term of every phrase: no more than
		// the fewest documents a phrase's terms are in. At or under the
		// limit the relaxed search would find as much and decline, after
		// scoring them all once for nothing ("is never null" at 100,000
		// records: 8.1 ms with that search, 5.4 ms without).
		if most, err := e.phraseCandidatesAtMost(p.phrases); err == nil && most <= limit {
			return hits{}, false, nil
		}
		res, estimated, ok, ranked, err := e.searchRelaxed(p.sr, p.phrases, limit, p.bound)
		return hits{res: res, estimated: estimated, ranked: ranked}, ok, err
	},
}

// phraseCandidatesAtMost bounds the documents that hold the terms of all
// of phrases: the least, over the phrases, of their documents by
// bleveext.AllPhraseQuery.MaxMatches.
func (e *Engine) phraseCandidatesAtMost(phrases []*bleveext.AllPhraseQuery) (uint64, error) {
	most := uint64(math.MaxUint64)
	err := bleveext.Snapshot(e.idx, func(r bindex.IndexReader) error {
		for _, ph := range phrases {
			n, err := ph.MaxMatches(r, e.idx.Mapping())
			if err != nil {
				return err
			}
			most = min(most, n)
		}
		return nil
	})
	return most, err
}

func (e *Engine) searchRelaxed(sr *bleve.SearchRequest, phrases []*bleveext.AllPhraseQuery, limit uint64, bound bleveext.RankBound) (res *bleve.SearchResult, estimated, ok bool, ranked uint64, err error) {
	start := time.Now()
	need := sr.From + sr.Size
	window := max(4*need, 100)
	var passing bsearch.DocumentMatchCollection
	var candidates, all uint64 // candidates ranked, and in all
	checked := 0
	rate := 1.0
	for first := true; ; first = false {
		rs := *sr
		rs.From, rs.Size, rs.Facets, rs.Highlight = checked, window, nil, nil
		var tally *bleveext.PassTally
		if first {
			tally = &bleveext.PassTally{}
			rs.Query = &bleveext.TallyQuery{Query: sr.Query, Phrases: phrases, Tally: tally}
		}
		bq := bleveext.Bounded(rs.Query, bound)
		if bq != nil {
			rs.Query = bq
		}
		relax(phrases, true)
		res, err := searchGuarded(e.idx, &rs)
		relax(phrases, false)
		if err != nil {
			return nil, false, false, 0, err
		}
		candidates, all = res.Total, res.Total
		if bq != nil && bq.More {
			ranked, all = bq.Seen, bq.Estimate()
		}
		if first && all <= limit {
			return nil, false, false, 0, nil
		}
		if tally != nil {
			rate = tally.Rate()
		}
		match, err := e.matching(sr.Query, res.Hits)
		if err != nil {
			return nil, false, false, 0, err
		}
		for _, h := range res.Hits {
			if match[h.ID] {
				passing = append(passing, h)
			}
		}
		checked += len(res.Hits)
		if len(passing) >= need || len(res.Hits) < window || uint64(checked) >= candidates {
			break
		}
		window *= 2
	}
	out := &bleve.SearchResult{Hits: passing[min(sr.From, len(passing)):min(need, len(passing))]}
	out.Took = time.Since(start)
	if uint64(checked) >= all { // every candidate checked
		out.Total = uint64(len(passing))
		return out, false, true, 0, nil
	}
	total := uint64(math.Round(float64(all) * rate))
	out.Total = max(min(all, total), uint64(len(passing)))
	return out, true, true, ranked, nil
}

func relax(phrases []*bleveext.AllPhraseQuery, on bool) {
	for _, p := range phrases {
		p.Relaxed = on
	}
}

// matching returns which of hits q matches (by bleve id).
func (e *Engine) matching(q query.Query, hits bsearch.DocumentMatchCollection) (map[string]bool, error) {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	sr := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{query.NewDocIDQuery(ids), q}), len(ids), 0, false)
	sr.Score = "none"
	res, err := searchGuarded(e.idx, sr)
	if err != nil {
		return nil, err
	}
	ok := make(map[string]bool, len(res.Hits))
	for _, h := range res.Hits {
		ok[h.ID] = true
	}
	return ok, nil
}
