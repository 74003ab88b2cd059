package app

import (
	"context"
	"strings"

	"github.com/memreview/memreview/index/fusion"
	"github.com/memreview/memreview/index/vecbank"
	"github.com/memreview/memreview/index/vector"
	"github.com/memreview/memreview/review"
)

// "Records related to this record" (the review screen's Related pane) and
// "records like this text" (the merge picker): the records sharing words
// with it (BM25, any term) and those whose vectors are nearest it, fused
// by reciprocal rank; active records only. A record's own stored vector
// is used when the bank has one, so a related search does not need the
// endpoint.

// SimilarThreshold is the vector similarity from which a related record
// says the same as the other in other words (Related.Similar).
const SimilarThreshold = 0.8

// Related is a record near another record or a text.
type Related struct {
	Record review.Record
	// Score is the fused score (RRF); BM25Rank and VectorRank the record's
	// rank in each list (nil where that list did not find it); Similarity
	// the cosine of the vectors (0 when vectors did not find it).
	Score                float64
	BM25Rank, VectorRank *int
	Similarity           float32
	// Similar: Similarity reaches SimilarThreshold.
	Similar bool
}

// RelatedTo returns up to n active records related to r (a bank record or
// a proposal's candidate), in r's env when it has one, without exclude.
func (s *Service) RelatedTo(ctx context.Context, r *review.Record, exclude []string, n int) ([]Related, error) {
	query := LiteralWords(strings.TrimSpace(r.Lemma + " " + r.Trigger))
	filters := map[string][]string{"status": {string(review.Active)}}
	f := vector.Filter{Exclude: exclude}
	if r.Scope.Env != "" {
		filters["env"] = []string{r.Scope.Env}
		f.Envs = []string{r.Scope.Env}
	}
	return s.near(ctx, query, vecbank.TextOf(r), vecbank.KeyOf(r), filters, f, exclude, n)
}

// RecordsLike returns up to n active records like text (a query as typed:
// its words, or Bleve query syntax for the BM25 side), without exclude.
func (s *Service) RecordsLike(ctx context.Context, text string, exclude []string, n int) ([]Related, error) {
	return s.near(ctx, text, text, "", map[string][]string{"status": {string(review.Active)}}, vector.Filter{Exclude: exclude}, exclude, n)
}

func (s *Service) near(ctx context.Context, query, text, key string, filters map[string][]string, f vector.Filter, exclude []string, n int) ([]Related, error) {
	pool := n + len(exclude)
	var bmIDs []string
	if strings.TrimSpace(query) != "" {
		res, err := s.Search(SearchRequest{Query: query, Type: "record", Filters: filters, Size: pool, AnyTerm: true})
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			if !containsStr(exclude, h.ID) {
				bmIDs = append(bmIDs, h.ID)
			}
		}
	}
	var note RetrieveResult
	hits := s.vectorHits(ctx, text, key, f, pool, &note)
	sim := map[string]float32{}
	var vecIDs []string
	for _, h := range hits {
		vecIDs = append(vecIDs, h.ID)
		sim[h.ID] = h.Score
	}
	fused := fusion.Hybrid(bmIDs, vecIDs, 0)
	ids := make([]string, len(fused))
	for i, fu := range fused {
		ids[i] = fu.ID
	}
	recs, err := s.b.RecordsByID(ids)
	if err != nil {
		return nil, err
	}
	var out []Related
	for _, fu := range fused {
		r := recs[fu.ID]
		if r == nil || r.Status != review.Active || len(out) == n {
			continue
		}
		out = append(out, Related{Record: *r, Score: fu.RRF, BM25Rank: fu.BM25Rank, VectorRank: fu.VectorRank,
			Similarity: sim[fu.ID], Similar: sim[fu.ID] >= SimilarThreshold})
	}
	return out, nil
}
