package pg

import (
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

// RecordStandings is the SQLite store's query in PostgreSQL's JSON
// operators (the shared store's calls json_extract).
func (s *Store) RecordStandings(ids []string) (map[string]review.RecordStanding, error) {
	return store.StandingsBy(s.db, ids, `SELECT id, status, coalesce(body::jsonb ->> 'category', ''),
		coalesce((body::jsonb ->> 'priority')::bigint, 0), coalesce((body::jsonb ->> 'confidence')::float8, 0), `+store.SuspectSQL+`
		FROM records WHERE id IN (`)
}
