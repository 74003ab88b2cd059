package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/memreview/memreview/review"
)

// PutRecords stores new records at version 1 in one transaction (import),
// as review's does — same checks, same first error, same rows — but with
// COPY instead of one round trip per statement, which on PostgreSQL is
// most of an import's time. Every id must be new.
func (s *Store) PutRecords(recs []review.Record, actor, reason string) error {
	ctx := context.Background()
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		pc := dc.(*conn).Conn.Conn()
		t, err := pc.Begin(ctx)
		if err != nil {
			return s.explain(err)
		}
		defer t.Rollback(context.Background())
		if _, err := t.Exec(ctx, `SELECT pg_advisory_xact_lock($1), pg_notify($2, '')`, lockKey, Channel); err != nil {
			return s.explain(err)
		}
		exists := map[string]bool{}
		rows, err := t.Query(ctx, `SELECT id FROM records WHERE id = ANY($1)`, ids)
		if err != nil {
			return s.explain(err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			exists[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return s.explain(err)
		}
		now := s.Now()
		at := review.Timestamp(now)
		versions := make([][]any, 0, len(recs))
		current := make([][]any, 0, len(recs))
		changes := make([][]any, 0, len(recs))
		for i := range recs {
			r := recs[i]
			if r.ID == "" {
				return fmt.Errorf("record #%d: field \"id\" is empty", i+1)
			}
			if exists[r.ID] {
				return fmt.Errorf("record %s already exists in the bank", r.ID)
			}
			exists[r.ID] = true
			body, err := review.NewVersion(&r, 0, now)
			if err != nil {
				return err
			}
			versions = append(versions, []any{r.ID, r.Version, "import", actor, reason, "", at, body})
			current = append(current, []any{r.ID, r.Version, string(r.Status), r.Scope.Env, body})
			changes = append(changes, []any{"record", r.ID})
		}
		for _, cp := range []struct {
			table string
			cols  []string
			rows  [][]any
		}{
			{"record_versions", []string{"id", "version", "op", "actor", "reason", "decision", "at", "body"}, versions},
			{"records", []string{"id", "version", "status", "env", "body"}, current},
			{"changes", []string{"kind", "id"}, changes},
		} {
			if _, err := t.CopyFrom(ctx, pgx.Identifier{cp.table}, cp.cols, pgx.CopyFromRows(cp.rows)); err != nil {
				return s.explain(fmt.Errorf("import records: copy %s: %w", cp.table, err))
			}
		}
		// As writeRecord does: verify results never outlive a new version.
		if _, err := t.Exec(ctx, `DELETE FROM check_results WHERE record_id = ANY($1)`, ids); err != nil {
			return s.explain(err)
		}
		if err := t.Commit(ctx); err != nil {
			return s.explain(err)
		}
		return nil
	})
}

func (s *Store) explain(err error) error { return (&connector{where: s.where}).explain(err) }
