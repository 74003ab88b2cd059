package store

import (
	"database/sql"

	"github.com/memreview/memreview/review"
)

// RecordIDsByStatus returns the ids of the records with that status, in
// id order, from the from-th (0-based) on, at most limit of them: a page
// of the bank browser's blank list, read along the primary key (a first
// page reads about limit rows however large the bank).
func (s *Store) RecordIDsByStatus(status review.Status, from, limit int) ([]string, error) {
	return queryRows(s.rd, `SELECT id FROM records WHERE status = ? ORDER BY id LIMIT ? OFFSET ?`,
		[]any{string(status), limit, max(from, 0)}, scanString)
}

func scanString(rows *sql.Rows) (string, error) {
	var v string
	err := rows.Scan(&v)
	return v, err
}

// RecordsByID returns the current version of each record in ids that the
// bank holds, in a few queries (a screen's rows: one query per 512 ids)
// rather than one per id; ids it does not hold are left out.
func (s *Store) RecordsByID(ids []string) (map[string]*review.Record, error) {
	out := make(map[string]*review.Record, len(ids))
	err := inChunks(ids, func(in string, args []any) error {
		recs, err := queryRows(s.rd, `SELECT body, `+suspectSQL+` FROM records WHERE id IN (`+in+`)`, args, scanRecord)
		for i := range recs {
			out[recs[i].ID] = &recs[i]
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
