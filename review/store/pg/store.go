// Package pg keeps a memreview bank in PostgreSQL, shared by a team:
// several operators' TUIs, serve processes and curators on different
// machines, one queue. It runs review's own queries, decisions and
// validation (store.OpenSQL) on pgx connections, so it behaves as the
// SQLite store does — same ids, same *ConflictError, same errors — and
// passes the same conformance suite (review/store/storetest).
//
// Every write transaction first takes the bank's advisory write lock, so
// writers commit one at a time: a decision checks its target versions
// under that lock (two operators cannot both win), and the change sequence
// (a table in the database) grows in commit order, so a follower reading
// ChangesSince never skips a change. Each write also queues a NOTIFY on
// channel memreview_changes, which Watch turns into a wake-up in every
// other process within milliseconds of the commit.
package pg

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/memreview/memreview/review/store"
)

// Channel is the LISTEN/NOTIFY channel every commit notifies.
const Channel = "memreview_changes"

// Options tune a Store.
type Options struct {
	store.Options
	// ConfigDir holds the operator's memreview.toml (environments are paths
	// on the operator's machine, so a shared database holds none). Empty:
	// $XDG_CONFIG_HOME/memreview (~/.config/memreview).
	ConfigDir string
}

// Store is an open PostgreSQL bank. It is safe for concurrent use.
type Store struct {
	*store.Store
	db     *sql.DB
	cfg    *pgx.ConnConfig
	bankID string
	where  string
}

// IsURL reports whether a --bank value names a PostgreSQL bank.
func IsURL(bank string) bool {
	return strings.HasPrefix(bank, "postgres://") || strings.HasPrefix(bank, "postgresql://")
}

// Open connects to the bank at url (postgres://USER@HOST/DB, or any form
// pgx accepts), migrating its schema forward; a new, empty database
// becomes an empty bank.
func Open(ctx context.Context, url string, opt Options) (*Store, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open PostgreSQL bank: %w", err)
	}
	if opt.ConfigDir == "" {
		if opt.ConfigDir, err = DefaultConfigDir(); err != nil {
			return nil, err
		}
	}
	// The operator's config folder exists, so the first 'env add' (CLI or
	// TUI) can write memreview.toml there.
	if err := os.MkdirAll(opt.ConfigDir, 0o755); err != nil {
		return nil, fmt.Errorf("open PostgreSQL bank: the config folder for memreview.toml: %w", err)
	}
	c := newConnector(cfg)
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(5 * time.Minute)
	id, err := migrate(ctx, db)
	if err != nil {
		db.Close()
		var ue *unreachableError
		if errors.As(err, &ue) {
			return nil, fmt.Errorf("cannot reach the PostgreSQL bank (%s); check that the server is up and the URL is right: %w", c.where, ue.err)
		}
		return nil, fmt.Errorf("open PostgreSQL bank (%s): %w", c.where, err)
	}
	s := &Store{db: db, cfg: cfg, bankID: id, where: c.where}
	s.Store = store.OpenSQL(store.Database{DB: db, Begin: beginWrite, ConfigDir: opt.ConfigDir}, opt.Options)
	return s, nil
}

// beginWrite starts every write transaction: the bank's write lock, then
// the NOTIFY that PostgreSQL sends when (and only if) the transaction
// commits.
func beginWrite(ctx context.Context, t *sql.Tx) error {
	if _, err := t.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?), pg_notify(?, '')`, lockKey, Channel); err != nil {
		return fmt.Errorf("take the bank's write lock: %w", err)
	}
	return nil
}

// BankID names this bank across machines (stored in the database); each
// process keeps its local index under $XDG_CACHE_HOME/memreview/<bank id>/.
func (s *Store) BankID() string { return s.bankID }

// Where says which server and database the store is on, for messages.
func (s *Store) Where() string { return s.where }

// DB is the store's connection pool (migrate and tests read it directly).
func (s *Store) DB() *sql.DB { return s.db }

// DefaultConfigDir is $XDG_CONFIG_HOME/memreview, else ~/.config/memreview.
func DefaultConfigDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the operator's config folder for memreview.toml: %w", err)
	}
	return filepath.Join(d, "memreview"), nil
}

// IndexDir is where this process keeps the bank's Bleve index:
// $XDG_CACHE_HOME/memreview/<bank id>/ (else ~/.cache/memreview/…).
func (s *Store) IndexDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the cache folder for the local index: %w", err)
	}
	return filepath.Join(d, "memreview", s.bankID), nil
}
