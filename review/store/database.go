package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"time"
)

// Database is a SQL database, other than a bank directory's SQLite file,
// that holds a bank, with the hook the store runs in it: the shared
// PostgreSQL store (review/store/pg) runs this package's queries, decisions
// and validation on its own connections through OpenSQL, so both stores
// share one implementation of every rule. (A Database is what a Store is
// opened on; the Store is the bank's system of record.) The queries are
// portable SQL with '?' placeholders; the database's driver must accept
// them.
type Database struct {
	// DB holds the bank's tables at the current schema (the caller migrates).
	DB *sql.DB
	// Begin runs first in every write transaction: PostgreSQL takes the
	// bank's write lock there, so writers commit one at a time, in the
	// order of the change sequence, and queues its NOTIFY.
	Begin func(ctx context.Context, tx *sql.Tx) error
	// ConfigDir is the folder holding memreview.toml (the environments);
	// relative environment paths resolve against it.
	ConfigDir string
}

// OpenSQL returns a Store over b. Closing it closes b.DB.
func OpenSQL(b Database, opt Options) *Store {
	s := &Store{dir: filepath.Clean(b.ConfigDir), db: b.DB, rd: newReads(b.DB, false), now: opt.Now, begin: b.Begin}
	if s.now == nil {
		s.now = func() time.Time { return time.Now().UTC() }
	}
	return s
}
