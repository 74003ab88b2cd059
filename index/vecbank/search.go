package vecbank

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/memreview/memreview/index/embed"
	"github.com/memreview/memreview/index/vector"
)

// Query is a nearest-records search. The query vector is Key's stored
// vector when the bank has one (a record's own text), else Text embedded
// with the served model.
type Query struct {
	Text string `json:"text,omitempty"`
	Key  string `json:"key,omitempty"`
	K    int    `json:"k"`
	// Filter selects the records searched (vector.Filter: "" selects
	// records with no env, no category or no tags).
	Filter vector.Filter `json:"filter"`
	// MinScore drops hits less similar than it (cosine).
	MinScore float32 `json:"min_score,omitempty"`
}

// Answer is what a search found: hits best first, the model they are
// vectors of and how the search ran. Why says, when there are no hits
// because there could be none, why not (no vectors yet, the query could
// not be embedded).
type Answer struct {
	Model string       `json:"model,omitempty"`
	Hits  []vector.Hit `json:"hits,omitempty"`
	Plan  string       `json:"plan,omitempty"`
	Why   string       `json:"why,omitempty"`
}

// ErrNoVectors is the Why of an answer from a side that serves no model.
const noVectors = "no vectors yet"

// Search answers q from the served model's index.
func (s *Side) Search(ctx context.Context, q Query) (*Answer, error) {
	serving, _ := s.indexes()
	if serving == nil {
		return &Answer{Why: noVectors}, nil
	}
	a := &Answer{Model: serving.model}
	vx := serving.index()
	if vx == nil {
		a.Why = "no vectors of " + serving.model + " yet"
		return a, nil
	}
	v, why, err := s.queryVector(ctx, serving.model, q)
	if err != nil {
		return nil, err
	}
	if v == nil {
		a.Why = why
		return a, nil
	}
	k := max(q.K, 1)
	hits, err := vx.Search(v, k, q.Filter)
	if err != nil {
		a.Why = err.Error() // a query vector of another length than the index's
		return a, nil
	}
	a.Plan = vx.Explain(k, q.Filter).String()
	for _, h := range hits {
		if h.Score >= q.MinScore {
			a.Hits = append(a.Hits, h)
		}
	}
	return a, nil
}

// queryVector is q's vector under model, or why there is none; an error
// only when the bank could not be read.
func (s *Side) queryVector(ctx context.Context, model string, q Query) ([]float32, string, error) {
	if q.Key != "" {
		got, err := s.opt.Store.Embeddings(model, []string{q.Key})
		if err != nil {
			return nil, "", err
		}
		if v := got[q.Key]; v != nil {
			return v, "", nil
		}
	}
	if strings.TrimSpace(q.Text) == "" {
		return nil, "nothing to embed (a blank query)", nil
	}
	e, err := s.embedder(model)
	if err != nil {
		return nil, "the query could not be embedded: " + err.Error(), nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.opt.QueryTimeout)
	defer cancel()
	vs, err := e.Embed(ctx, []string{q.Text})
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (err == nil && ctx.Err() != nil):
		return nil, fmt.Sprintf("embedding the query took longer than %s", s.opt.QueryTimeout), nil
	case err != nil:
		return nil, "the query could not be embedded: " + embed.Reason(err), nil
	case len(vs) != 1:
		return nil, "the query could not be embedded: no vector came back", nil
	}
	return vs[0], "", nil
}

// Item is a record Neighbours looks around: its id, its text key, and
// the env and category its neighbours must share.
type Item struct {
	ID       string `json:"id"`
	Key      string `json:"key"`
	Env      string `json:"env"`
	Category string `json:"category"`
}

// NeighboursRequest asks for the pairs among records whose vectors are
// near: each item's K nearest records of its own env and category at
// cosine MinScore or more.
type NeighboursRequest struct {
	Items    []Item  `json:"items"`
	K        int     `json:"k"`
	MinScore float32 `json:"min_score"`
}

// Pair is two records (A < B) and the cosine of their vectors.
type Pair struct {
	A     string  `json:"a"`
	B     string  `json:"b"`
	Score float32 `json:"score"`
}

// Neighbours returns the near pairs among req's items (each pair once,
// by A then B), and the model they come from.
func (s *Side) Neighbours(ctx context.Context, req NeighboursRequest) ([]Pair, string, error) {
	serving, _ := s.indexes()
	if serving == nil || serving.index() == nil {
		return nil, "", nil
	}
	vx := serving.index()
	keys := make([]string, 0, len(req.Items))
	for _, it := range req.Items {
		keys = append(keys, it.Key)
	}
	vecs, err := s.opt.Store.Embeddings(serving.model, keys)
	if err != nil {
		return nil, "", err
	}
	k := max(req.K, 1)
	seen := map[[2]string]bool{}
	var out []Pair
	for _, it := range req.Items {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		v := vecs[it.Key]
		if v == nil {
			continue
		}
		f := vector.Filter{Envs: []string{it.Env}, Categories: []string{it.Category}, Exclude: []string{it.ID}}
		hits, err := vx.Search(v, k, f)
		if err != nil {
			continue // another length than the index's
		}
		for _, h := range hits {
			if h.Score < req.MinScore {
				continue
			}
			p := Pair{A: it.ID, B: h.ID, Score: h.Score}
			if p.B < p.A {
				p.A, p.B = p.B, p.A
			}
			if !seen[[2]string{p.A, p.B}] {
				seen[[2]string{p.A, p.B}] = true
				out = append(out, p)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].A != out[j].A {
			return out[i].A < out[j].A
		}
		return out[i].B < out[j].B
	})
	return out, serving.model, nil
}
