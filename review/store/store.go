// Package store keeps a memreview bank in SQLite (BANK/bank.db through
// modernc.org/sqlite, no cgo, WAL mode) with its settings beside it
// (BANK/memreview.toml): records with every change written as a new
// version row, proposals, decisions committed in one transaction with
// everything they change, probe runs, check results, claims, the
// retrieval log and the change sequence the index and watchers follow.
//
// Its SQL is portable: the PostgreSQL store (review/store/pg) runs the same
// queries and decisions on its own connections through OpenSQL, and both
// pass the conformance suite in review/store/storetest. It may import the
// domain (review) and probe, never the formats, the index or anything above.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/memreview/memreview/review"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, no cgo
)

// File names inside a bank directory.
const (
	DBFile     = "bank.db"
	ConfigFile = "memreview.toml"
	IndexDir   = "index"
)

// Store is an open bank: the SQLite system of record plus its config file.
// It is safe for concurrent use; two processes may share one bank, and a
// decision that lost a race gets a *ConflictError.
type Store struct {
	dir      string
	db       *sql.DB
	rd       *reads // the reads outside transactions, through db
	now      func() time.Time
	readOnly bool
	begin    func(context.Context, *sql.Tx) error // nil, or Database.Begin

	// The last memreview.toml read (its bytes) and what it decoded to.
	cfgMu  sync.Mutex
	cfgRaw []byte
	cfg    review.Config
	cfgErr error
}

// ErrReadOnly is returned by every write to a bank opened read-only.
var ErrReadOnly = errors.New("the bank is read-only")

// Create makes a new bank in dir (created if missing). It fails when dir
// already holds a bank.
func Create(dir string, opt Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create bank: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, DBFile)); err == nil {
		return nil, fmt.Errorf("create bank: %s already holds a bank", dir)
	}
	opt.ReadOnly = false
	s, err := open(dir, opt)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); errors.Is(err, os.ErrNotExist) {
		if err := s.SaveConfig(review.Config{}); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Open opens the bank in dir, migrating its schema forward. A dir without
// bank.db, or whose bank.db is empty or not a memreview bank, is an error
// (never a new empty bank). A bank that this process cannot write (the
// file or its folder) is opened read-only, as is any with opt.ReadOnly:
// reads work, and every write fails with ErrReadOnly.
func Open(dir string, opt Options) (*Store, error) {
	path := filepath.Join(dir, DBFile)
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("no bank at %s (run 'memreview init' there, or pass --bank)", dir)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a memreview bank: it is not a regular file", path)
	case fi.Size() == 0:
		return nil, fmt.Errorf("%s is not a memreview bank: the file is empty (0 bytes); restore it from a backup, or move it away and run 'memreview init'", path)
	}
	if !writable(dir) || !writable(path) {
		opt.ReadOnly = true
	}
	if err := checkBank(path); err != nil {
		return nil, err
	}
	return open(dir, opt)
}

