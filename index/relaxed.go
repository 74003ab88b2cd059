package index

import (
	"math"
	"time"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// requiredPhrases appends to out the phrases on "_all" that every hit of q
// must hold: those reached from q through required clauses only (a
// boolean query's must, a conjunction), not through should or must-not
// clauses, where leaving the phrase check out would change which
// documents match other than by adding some.
func requiredPhrases(q query.Query, out []*allPhraseQuery) []*allPhraseQuery {
	switch t := q.(type) {
	case *allPhraseQuery:
		out = append(out, t)
	case *query.BooleanQuery:
		if t.Must != nil {
			out = requiredPhrases(t.Must, out)
		}
	case *query.ConjunctionQuery:
		for _, c := range t.Conjuncts {
			out = requiredPhrases(c, out)
		}
	}
	return out
}

// searchRelaxed answers sr, whose query holds the required phrases, when
// it has so many hits that checking the phrase in every candidate would
// dominate (at 100,000 records "one row per" has 12,579): it searches
// with the phrase checks left out, which matches every document with the
// phrases' terms and scores each as the full query would, then checks
// the phrases on the best of those only, in sr's order, until it has
// sr.From+sr.Size hits. Those hits are exactly the full query's.
//
// It gives up (ok false) when there are at most limit candidates: the
// caller then checks them all. The total is exact when every candidate
// was checked; otherwise it is estimated from the phrase checks of one
// candidate in tallyEvery during the first search (tallyQuery), at most
// the candidates and at least the hits found.
//
// With a bound each candidate search ranks the first candidates only
// (boundedQuery): when there are more, the hits are the best of
// those that hold the phrases, ranked says how many candidates were
// ranked, and the total is estimated from the estimated candidates.
func (ix *Index) searchRelaxed(sr *bleve.SearchRequest, phrases []*allPhraseQuery, limit uint64, bound rankBound) (res *bleve.SearchResult, estimated, ok bool, ranked uint64, err error) {
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
		var tally *passTally
		if first {
			tally = &passTally{}
			rs.Query = &tallyQuery{query: sr.Query, phrases: phrases, tally: tally}
		}
		bq := bounded(rs.Query, bound)
		if bq != nil {
			rs.Query = bq
		}
		relax(phrases, true)
		res, err := searchGuarded(ix.idx, &rs)
		relax(phrases, false)
		if err != nil {
			return nil, false, false, 0, err
		}
		candidates, all = res.Total, res.Total
		if bq != nil && bq.more {
			ranked, all = bq.seen, bq.estimate()
		}
		if first && all <= limit {
			return nil, false, false, 0, nil
		}
		if tally != nil {
			rate = tally.rate()
		}
		match, err := ix.matching(sr.Query, res.Hits)
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

func relax(phrases []*allPhraseQuery, on bool) {
	for _, p := range phrases {
		p.relaxed = on
	}
}

// matching returns which of hits q matches (by bleve id).
func (ix *Index) matching(q query.Query, hits bsearch.DocumentMatchCollection) (map[string]bool, error) {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	sr := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{query.NewDocIDQuery(ids), q}), len(ids), 0, false)
	sr.Score = "none"
	res, err := searchGuarded(ix.idx, sr)
	if err != nil {
		return nil, err
	}
	ok := make(map[string]bool, len(res.Hits))
	for _, h := range res.Hits {
		ok[h.ID] = true
	}
	return ok, nil
}
