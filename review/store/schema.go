package store

import "fmt"

// schemaVersion is the bank.db schema this code writes (PRAGMA user_version).
const schemaVersion = 7

// migrations[i] brings a bank from user_version i to i+1. The SQL stays
// portable (plain tables, JSON bodies in TEXT) so the store can move to
// PostgreSQL later.
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
		seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, proposal TEXT NOT NULL DEFAULT '',
		verb TEXT NOT NULL, undone_by TEXT NOT NULL DEFAULT '', body TEXT NOT NULL);
	CREATE TABLE trajectories(id TEXT PRIMARY KEY, body TEXT NOT NULL);
	CREATE TABLE retrievals(record_id TEXT NOT NULL, trajectory_id TEXT NOT NULL,
		PRIMARY KEY(record_id, trajectory_id));
	CREATE TABLE probe_runs(id TEXT PRIMARY KEY, at TEXT NOT NULL, body TEXT NOT NULL);
	CREATE TABLE attachments(run_id TEXT NOT NULL, kind TEXT NOT NULL, target TEXT NOT NULL,
		actor TEXT NOT NULL DEFAULT '', at TEXT NOT NULL, PRIMARY KEY(run_id, kind, target));
	CREATE TABLE check_results(record_id TEXT NOT NULL, idx INTEGER NOT NULL, verdict TEXT NOT NULL,
		body TEXT NOT NULL, PRIMARY KEY(record_id, idx));
	CREATE TABLE changes(seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, id TEXT NOT NULL);
	CREATE TABLE counters(name TEXT PRIMARY KEY, n INTEGER NOT NULL);
	CREATE INDEX proposals_status ON proposals(status, created, id);`,
	// 1→2: the retrieval log (who asked for which records, and when).
	`CREATE TABLE retrieval_log(seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL,
		client TEXT NOT NULL DEFAULT '', task_id TEXT NOT NULL DEFAULT '', body TEXT NOT NULL);`,
	// 2→3: claims (review/claims.go).
	`CREATE TABLE claims(proposal TEXT PRIMARY KEY, operator TEXT NOT NULL, expires TEXT NOT NULL);`,
	// 3→4: a proposal's or record's attached runs are read by target (the
	// live runs a decision takes as baselines, ProbeRunsFor); PostgreSQL
	// has had this index from its first schema.
	`CREATE INDEX attachments_target ON attachments(kind, target);`,
	// 4→5 (issue 26): what the poisoning screen found in each proposal
	// (the rules version it was screened with, whether it is flagged; the
	// findings are in its body), agents' credentials (only their hashes)
	// and the audit of agents' tool calls.
	`ALTER TABLE proposals ADD COLUMN screen_rules TEXT NOT NULL DEFAULT '';
	ALTER TABLE proposals ADD COLUMN flagged INTEGER NOT NULL DEFAULT 0;
	CREATE TABLE agent_tokens(name TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, revoked TEXT NOT NULL DEFAULT '', body TEXT NOT NULL);
	CREATE TABLE agent_audit(seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, agent TEXT NOT NULL DEFAULT '', body TEXT NOT NULL);
	CREATE INDEX agent_audit_agent ON agent_audit(agent, seq);`,
	// 5→6: embeddings (embeddings.go): each active record version's text
	// key, the vectors stored by model and key (seq is the feed the vector
	// index follows), the texts whose embedding failed and when to try
	// again, and the trained offline embedders.
	embeddingsSchema,
	// 6→7: the records' standing (standing.go) as a covering index, so
	// that a hybrid retrieval reads its candidates' standing from the
	// index alone instead of from each record's row and JSON body.
	`CREATE INDEX IF NOT EXISTS records_standing ON records(id, status, ` + standingColumns + `);`,
}

func (s *Store) migrate() error {
	var v int
	if err := s.rd.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v > schemaVersion {
		return fmt.Errorf("bank schema version %d is newer than this memreview understands (%d); upgrade memreview", v, schemaVersion)
	}
	if v < schemaVersion && s.readOnly {
		return fmt.Errorf("%w: its schema (version %d) needs upgrading to %d, which needs write access", ErrReadOnly, v, schemaVersion)
	}
	for ; v < schemaVersion; v++ {
		t, err := s.db.Begin()
		if err != nil {
			return err
		}
		if _, err := t.Exec(migrations[v]); err != nil {
			t.Rollback()
			return fmt.Errorf("migrate schema %d→%d: %w", v, v+1, err)
		}
		if _, err := t.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
			t.Rollback()
			return err
		}
		if err := t.Commit(); err != nil {
			return fmt.Errorf("migrate schema %d→%d: %w", v, v+1, err)
		}
	}
	return nil
}
