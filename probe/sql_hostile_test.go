package probe

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSQLHostile throws writes, escapes and runaway queries at the music
// fixture (and a copy of the real Chinook database when present). Every
// one must be refused or bounded by SQLite itself, and the file and its
// folder must be byte-for-byte unchanged afterwards.
func TestSQLHostile(t *testing.T) {
	t.Parallel()
	for _, d := range sqlDatabases(t) {
		t.Run(d.name, func(t *testing.T) { sqlHostile(t, d.path) })
	}
}

func sqlHostile(t *testing.T, db string) {
	dir := filepath.Dir(db)
	before, beforeDir := fileSHA(t, db), dirNames(t, dir)
	env := Env{Name: "music", Kind: KindSQL, Path: db}
	newFile := filepath.Join(dir, "new.sqlite")
	intoFile := filepath.Join(dir, "vacuumed.sqlite")

	refused := []struct {
		query string
		want  []string // the error must contain one of these
	}{
		{"INSERT INTO Genre (Name) VALUES ('x')", []string{"INSERT"}},
		{"REPLACE INTO Genre VALUES (1, 'x')", []string{"INSERT"}},
		{"WITH x AS (SELECT 1) INSERT INTO Genre (Name) SELECT 'x' FROM x", []string{"INSERT"}},
		{"UPDATE Track SET Name = 'x'", []string{"UPDATE"}},
		{"DELETE FROM Track", []string{"DELETE"}},
		{"DROP TABLE Track", []string{"DROP TABLE", "schema"}},
		{"DROP INDEX IFK_TrackAlbumId", []string{"DROP INDEX", "schema"}},
		{"CREATE TABLE x (a)", []string{"CREATE TABLE", "schema"}},
		{"CREATE TEMP TABLE x (a)", []string{"CREATE TEMP TABLE", "schema"}},
		{"CREATE TEMPORARY VIEW v AS SELECT 1", []string{"CREATE TEMP VIEW", "schema"}},
		{"CREATE VIEW v AS SELECT 1", []string{"CREATE VIEW", "schema"}},
		{"CREATE TRIGGER tr AFTER INSERT ON Genre BEGIN DELETE FROM Track; END", []string{"CREATE TRIGGER", "schema"}},
		{"CREATE INDEX ix ON Track (Name)", []string{"CREATE INDEX", "schema"}},
		{"CREATE VIRTUAL TABLE f USING fts5(x)", []string{"CREATE VIRTUAL TABLE", "schema"}},
		{"ALTER TABLE Track RENAME TO Track2", []string{"ALTER TABLE"}},
		{"ALTER TABLE Track ADD COLUMN z", []string{"ALTER TABLE"}},
		{"ATTACH '" + newFile + "' AS n", []string{"ATTACH"}},
		{"ATTACH '" + db + "' AS again", []string{"ATTACH"}},
		{"ATTACH 'file:" + newFile + "?mode=rwc' AS n", []string{"ATTACH"}},
		{"DETACH main", []string{"DETACH"}},
		{"VACUUM", []string{"ATTACH", "VACUUM"}},
		{"VACUUM INTO '" + intoFile + "'", []string{"ATTACH", "VACUUM"}},
		{"REINDEX", []string{"REINDEX"}},
		{"ANALYZE", []string{"ANALYZE"}},
		{"BEGIN IMMEDIATE", []string{"transaction"}},
		{"SAVEPOINT s", []string{"SAVEPOINT"}},
		{"PRAGMA journal_mode = delete", []string{"journal_mode"}},
		{"PRAGMA journal_mode = wal", []string{"journal_mode"}},
		{"PRAGMA user_version = 5", []string{"user_version"}},
		{"PRAGMA main.user_version = 5", []string{"user_version"}},
		{"PRAGMA application_id = 7", []string{"application_id"}},
		{"PRAGMA schema_version = 99", []string{"schema_version"}},
		{"PRAGMA writable_schema = 1", []string{"writable_schema"}},
		{"PRAGMA writable_schema", []string{"writable_schema"}},
		{"PRAGMA query_only = 0", []string{"query_only"}},
		{"PRAGMA query_only = false", []string{"query_only"}},
		{"PRAGMA foreign_keys = on", []string{"foreign_keys"}},
		{"PRAGMA locking_mode = exclusive", []string{"locking_mode"}},
		{"PRAGMA synchronous = off", []string{"synchronous"}},
		{"PRAGMA auto_vacuum = 1", []string{"auto_vacuum"}},
		{"PRAGMA temp_store = 2", []string{"temp_store"}},
		{"PRAGMA wal_checkpoint", []string{"wal_checkpoint"}},
		{"PRAGMA incremental_vacuum", []string{"incremental_vacuum"}},
		{"PRAGMA optimize", []string{"optimize"}},
		{"PRAGMA query_only = 0; INSERT INTO Genre (Name) VALUES ('x')", []string{"one statement"}},
		{"SELECT 1; SELECT 2", []string{"one statement"}},
		{"SELECT 1; DELETE FROM Track", []string{"one statement"}},
		{"SELECT load_extension('/tmp/nothing.so')", []string{"load_extension"}},
		{"SELECT zeroblob(100000000)", []string{"too big"}},
		{"SELECT length(randomblob(100000000))", []string{"too big"}},
	}
	for _, c := range refused {
		r := Run(context.Background(), env, c.query, Limits{Timeout: 2 * time.Second})
		if !strings.HasPrefix(r.Error, "refused: ") && !strings.Contains(r.Error, "no such") {
			t.Errorf("%s: error = %q, want a refusal", c.query, r.Error)
			continue
		}
		if !containsAny(r.Error, c.want) {
			t.Errorf("%s: error = %q, want it to mention one of %q", c.query, r.Error, c.want)
		}
		if r.Rows != nil || r.Columns != nil || r.Text != "" {
			t.Errorf("%s: a refused run returned output %+v", c.query, r)
		}
	}

	// Table-valued PRAGMA functions have no setter form: SQLite rejects
	// the argument itself.
	for _, q := range []string{"SELECT * FROM pragma_user_version(5)", "SELECT * FROM pragma_journal_mode('wal')"} {
		if r := Run(context.Background(), env, q, Limits{}); r.Error == "" || r.Rows != nil {
			t.Errorf("%s: error = %q, rows %v; want an error", q, r.Error, r.Rows)
		}
	}

	// query_only=0 in one run does not carry over to the next.
	for _, q := range []string{"PRAGMA query_only = 0", "INSERT INTO Genre (Name) VALUES ('x')"} {
		if r := Run(context.Background(), env, q, Limits{}); !strings.HasPrefix(r.Error, "refused: ") {
			t.Errorf("%s as a separate run: error = %q, want a refusal", q, r.Error)
		}
	}

	t.Run("never-ending recursive CTE stops at the time limit", func(t *testing.T) {
		start := time.Now()
		r := Run(context.Background(), env,
			"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
			Limits{Timeout: 300 * time.Millisecond})
		if !strings.Contains(r.Error, "timed out after 300ms") {
			t.Errorf("error = %q, want a time-out after 300ms", r.Error)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %s, want about 300ms", d)
		}
	})
	t.Run("million-row cross join stops at the row cap", func(t *testing.T) {
		r := Run(context.Background(), env, "SELECT a.TrackId, b.TrackId FROM Track a, Track b", Limits{MaxRows: 50})
		if r.Error != "" || !r.Truncated || len(r.Rows) != 50 {
			t.Errorf("error %q, truncated %v, %d rows; want 50 rows, truncated", r.Error, r.Truncated, len(r.Rows))
		}
	})
	t.Run("aggregate over a cross join stops at the time limit", func(t *testing.T) {
		r := Run(context.Background(), env, "SELECT count(*) FROM Track a, Track b, Track c", Limits{Timeout: 300 * time.Millisecond})
		if !strings.Contains(r.Error, "timed out") {
			t.Errorf("error = %q, want a time-out", r.Error)
		}
	})
	t.Run("large values stop at the byte cap", func(t *testing.T) {
		r := Run(context.Background(), env, "SELECT printf('%.*c', 400000, 'x') FROM Track", Limits{})
		if r.Error != "" || !r.Truncated || len(r.Rows) > 3 {
			t.Errorf("error %q, truncated %v, %d rows; want at most 3 rows, truncated", r.Error, r.Truncated, len(r.Rows))
		}
	})
	t.Run("canceled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := Run(ctx, env, "SELECT 1", Limits{})
		if !strings.Contains(r.Error, "canceled") {
			t.Errorf("error = %q, want canceled", r.Error)
		}
	})

	if after := fileSHA(t, db); after != before {
		t.Errorf("database changed: sha256 %s before, %s after", before, after)
	}
	if afterDir := dirNames(t, dir); !reflect.DeepEqual(afterDir, beforeDir) {
		t.Errorf("folder changed: %q before, %q after", beforeDir, afterDir)
	}
}

func containsAny(s string, subs []string) bool {
	low := strings.ToLower(s)
	for _, sub := range subs {
		if strings.Contains(low, strings.ToLower(sub)) {
			return true
		}
	}
	return false
}
