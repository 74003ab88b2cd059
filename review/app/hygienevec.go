package app

import (
	"context"

	"github.com/memreview/memreview/curator/hygiene"
	"github.com/memreview/memreview/index/vecbank"
	"github.com/memreview/memreview/review"
)

// Hygiene's vector candidates: for every active record with a stored
// vector, its nearest records of the same env and category whose cosine
// reaches duplicateCosine. Hygiene decides them by its own rules (a
// contradiction, another table or number is not a duplicate), so a
// paraphrase that word overlap misses is paired, and only then judged.

const (
	duplicateCosine    = 0.9 // embeddings this near say the same in other words
	duplicateNeighbors = 5   // neighbours looked at per record
)

// vectorNeighbours returns the near pairs among recs; none (and a log
// line) when the bank has no vectors to ask.
func (s *Service) vectorNeighbours(ctx context.Context, recs []review.Record) []hygiene.Neighbour {
	v := s.vectors()
	if v == nil || len(recs) < 2 {
		return nil
	}
	s.catchUpEmbeddings(ctx)
	items := make([]vecbank.Item, 0, len(recs))
	for i := range recs {
		r := &recs[i]
		if r.Status != review.Active {
			continue
		}
		items = append(items, vecbank.Item{ID: r.ID, Key: vecbank.KeyOf(r), Env: r.Scope.Env, Category: string(r.Category)})
	}
	pairs, _, err := v.Neighbours(ctx, vecbank.NeighboursRequest{Items: items, K: duplicateNeighbors, MinScore: duplicateCosine}, s.wrote.Load(), s.ownEmbeddings())
	if err != nil {
		s.opt.Logf("hygiene: vector neighbours: %v (word overlap only)", err)
		return nil
	}
	out := make([]hygiene.Neighbour, len(pairs))
	for i, p := range pairs {
		out[i] = hygiene.Neighbour{A: p.A, B: p.B, Similarity: float64(p.Score)}
	}
	return out
}
