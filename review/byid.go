package review

import (
	"database/sql"
	"slices"
	"strings"
)

// byIDChunk is how many ids one IN (...) query names.
const byIDChunk = 500

// inChunks runs read on ids cut into chunks of byIDChunk, each as the
// placeholder list "?, ?, …" and its arguments.
func inChunks(ids []string, read func(placeholders string, args []any) error) error {
	for lo := 0; lo < len(ids); lo += byIDChunk {
		part := ids[lo:min(lo+byIDChunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		if err := read("?"+strings.Repeat(", ?", len(part)-1), args); err != nil {
			return err
		}
	}
	return nil
}

// ProposalsByID returns each proposal in ids that the bank holds, in a few
// queries (one per 500 ids) rather than one per id, as RecordsByID does
// for records; ids it does not hold are left out. The index reads the
// items changed after its sequence with it (index.Source's bulk reads).
func (s *Store) ProposalsByID(ids []string) (map[string]*Proposal, error) {
	out := make(map[string]*Proposal, len(ids))
	err := inChunks(ids, func(in string, args []any) error {
		ps, err := s.proposals(`WHERE id IN (`+in+`)`, args...)
		for i := range ps {
			out[ps[i].ID] = &ps[i]
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TrajectoriesByID is ProposalsByID for trajectories.
func (s *Store) TrajectoriesByID(ids []string) (map[string]*Trajectory, error) {
	out := make(map[string]*Trajectory, len(ids))
	err := inChunks(ids, func(in string, args []any) error {
		ts, err := queryRows(s.db, `SELECT body FROM trajectories WHERE id IN (`+in+`)`, args, scanBody[Trajectory])
		for i := range ts {
			out[ts[i].ID] = &ts[i]
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// NewestChanges is ChangesSince for the newest limit objects only: the
// latest change of each of the limit objects changed last after seq,
// oldest first, and how many objects changed after seq in all. The index
// reads the tail of a long feed with it (a first build at a million
// records) without holding every change in memory.
func (s *Store) NewestChanges(seq int64, limit int) ([]Change, int, error) {
	var total int
	if err := s.db.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM changes WHERE seq > ? GROUP BY kind, id) AS objs`, seq).Scan(&total); err != nil {
		return nil, 0, err
	}
	cs, err := queryRows(s.db, `SELECT max(seq) AS newest, kind, id FROM changes WHERE seq > ? GROUP BY kind, id ORDER BY newest DESC LIMIT ?`, []any{seq, limit},
		func(rows *sql.Rows) (Change, error) {
			var c Change
			err := rows.Scan(&c.Seq, &c.Kind, &c.ID)
			return c, err
		})
	if err != nil {
		return nil, 0, err
	}
	slices.Reverse(cs)
	return cs, total, nil
}
