package pg

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// schemaVersion is the PostgreSQL schema this code writes (memreview_meta
// key schema_version).
const schemaVersion = 4

// migrations[i] brings a bank from schema version i to i+1. The tables are
// review's SQLite tables (review/schema.go) in PostgreSQL types, so the
// same queries run on both; every text column sorts bytewise (COLLATE "C")
// as SQLite does, whatever the database's locale.
var migrations = []string{
	`CREATE TABLE records(
		id TEXT PRIMARY KEY, version INTEGER NOT NULL, status TEXT NOT NULL,
		env TEXT NOT NULL DEFAULT '', body TEXT NOT NULL);
	CREATE TABLE record_versions(
		id TEXT NOT NULL, version INTEGER NOT NULL, op TEXT NOT NULL, actor TEXT NOT NULL,
		reason TEXT NOT NULL DEFAULT '', decision TEXT NOT NULL DEFAULT '', at TEXT NOT NULL,
		body TEXT NOT NULL, PRIMARY KEY(id, version));
	CREATE TABLE proposals(
		id TEXT PRIMARY KEY, status TEXT NOT NULL, created TEXT NOT NULL, body TEXT NOT NULL);
	CREATE TABLE decisions(
		seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE, proposal TEXT NOT NULL DEFAULT '',
		verb TEXT NOT NULL, undone_by TEXT NOT NULL DEFAULT '', body TEXT NOT NULL);
	CREATE TABLE trajectories(id TEXT PRIMARY KEY, body TEXT NOT NULL);
	CREATE TABLE retrievals(record_id TEXT NOT NULL, trajectory_id TEXT NOT NULL,
		PRIMARY KEY(record_id, trajectory_id));
	CREATE INDEX retrievals_trajectory ON retrievals(trajectory_id);
	CREATE TABLE probe_runs(id TEXT PRIMARY KEY, at TEXT NOT NULL, body TEXT NOT NULL);
	CREATE TABLE attachments(run_id TEXT NOT NULL, kind TEXT NOT NULL, target TEXT NOT NULL,
		actor TEXT NOT NULL DEFAULT '', at TEXT NOT NULL, PRIMARY KEY(run_id, kind, target));
	CREATE INDEX attachments_target ON attachments(kind, target);
	CREATE TABLE check_results(record_id TEXT NOT NULL, idx INTEGER NOT NULL, verdict TEXT NOT NULL,
		body TEXT NOT NULL, PRIMARY KEY(record_id, idx));
	CREATE TABLE changes(seq BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL, id TEXT NOT NULL);
	CREATE TABLE counters(name TEXT PRIMARY KEY, n BIGINT NOT NULL);
	CREATE INDEX proposals_status ON proposals(status, created, id);`,
	// 1→2: the retrieval log (review/retrieval.go).
	`CREATE TABLE retrieval_log(seq BIGSERIAL PRIMARY KEY, at TEXT NOT NULL,
		client TEXT NOT NULL DEFAULT '', task_id TEXT NOT NULL DEFAULT '', body TEXT NOT NULL);`,
	// 2→3: claims (review/claims.go).
	`CREATE TABLE claims(proposal TEXT PRIMARY KEY, operator TEXT NOT NULL, expires TEXT NOT NULL);`,
	// 3→4 (issue 26): screenings, agents' credentials, the agent audit
	// (review/store/schema.go 4→5).
	`ALTER TABLE proposals ADD COLUMN screen_rules TEXT NOT NULL DEFAULT '';
	ALTER TABLE proposals ADD COLUMN flagged INTEGER NOT NULL DEFAULT 0;
	CREATE TABLE agent_tokens(name TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, revoked TEXT NOT NULL DEFAULT '', body TEXT NOT NULL);
	CREATE TABLE agent_audit(seq BIGSERIAL PRIMARY KEY, at TEXT NOT NULL, agent TEXT NOT NULL DEFAULT '', body TEXT NOT NULL);
	CREATE INDEX agent_audit_agent ON agent_audit(agent, seq);`,
}

// lockKey is the advisory lock every write transaction takes (advisory
// locks are per database, so one key serves every bank).
const lockKey = 0x6d656d72 // "memr"

// migrate brings the database's schema to schemaVersion in one
// transaction under the bank's write lock (two processes opening a new
// bank at once migrate it once), creating the bank id on first open. It
// returns the bank id.
func migrate(ctx context.Context, db *sql.DB) (string, error) {
	t, err := db.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer t.Rollback()
	if _, err := t.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, lockKey); err != nil {
		return "", err
	}
	if _, err := t.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS memreview_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)`); err != nil {
		return "", err
	}
	meta := func(key string) (string, error) {
		var v string
		err := t.QueryRowContext(ctx, `SELECT value FROM memreview_meta WHERE key = ?`, key).Scan(&v)
		if err == sql.ErrNoRows {
			return "", nil
		}
		return v, err
	}
	setMeta := func(key, value string) error {
		_, err := t.ExecContext(ctx, `INSERT INTO memreview_meta(key, value) VALUES(?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	}
	vs, err := meta("schema_version")
	if err != nil {
		return "", err
	}
	v := 0
	if vs != "" {
		if v, err = strconv.Atoi(vs); err != nil {
			return "", fmt.Errorf("memreview_meta: schema_version %q is not a number", vs)
		}
	}
	if v > schemaVersion {
		return "", fmt.Errorf("bank schema version %d is newer than this memreview understands (%d); upgrade memreview", v, schemaVersion)
	}
	for ; v < schemaVersion; v++ {
		if _, err := t.ExecContext(ctx, collateC(migrations[v])); err != nil {
			return "", fmt.Errorf("migrate schema %d→%d: %w", v, v+1, err)
		}
		if err := setMeta("schema_version", strconv.Itoa(v+1)); err != nil {
			return "", err
		}
	}
	id, err := meta("bank_id")
	if err != nil {
		return "", err
	}
	if id == "" {
		b := make([]byte, 8)
		rand.Read(b)
		id = "pg-" + hex.EncodeToString(b)
		if err := setMeta("bank_id", id); err != nil {
			return "", err
		}
	}
	return id, t.Commit()
}

func collateC(ddl string) string { return strings.ReplaceAll(ddl, " TEXT ", ` TEXT COLLATE "C" `) }
