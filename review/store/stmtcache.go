package store

import (
	"database/sql"
	"sync"
)

// maxCachedStmts bounds the read statement cache: queries built with a
// variable number of placeholders (IN lists) would otherwise grow it
// without end; past the bound a query runs unprepared, as before.
const maxCachedStmts = 256

// reads runs the store's reads outside transactions. On a bank's SQLite
// file it keeps each query's prepared statement (database/sql prepares it
// again on each pooled connection as needed), so a read does not pay
// SQLite's parse and plan each time: that was a tenth of the TUI's CPU
// when it shows a proposal's context (BENCHMARKS.md "The store's reads").
// Over another Database (PostgreSQL, whose driver caches statements per
// connection itself) it passes every call through.
type reads struct {
	db    *sql.DB
	cache bool
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func newReads(db *sql.DB, cache bool) *reads {
	return &reads{db: db, cache: cache, stmts: map[string]*sql.Stmt{}}
}

func (r *reads) stmt(query string) *sql.Stmt {
	if !r.cache {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if st, ok := r.stmts[query]; ok {
		return st
	}
	if len(r.stmts) >= maxCachedStmts {
		return nil
	}
	st, err := r.db.Prepare(query)
	if err != nil {
		return nil // the unprepared call reports the error
	}
	r.stmts[query] = st
	return st
}

func (r *reads) QueryRow(query string, args ...any) *sql.Row {
	if st := r.stmt(query); st != nil {
		return st.QueryRow(args...)
	}
	return r.db.QueryRow(query, args...)
}

func (r *reads) Query(query string, args ...any) (*sql.Rows, error) {
	if st := r.stmt(query); st != nil {
		return st.Query(args...)
	}
	return r.db.Query(query, args...)
}

// Exec is never cached: the store's writes run in transactions.
func (r *reads) Exec(query string, args ...any) (sql.Result, error) {
	return r.db.Exec(query, args...)
}

// close closes the cached statements (before the database).
func (r *reads) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for q, st := range r.stmts {
		st.Close()
		delete(r.stmts, q)
	}
}
