package review

import "database/sql"

// RecordRef names a record that came from a trajectory, without the rest
// of the record: its id and the steps its provenance cites (the zero
// range when it cites none). A value, not a pointer: a million of them
// stay small.
type RecordRef struct {
	ID    string
	Steps StepRange
}

// RecordRefsByTrajectory returns, for every trajectory that some record's
// provenance names, the records that came from it, in id order. It reads
// only those fields of each record (one pass, no record decoded), so a
// bank of a million records costs seconds and tens of MB, not the whole
// bank in memory.
func (s *Store) RecordRefsByTrajectory() (map[string][]RecordRef, error) {
	rows, err := s.db.Query(`SELECT id, json_extract(body, '$.provenance.trajectory'),
		json_extract(body, '$.provenance.steps.from'), json_extract(body, '$.provenance.steps.to')
		FROM records WHERE json_extract(body, '$.provenance.trajectory') <> '' ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]RecordRef{}
	for rows.Next() {
		var id, traj string
		var from, to sql.NullInt64
		if err := rows.Scan(&id, &traj, &from, &to); err != nil {
			return nil, err
		}
		ref := RecordRef{ID: id}
		if from.Valid && to.Valid {
			ref.Steps = StepRange{From: int(from.Int64), To: int(to.Int64)}
		}
		out[traj] = append(out[traj], ref)
	}
	return out, rows.Err()
}
