package store

import "github.com/memreview/memreview/review"

// RecordsAfter returns up to limit records whose ids sort after afterID
// ("" = from the first), in id order: the index reads a large bank page by
// page with it instead of holding every record at once.
func (s *Store) RecordsAfter(afterID string, limit int) ([]review.Record, error) {
	q := `SELECT body, ` + suspectSQL + ` FROM records WHERE id > ? ORDER BY id LIMIT ?`
	return queryRows(s.rd, q, []any{afterID, limit}, scanRecord)
}

// RecordCount returns how many records the bank holds.
func (s *Store) RecordCount() (int, error) {
	var n int
	err := s.rd.QueryRow(`SELECT count(*) FROM records`).Scan(&n)
	return n, err
}
