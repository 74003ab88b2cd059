package pg

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Table is one of the bank's tables as migrate copies it: its columns,
// the key it is ordered by, and the serial column whose sequence must
// continue after the copied rows.
type Table struct {
	Name   string
	Cols   []string
	Key    string // ORDER BY for a deterministic content hash
	Serial string // "" or the BIGSERIAL column
}

// Tables is every table of a bank, in both stores' schemas.
var Tables = []Table{
	{Name: "records", Cols: []string{"id", "version", "status", "env", "body"}, Key: "id"},
	{Name: "record_versions", Cols: []string{"id", "version", "op", "actor", "reason", "decision", "at", "body"}, Key: "id, version"},
	{Name: "proposals", Cols: []string{"id", "status", "created", "body", "screen_rules", "flagged"}, Key: "id"},
	{Name: "decisions", Cols: []string{"seq", "id", "proposal", "verb", "undone_by", "body"}, Key: "seq", Serial: "seq"},
	{Name: "trajectories", Cols: []string{"id", "body"}, Key: "id"},
	{Name: "retrievals", Cols: []string{"record_id", "trajectory_id"}, Key: "record_id, trajectory_id"},
	{Name: "probe_runs", Cols: []string{"id", "at", "body"}, Key: "id"},
	{Name: "attachments", Cols: []string{"run_id", "kind", "target", "actor", "at"}, Key: "run_id, kind, target"},
	{Name: "check_results", Cols: []string{"record_id", "idx", "verdict", "body"}, Key: "record_id, idx"},
	{Name: "changes", Cols: []string{"seq", "kind", "id"}, Key: "seq", Serial: "seq"},
	{Name: "counters", Cols: []string{"name", "n"}, Key: "name"},
	{Name: "retrieval_log", Cols: []string{"seq", "at", "client", "task_id", "body"}, Key: "seq", Serial: "seq"},
	{Name: "claims", Cols: []string{"proposal", "operator", "expires"}, Key: "proposal"},
	{Name: "agent_tokens", Cols: []string{"name", "hash", "revoked", "body"}, Key: "name"},
	{Name: "agent_audit", Cols: []string{"seq", "at", "agent", "body"}, Key: "seq", Serial: "seq"},
}

// Queryer reads rows: a *sql.DB or *sql.Tx on either store.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Digest is a table's row count and a SHA-256 over every row, in key
// order, column by column as text: equal digests mean equal contents.
type Digest struct {
	Table string
	Rows  int64
	Hash  string
}

// Digests computes the digest of every table in Tables.
func Digests(ctx context.Context, q Queryer) ([]Digest, error) {
	var out []Digest
	for _, t := range Tables {
		d := Digest{Table: t.Name}
		rows, err := q.QueryContext(ctx, `SELECT `+strings.Join(t.Cols, ", ")+` FROM `+t.Name+` ORDER BY `+t.Key)
		if err != nil {
			return nil, fmt.Errorf("digest %s: %w", t.Name, err)
		}
		h := sha256.New()
		vals := make([]sql.NullString, len(t.Cols))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return nil, fmt.Errorf("digest %s: %w", t.Name, err)
			}
			for _, v := range vals {
				fmt.Fprintf(h, "%d:%s|", len(v.String), v.String)
			}
			h.Write([]byte{'\n'})
			d.Rows++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("digest %s: %w", t.Name, err)
		}
		d.Hash = hex.EncodeToString(h.Sum(nil))
		out = append(out, d)
	}
	return out, nil
}

// CopyFrom copies every row of every table from src (a SQLite bank read in
// one transaction, so one consistent snapshot) into this bank, in one
// transaction under the write lock, with COPY. The bank must be empty;
// on any error nothing is written.
func (s *Store) CopyFrom(ctx context.Context, src Queryer) error {
	conn, err := pgx.ConnectConfig(ctx, s.cfg.Copy())
	if err != nil {
		return fmt.Errorf("copy into %s: %w", s.where, err)
	}
	defer conn.Close(context.Background())
	t, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer t.Rollback(context.Background())
	if _, err := t.Exec(ctx, `SELECT pg_advisory_xact_lock($1), pg_notify($2, '')`, lockKey, Channel); err != nil {
		return err
	}
	for _, tb := range Tables {
		var n int64
		if err := t.QueryRow(ctx, `SELECT count(*) FROM `+tb.Name).Scan(&n); err != nil {
			return err
		}
		if n > 0 && tb.Name != "counters" {
			return fmt.Errorf("copy into %s: the bank is not empty (%s has %d rows); migrate into a new database", s.where, tb.Name, n)
		}
	}
	if _, err := t.Exec(ctx, `DELETE FROM counters`); err != nil {
		return err
	}
	for _, tb := range Tables {
		rows, err := src.QueryContext(ctx, `SELECT `+strings.Join(tb.Cols, ", ")+` FROM `+tb.Name+` ORDER BY `+tb.Key)
		if err != nil {
			return fmt.Errorf("read %s: %w", tb.Name, err)
		}
		n, err := t.CopyFrom(ctx, pgx.Identifier{tb.Name}, tb.Cols, &sqlRows{rows: rows, n: len(tb.Cols)})
		rows.Close()
		if err != nil {
			return fmt.Errorf("copy %s (after %d rows): %w", tb.Name, n, err)
		}
		if tb.Serial != "" {
			if _, err := t.Exec(ctx, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%s', '%s'), coalesce(max(%s), 0) + 1, false) FROM %s`,
				tb.Name, tb.Serial, tb.Serial, tb.Name)); err != nil {
				return err
			}
		}
	}
	return t.Commit(ctx)
}

// sqlRows feeds database/sql rows to pgx's COPY.
type sqlRows struct {
	rows *sql.Rows
	n    int
	vals []any
	err  error
}

func (r *sqlRows) Next() bool {
	if !r.rows.Next() {
		r.err = r.rows.Err()
		return false
	}
	r.vals = make([]any, r.n)
	ptrs := make([]any, r.n)
	for i := range r.vals {
		ptrs[i] = &r.vals[i]
	}
	if r.err = r.rows.Scan(ptrs...); r.err != nil {
		return false
	}
	for i, v := range r.vals {
		if b, ok := v.([]byte); ok {
			r.vals[i] = string(b)
		}
	}
	return true
}

func (r *sqlRows) Values() ([]any, error) { return r.vals, r.err }
func (r *sqlRows) Err() error             { return r.err }

// UnknownTables returns the names in tables that Tables does not cover
// (a source bank newer than this memreview's migrate).
func UnknownTables(tables []string) []string {
	var out []string
	for _, n := range tables {
		if n == "memreview_meta" || strings.HasPrefix(n, "sqlite_") {
			continue
		}
		if !slices.ContainsFunc(Tables, func(t Table) bool { return t.Name == n }) {
			out = append(out, n)
		}
	}
	return out
}