// checkBank makes sure an existing bank.db is a memreview bank before
// anything migrates it: a SQLite file with a schema version and memreview's
// tables.
func checkBank(path string) error {
	db, err := sql.Open("sqlite", readOnlyDSN(path))
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	var v, tables int
	err = db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if err == nil {
		err = db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('records', 'proposals', 'decisions', 'changes')`).Scan(&tables)
	}
	if err == nil && (v < 1 || tables != 4) {
		err = errors.New("it is a SQLite database without memreview's schema")
	}
	if err != nil {
		return fmt.Errorf("%s is not a memreview bank: %v", path, err)
	}
	return nil
}

// readOnlyDSN opens path for reading only. A WAL bank with no -wal or -shm
// file has every committed page in bank.db; opened immutable, a reader
// creates nothing beside it.
func readOnlyDSN(path string) string {
	u := url.URL{Scheme: "file", Path: path, OmitHost: true}
	dsn := "file:" + u.EscapedPath() + "?mode=ro&_pragma=busy_timeout(15000)&_pragma=query_only(1)"
	if !exists(path+"-wal") && !exists(path+"-shm") {
		dsn += "&immutable=1"
	}
	return dsn
}

func open(dir string, opt Options) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// The path is escaped: a raw '?', '#' or '%' in the bank's path would
	// end or change the URI and open (or create) a different file.
	path := filepath.Join(abs, DBFile)
	u := url.URL{Scheme: "file", Path: path, OmitHost: true}
	dsn := "file:" + u.EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(15000)&_pragma=foreign_keys(1)&_txlock=immediate"
	if opt.ReadOnly {
		dsn = readOnlyDSN(path)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", filepath.Join(abs, DBFile), err)
	}
	db.SetMaxOpenConns(4)
	s := &Store{dir: abs, db: db, rd: newReads(db, true), now: opt.Now, readOnly: opt.ReadOnly}
	if s.now == nil {
		s.now = func() time.Time { return time.Now().UTC() }
	}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", filepath.Join(abs, DBFile), err)
	}
	return s, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// ReadOnly reports whether the bank was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Dir is the bank directory (absolute).
func (s *Store) Dir() string { return s.dir }

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// Close closes the database.
func (s *Store) Close() error {
	s.rd.close()
	return s.db.Close()
}

// tx runs fn in one immediate (write-locking) transaction. Statements are
// prepared once per transaction, so a batch (an import of 100,000 records)
// does not pay SQLite's prepare for every row.
func (s *Store) tx(ctx context.Context, fn func(querier) error) error {
	if s.readOnly {
		return fmt.Errorf("%w: %s cannot be written by this process (check the permissions of the file and its folder)", ErrReadOnly, filepath.Join(s.dir, DBFile))
	}
	t, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if s.begin != nil {
		if err := s.begin(ctx, t); err != nil {
			t.Rollback()
			return err
		}
	}
	p := &preparedTx{tx: t, stmts: map[string]*sql.Stmt{}}
	err = fn(p)
	p.close()
	if err != nil {
		t.Rollback()
		return err
	}
	if err := t.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

type querier interface {
	QueryRow(query string, args ...any) *sql.Row
	Query(query string, args ...any) (*sql.Rows, error)
	Exec(query string, args ...any) (sql.Result, error)
}

// preparedTx is a transaction that caches its prepared statements.
type preparedTx struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func (p *preparedTx) stmt(query string) *sql.Stmt {
	if st, ok := p.stmts[query]; ok {
		return st
	}
	st, err := p.tx.Prepare(query)
	if err != nil {
		return nil // the unprepared call below reports the error
	}
	p.stmts[query] = st
	return st
}

func (p *preparedTx) QueryRow(query string, args ...any) *sql.Row {
	if st := p.stmt(query); st != nil {
		return st.QueryRow(args...)
	}
	return p.tx.QueryRow(query, args...)
}

func (p *preparedTx) Query(query string, args ...any) (*sql.Rows, error) {
	if st := p.stmt(query); st != nil {
		return st.Query(args...)
	}
	return p.tx.Query(query, args...)
}

func (p *preparedTx) Exec(query string, args ...any) (sql.Result, error) {
	if st := p.stmt(query); st != nil {
		return st.Exec(args...)
	}
	return p.tx.Exec(query, args...)
}

func (p *preparedTx) close() {
	for _, st := range p.stmts {
		st.Close()
	}
}

// EvidenceChange is the kind of change an attached probe run makes (its id
// is the proposal's or record's): the proposal or record itself is
// unchanged, so the index has nothing to do and a watcher does not take it
// for a new proposal.
const EvidenceChange = "evidence"

func addChange(q querier, kind, id string) error {
	_, err := q.Exec(`INSERT INTO changes(kind, id) VALUES(?, ?)`, kind, id)
	return err
}

// nextID returns prefix + the next number of a counter, unique within the bank.
func nextID(q querier, prefix, table string) (string, error) {
	var n int64
	err := q.QueryRow(`INSERT INTO counters(name, n) VALUES(?, 1)
		ON CONFLICT(name) DO UPDATE SET n = counters.n + 1 RETURNING n`, prefix).Scan(&n)
	if err != nil {
		return "", err
	}
	for {
		id := fmt.Sprintf("%s%04d", prefix, n)
		var x int
		err := q.QueryRow(`SELECT 1 FROM `+table+` WHERE id = ?`, id).Scan(&x)
		if errors.Is(err, sql.ErrNoRows) {
			if _, err := q.Exec(`UPDATE counters SET n = ? WHERE name = ?`, n, prefix); err != nil {
				return "", err
			}
			return id, nil
		}
		if err != nil {
			return "", err
		}
		n++
	}
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // our own types always marshal
	}
	return string(b)
}

func unmarshal(s string, v any) error {
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("corrupt row: %w", err)
	}
	return nil
}

func notFound(kind, id string) error {
	return fmt.Errorf("%s %q: %w", kind, id, review.ErrNotFound)
}

// ts is how a time is stored in a column (review.Timestamp).
func ts(t time.Time) string { return review.Timestamp(t) }

// Options tune a Store. Zero values mean: real clock, OS-derived operator.
type Options struct {
	Now      func() time.Time // clock for timestamps (sample generation fixes it)
	ReadOnly bool             // open for reading only (Open); writes fail with ErrReadOnly
}
