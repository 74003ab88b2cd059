package app

import (
	"errors"
	"fmt"

	"github.com/memreview/memreview/review"
)

// RecordRefsByTrajectory returns, for every trajectory some record came
// from, those records' ids and the steps they cite, in id order: what the
// trajectories screen marks and lists, without holding every record. A
// SQLite bank reads only those fields; another backend reads its records
// and keeps only those fields.
func (s *Service) RecordRefsByTrajectory() (map[string]*review.TrajectoryRefs, error) {
	if r, ok := s.b.(interface {
		RecordRefsByTrajectory() (map[string]*review.TrajectoryRefs, error)
	}); ok {
		return r.RecordRefsByTrajectory()
	}
	recs, err := s.b.Records(review.RecordFilter{})
	if err != nil {
		return nil, err
	}
	out := map[string]*review.TrajectoryRefs{}
	for _, r := range recs {
		t := r.Provenance.Trajectory
		if t == "" {
			continue
		}
		var st review.StepRange
		if p := r.Provenance.Steps; p != nil {
			st = *p
		}
		if out[t] == nil {
			out[t] = &review.TrajectoryRefs{}
		}
		out[t].Add(r.ID, st)
	}
	for _, t := range out {
		t.Seal()
	}
	return out, nil
}

// RecordsByID returns the current version of each record in ids that the
// bank holds; ids it does not hold are left out. It reads only those
// records (a screen asks for the rows it shows): a SQLite bank in one
// query per 500 ids, another backend one read per id.
func (s *Service) RecordsByID(ids []string) (map[string]*review.Record, error) {
	if r, ok := s.b.(interface {
		RecordsByID([]string) (map[string]*review.Record, error)
	}); ok {
		return r.RecordsByID(ids)
	}
	out := make(map[string]*review.Record, len(ids))
	for _, id := range ids {
		if _, ok := out[id]; ok {
			continue
		}
		r, err := s.b.Record(id)
		if errors.Is(err, review.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("load record %s: %w", id, err)
		}
		out[id] = r
	}
	return out, nil
}
