package store

import (
	"database/sql"

	"github.com/memreview/memreview/review"
)

// RecordRefsByTrajectory returns, for every trajectory that some record's
// provenance names, the records that came from it, in id order. It reads
// only those fields of each record (one pass, no record decoded) into
// compact refs, so a bank of a million records costs seconds and tens of
// MB, not the whole bank in memory.
func (s *Store) RecordRefsByTrajectory() (map[string]*review.TrajectoryRefs, error) {
	rows, err := s.rd.Query(`SELECT id, json_extract(body, '$.provenance.trajectory'),
		json_extract(body, '$.provenance.steps.from'), json_extract(body, '$.provenance.steps.to')
		FROM records WHERE json_extract(body, '$.provenance.trajectory') <> '' ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*review.TrajectoryRefs{}
	var id, traj sql.RawBytes // no string per row: copied into the refs
	for rows.Next() {
		var from, to sql.NullInt64
		if err := rows.Scan(&id, &traj, &from, &to); err != nil {
			return nil, err
		}
		t := out[string(traj)] // no allocation for the lookup
		if t == nil {
			t = &review.TrajectoryRefs{}
			out[string(traj)] = t
		}
		var st review.StepRange
		if from.Valid && to.Valid {
			st = review.StepRange{From: int(from.Int64), To: int(to.Int64)}
		}
		t.AddBytes(id, st)
	}
	for _, t := range out {
		t.Seal()
	}
	return out, rows.Err()
}
