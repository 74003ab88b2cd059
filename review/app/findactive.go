package app

import (
	"errors"
	"fmt"

	"github.com/memreview/memreview/review"
)

// FindActive returns up to n active records matching query (any of its
// terms, best first), in env only when env is not "", without the
// records in exclude: what the review screen's merge picker suggests and
// finds. Each hit is read from the store, so a record retired since the
// index saw it is left out; a hit gone from the store is skipped.
func (s *Service) FindActive(query, env string, exclude []string, n int) ([]review.Record, error) {
	filters := map[string][]string{"status": {string(review.Active)}}
	if env != "" {
		filters["env"] = []string{env}
	}
	res, err := s.Search(SearchRequest{Query: query, Type: "record", Filters: filters, Size: n + len(exclude), AnyTerm: true})
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	skip := map[string]bool{}
	for _, id := range exclude {
		skip[id] = true
	}
	var out []review.Record
	for _, h := range res.Hits {
		if skip[h.ID] || len(out) == n {
			continue
		}
		r, err := s.Record(h.ID)
		if errors.Is(err, review.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("load record %s: %w", h.ID, err)
		}
		if r.Status == review.Active {
			out = append(out, *r)
		}
	}
	return out, nil
}
