package store

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// reopenedFrom creates a bank, puts it back to an older schema with
// downgrade (ending with its PRAGMA user_version), and opens it again,
// which migrates it to schemaVersion.
func reopenedFrom(t *testing.T, downgrade ...string) *Store {
	t.Helper()
	dir := t.TempDir()
	s, err := Create(dir, Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range downgrade {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	s, err = Open(dir, Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var v int
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("user_version = %d (%v), want %d", v, err, schemaVersion)
	}
	return s
}

// A bank written by schema 3 gains the attachments index when it is
// opened, and reading a target's runs uses it.
func TestSchemaMigratesAttachmentsIndex(t *testing.T) {
	t.Parallel()
	s := reopenedFrom(t, `DROP INDEX attachments_target`, `DROP TABLE agent_tokens`, `DROP TABLE agent_audit`,
		`ALTER TABLE proposals DROP COLUMN screen_rules`, `ALTER TABLE proposals DROP COLUMN flagged`, `PRAGMA user_version = 3`)
	if p := queryPlan(t, s, `SELECT run_id FROM attachments WHERE kind = ? AND target = ? ORDER BY at, run_id`, "proposal", "prop_1"); !strings.Contains(p, "attachments_target") {
		t.Fatalf("reading a target's runs does not use the index: %s", p)
	}
}

// A bank of schema 6 gains records_standing when it is opened, and the
// standings query reads it alone (SQLite's plan: a covering index), not
// the records' rows.
func TestSchemaMigratesStandingIndex(t *testing.T) {
	t.Parallel()
	s := reopenedFrom(t, `DROP INDEX records_standing`, `PRAGMA user_version = 6`)
	if p := queryPlan(t, s, `SELECT id, status, `+standingColumns+` FROM records INDEXED BY records_standing WHERE id IN (?, ?)`, "mem_a", "mem_b"); !strings.Contains(p, "COVERING INDEX records_standing") {
		t.Fatalf("the standings query reads more than records_standing: %s", p)
	}
}

// queryPlan is SQLite's plan for query, its steps joined by "; ".
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.db.Query(`EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "; ")
}
