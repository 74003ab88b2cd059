package store

import (
	"database/sql"

	"github.com/memreview/memreview/review"
)

// RecordStandings returns the standing of each record in ids that the bank
// holds (ids it does not hold are left out), read from the records' JSON
// by SQLite without decoding them: a hybrid retrieval checks up to a
// hundred candidates this way and reads in full only the k it returns.
// The covering index records_standing holds what it reads of a record
// (schema 7), so a record's row and body are not read at all.
func (s *Store) RecordStandings(ids []string) (map[string]review.RecordStanding, error) {
	return StandingsBy(s.rd, ids, `SELECT id, status, `+standingColumns+`, `+suspectSQL+`
		FROM records INDEXED BY records_standing WHERE id IN (`)
}

// standingColumns are a record's category, priority and confidence, as
// RecordStandings reads them and records_standing indexes them (the
// same expressions, or SQLite would read the body again).
const standingColumns = `coalesce(json_extract(body, '$.category'), ''), coalesce(json_extract(body, '$.priority'), 0), coalesce(json_extract(body, '$.confidence'), 0)`

// StandingsBy runs a standings query (prefix, then the ids' placeholders
// and ")") in chunks (inChunks); PostgreSQL's store gives its own prefix.
func StandingsBy(q interface {
	Query(query string, args ...any) (*sql.Rows, error)
}, ids []string, prefix string) (map[string]review.RecordStanding, error) {
	out := make(map[string]review.RecordStanding, len(ids))
	err := inChunks(ids, func(in string, args []any) error {
		rows, err := q.Query(prefix+in+")", args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var st review.RecordStanding
			if err := rows.Scan(&id, &st.Status, &st.Category, &st.Priority, &st.Confidence, &st.Suspect); err != nil {
				return err
			}
			out[id] = st
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SuspectSQL is the expression that says whether the row of records is
// suspect (a check that failed at the last verify), for other stores'
// queries.
const SuspectSQL = suspectSQL
