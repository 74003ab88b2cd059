package cli

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"path/filepath"
	"text/tabwriter"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/pg"
)

// migrateCommand copies a SQLite bank into a PostgreSQL database whole.
func migrateCommand() *command {
	return &command{name: "migrate", args: "--from DIR --to postgres://USER@HOST/DB",
		help: "Copy a SQLite bank whole into an empty PostgreSQL bank — records with every version, proposals,\n" +
			"decisions, probe runs, trajectories, retrievals — in one transaction, then check row counts and a\n" +
			"content hash of every table on both sides. The environments go to your own memreview.toml.",
		flags: func(fs *flag.FlagSet) {
			fs.String("from", "", "the SQLite bank directory")
			fs.String("to", "", "the PostgreSQL bank URL (an empty database)")
		},
		run: cmdMigrate}
}

func cmdMigrate(a *cmdline, fs *flag.FlagSet) error {
	from, to := flagString(fs, "from"), flagString(fs, "to")
	if from == "" || !pg.IsURL(to) {
		return usagef("migrate: need --from DIR and --to postgres://USER@HOST/DB")
	}
	// Opening migrates the source's schema forward, so both sides agree.
	src, err := store.Open(from, store.Options{})
	if err != nil {
		return err
	}
	cfg, err := src.Config()
	dir := src.Dir()
	src.Close()
	if err != nil {
		return err
	}
	u := url.URL{Scheme: "file", Path: filepath.Join(dir, store.DBFile), OmitHost: true}
	raw, err := sql.Open("sqlite", "file:"+u.EscapedPath()+"?mode=ro&_pragma=busy_timeout(15000)")
	if err != nil {
		return err
	}
	defer raw.Close()
	ctx := a.ctx
	snap, err := raw.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // one snapshot for copy and check
	if err != nil {
		return err
	}
	defer snap.Rollback()
	if err := knownTables(ctx, snap); err != nil {
		return err
	}
	dst, err := pg.Open(ctx, to, pg.Options{})
	if err != nil {
		return err
	}
	defer dst.Close()
	if err := dst.CopyFrom(ctx, snap); err != nil {
		return fmt.Errorf("migrate: %w (nothing was written)", err)
	}
	if err := checkCopy(ctx, a, snap, dst); err != nil {
		return err
	}
	return migrateEnvs(a, cfg, dir, dst)
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

// checkCopy compares row counts and content hashes of every table.
func checkCopy(ctx context.Context, a *cmdline, snap *sql.Tx, dst *pg.Store) error {
	want, err := pg.Digests(ctx, snap)
	if err != nil {
		return err
	}
	got, err := pg.Digests(ctx, dst.DB())
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "table\tsqlite rows\tpostgres rows\tsha-256 (both)\n")
	bad := 0
	for i, w := range want {
		g := got[i]
		mark := w.Hash[:16]
		if w.Rows != g.Rows || w.Hash != g.Hash {
			mark = fmt.Sprintf("DIFFERENT %s ≠ %s", w.Hash[:16], g.Hash[:16])
			bad++
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", w.Table, w.Rows, g.Rows, mark)
	}
	tw.Flush()
	if bad > 0 {
		return fmt.Errorf("migrate: %d tables differ after the copy; do not use the PostgreSQL bank", bad)
	}
	fmt.Fprintf(a.stdout, "copied into bank %s (%s); every table matches\n", dst.BankID(), dst.Where())
	return nil
}

// migrateEnvs writes the source's environments, with absolute paths, into
// the operator's own memreview.toml when it declares none yet.
func migrateEnvs(a *cmdline, cfg review.Config, dir string, dst *pg.Store) error {
	if len(cfg.Envs) == 0 {
		return nil
	}
	mine, err := dst.Config()
	if err != nil {
		return err
	}
	path := filepath.Join(dst.Dir(), store.ConfigFile)
	if len(mine.Envs) > 0 {
		fmt.Fprintf(a.stdout, "%s already declares environments; add the bank's %d by hand ('memreview env add')\n", path, len(cfg.Envs))
		return nil
	}
	for i, e := range cfg.Envs {
		if !filepath.IsAbs(e.Path) {
			cfg.Envs[i].Path = filepath.Join(dir, e.Path)
		}
	}
	mine.Envs = cfg.Envs
	if mine.Curator == (review.CuratorConfig{}) {
		mine.Curator = cfg.Curator
	}
	if err := dst.SaveConfig(mine); err != nil {
		return errors.Join(errors.New("migrate: the bank was copied, but saving your environments failed"), err)
	}
	fmt.Fprintf(a.stdout, "wrote %d environments to %s\n", len(cfg.Envs), path)
	return nil
}
