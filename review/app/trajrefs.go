package app

import (
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
// records (a screen asks for the rows it shows), one query per 512 ids.
func (s *Service) RecordsByID(ids []string) (map[string]*review.Record, error) {
	return s.b.RecordsByID(ids)
}
