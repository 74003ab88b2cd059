package review

import "database/sql"

// RecordIDsByStatus returns the ids of the records with that status, in
// id order, from the from-th (0-based) on, at most limit of them: a page
// of the bank browser's blank list, read along the primary key (a first
// page reads about limit rows however large the bank).
func (s *Store) RecordIDsByStatus(status Status, from, limit int) ([]string, error) {
	return queryRows(s.db, `SELECT id FROM records WHERE status = ? ORDER BY id LIMIT ? OFFSET ?`,
		[]any{string(status), limit, max(from, 0)}, scanString)
}

func scanString(rows *sql.Rows) (string, error) {
	var v string
	err := rows.Scan(&v)
	return v, err
}
