package pg

import (
	"database/sql"

	"github.com/memreview/memreview/review"
)

// RecordRefsByTrajectory is the SQLite store's query (one pass over the
// records, only the provenance's trajectory and steps read, no record
// decoded) in PostgreSQL's JSON operators: the shared store's version
// calls SQLite's json_extract, which PostgreSQL does not have (the
// trajectories screen of a team bank failed with "function json_extract
// does not exist" before).
func (s *Store) RecordRefsByTrajectory() (map[string]*review.TrajectoryRefs, error) {
	rows, err := s.db.Query(`SELECT id, body::jsonb #>> '{provenance,trajectory}',
		(body::jsonb #>> '{provenance,steps,from}')::bigint, (body::jsonb #>> '{provenance,steps,to}')::bigint
		FROM records WHERE coalesce(body::jsonb #>> '{provenance,trajectory}', '') <> '' ORDER BY id COLLATE "C"`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*review.TrajectoryRefs{}
	for rows.Next() {
		var id, traj string
		var from, to sql.NullInt64
		if err := rows.Scan(&id, &traj, &from, &to); err != nil {
			return nil, err
		}
		t := out[traj]
		if t == nil {
			t = &review.TrajectoryRefs{}
			out[traj] = t
		}
		var st review.StepRange
		if from.Valid && to.Valid {
			st = review.StepRange{From: int(from.Int64), To: int(to.Int64)}
		}
		t.Add(id, st)
	}
	for _, t := range out {
		t.Seal()
	}
	return out, rows.Err()
}
