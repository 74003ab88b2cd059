package app

// Complete: what an MCP client offers as the user types an argument — the
// ids of active records, open proposals and trajectories, environment
// names and tags — read from the index where it can be (a completion must
// not scan a bank of 100,000 records).

import (
	"slices"
	"sort"
	"strings"

	"github.com/memreview/memreview/review"
)

// What Complete completes.
const (
	CompleteRecord     = "record"
	CompleteProposal   = "proposal"
	CompleteTrajectory = "trajectory"
	CompleteEnv        = "env"
	CompleteTag        = "tag"
)

// Complete returns up to limit values of kind that start with prefix, in
// order, and how many there are in all.
func (s *Service) Complete(kind, prefix string, limit int) ([]string, int, error) {
	if limit <= 0 {
		limit = 100
	}
	switch kind {
	case CompleteRecord, CompleteTrajectory:
		req := SearchRequest{Type: kind, Sort: []string{"id"}, Size: limit}
		if prefix != "" {
			req.Query = "id:" + EscapeQuery(prefix) + "*"
		}
		res, err := s.Search(req)
		if err != nil {
			return nil, 0, err
		}
		out := make([]string, 0, len(res.Hits))
		for _, h := range res.Hits {
			out = append(out, h.ID)
		}
		return out, int(res.Total), nil
	case CompleteProposal:
		q, err := s.b.Queue()
		if err != nil {
			return nil, 0, err
		}
		var ids []string
		for _, p := range q {
			if strings.HasPrefix(p.ID, prefix) {
				ids = append(ids, p.ID)
			}
		}
		sort.Strings(ids)
		return firstN(ids, limit), len(ids), nil
	case CompleteEnv, CompleteTag:
		field := map[string]string{CompleteEnv: "env", CompleteTag: "tags"}[kind]
		var vals []string
		if kind == CompleteEnv {
			if c, err := s.b.Config(); err == nil {
				for _, e := range c.Envs {
					vals = append(vals, e.Name)
				}
			}
		}
		req := SearchRequest{Type: "record", Facets: []string{field}, Size: 1}
		if prefix != "" {
			req.Query = field + ":" + EscapeQuery(prefix) + "*"
		}
		res, err := s.Search(req)
		if err != nil && err != ErrNoIndex {
			return nil, 0, err
		}
		if res != nil {
			for _, f := range res.Facets[field] {
				vals = append(vals, f.Term)
			}
		}
		var out []string
		for _, v := range vals {
			if v != "" && strings.HasPrefix(v, prefix) && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		sort.Strings(out)
		return firstN(out, limit), len(out), nil
	}
	return nil, 0, review.ErrNotFound
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
