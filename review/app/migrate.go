package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/pg"
)

// TableCheck compares one table on both sides of a migration.
type TableCheck struct {
	Table              string
	SQLiteRows, PGRows int64
	SQLiteHash, PGHash string
}

// Same reports whether both sides hold the same rows.
func (c TableCheck) Same() bool { return c.SQLiteRows == c.PGRows && c.SQLiteHash == c.PGHash }

// Migration is what Migrate did.
type Migration struct {
	BankID, Where string
	Tables        []TableCheck
	// Envs is how many environments were written to the operator's
	// memreview.toml (ConfigFile); EnvsLeft how many were left for the
	// operator to add by hand because it declared some already.
	Envs, EnvsLeft int
	ConfigFile     string
}

// Migrate copies the folder bank in from, whole, into the empty
// PostgreSQL bank at to — records with every version, proposals,
// decisions, probe runs, trajectories, retrievals — in one transaction,
// then compares row counts and a content hash of every table on both
// sides; the bank's environments go to the operator's own memreview.toml
// when it declares none. A table that differs after the copy is an error:
// the PostgreSQL bank must not be used.
func Migrate(ctx context.Context, from, to string) (*Migration, error) {
	if !IsTeamBank(to) {
		return nil, fmt.Errorf("migrate: %q is not a postgres:// URL", to)
	}
	// Opening migrates the source's schema forward, so both sides agree.
	src, err := store.Open(from, store.Options{})
	if err != nil {
		return nil, err
	}
	cfg, err := src.Config()
	dir := src.Dir()
	src.Close()
	if err != nil {
		return nil, err
	}
	u := url.URL{Scheme: "file", Path: filepath.Join(dir, store.DBFile), OmitHost: true}
	raw, err := sql.Open("sqlite", "file:"+u.EscapedPath()+"?mode=ro&_pragma=busy_timeout(15000)")
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	snap, err := raw.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // one snapshot for copy and check
	if err != nil {
		return nil, err
	}
	defer snap.Rollback()
	if err := knownTables(ctx, snap); err != nil {
		return nil, err
	}
	dst, err := pg.Open(ctx, to, pg.Options{})
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	if err := dst.CopyFrom(ctx, snap); err != nil {
		return nil, fmt.Errorf("migrate: %w (nothing was written)", err)
	}
	m := &Migration{BankID: dst.BankID(), Where: dst.Where(), ConfigFile: filepath.Join(dst.Dir(), store.ConfigFile)}
	want, err := pg.Digests(ctx, snap)
	if err != nil {
		return nil, err
	}
	got, err := pg.Digests(ctx, dst.DB())
	if err != nil {
		return nil, err
	}
	bad := 0
	for i, w := range want {
		c := TableCheck{Table: w.Table, SQLiteRows: int64(w.Rows), PGRows: int64(got[i].Rows), SQLiteHash: w.Hash, PGHash: got[i].Hash}
		if !c.Same() {
			bad++
		}
		m.Tables = append(m.Tables, c)
	}
	if bad > 0 {
		return m, fmt.Errorf("migrate: %d tables differ after the copy; do not use the PostgreSQL bank", bad)
	}
	return m, migrateEnvs(m, cfg, dir, dst)
}

func knownTables(ctx context.Context, q *sql.Tx) error {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	rows.Close()
	if unknown := pg.UnknownTables(names); len(unknown) > 0 {
		return fmt.Errorf("migrate: the bank has tables this memreview cannot copy (%v); upgrade memreview", unknown)
	}
	return nil
}

// migrateEnvs writes the source's environments, with absolute paths, into
// the operator's own memreview.toml when it declares none yet.
func migrateEnvs(m *Migration, cfg review.Config, dir string, dst *pg.Store) error {
	if len(cfg.Envs) == 0 {
		return nil
	}
	mine, err := dst.Config()
	if err != nil {
		return err
	}
	if len(mine.Envs) > 0 {
		m.EnvsLeft = len(cfg.Envs)
		return nil
	}
	for i, e := range cfg.Envs {
		cfg.Envs[i] = review.ResolvePaths(e, dir)
	}
	mine.Envs = cfg.Envs
	if mine.Curator == (review.CuratorConfig{}) {
		mine.Curator = cfg.Curator
	}
	if err := dst.SaveConfig(mine); err != nil {
		return errors.Join(errors.New("migrate: the bank was copied, but saving your environments failed"), err)
	}
	m.Envs = len(cfg.Envs)
	return nil
}
