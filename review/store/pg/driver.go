package pg

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// connector hands database/sql pgx connections that take review's portable
// '?' placeholders (rewritten to PostgreSQL's $1, $2, …) and that turn a
// lost server into an error an operator can act on.
type connector struct {
	driver.Connector
	where string // host and database, for messages
}

func newConnector(cfg *pgx.ConnConfig) *connector {
	host := cfg.Host
	if strings.HasPrefix(host, "/") {
		host = "socket " + host
	}
	return &connector{Connector: stdlib.GetConnector(*cfg), where: fmt.Sprintf("%s, database %s", host, cfg.Database)}
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, c.explain(err)
	}
	return &conn{Conn: dc.(*stdlib.Conn), c: c}, nil
}

// conn is a stdlib connection with placeholder rewriting; every other
// capability (pinging, session reset, value checking) is promoted.
type conn struct {
	*stdlib.Conn
	c *connector
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext prepares nothing on the server: review prepares each
// statement once per transaction, which on PostgreSQL would cost a round
// trip to prepare and another to deallocate. pgx already caches prepared
// statements per connection, so a statement here is just its query.
func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return &stmt{c: c, query: rebind(query)}, nil
}

// stmt is a query run through the connection's statement cache.
type stmt struct {
	c     *conn
	query string
}

func (s *stmt) Close() error  { return nil }
func (s *stmt) NumInput() int { return -1 }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return nil, errors.New("pgstore: Exec without context is not supported")
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return nil, errors.New("pgstore: Query without context is not supported")
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	r, err := s.c.Conn.ExecContext(ctx, s.query, args)
	return r, s.c.c.explain(err)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	r, err := s.c.Conn.QueryContext(ctx, s.query, args)
	return r, s.c.c.explain(err)
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.Conn.ExecContext(ctx, rebind(query), args)
	return r, c.c.explain(err)
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.Conn.QueryContext(ctx, rebind(query), args)
	return r, c.c.explain(err)
}

func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	t, err := c.Conn.BeginTx(ctx, opts)
	if err != nil {
		return nil, c.c.explain(err)
	}
	return &tx{Tx: t, c: c.c}, nil
}

type tx struct {
	driver.Tx
	c *connector
}

func (t *tx) Commit() error {
	err := t.Tx.Commit()
	if err != nil && lost(err) {
		return fmt.Errorf("the connection to the PostgreSQL bank (%s) broke while committing, so this change may or may not be saved: reload to see (%w)", t.c.where, err)
	}
	return err
}

// ErrUnreachable is wrapped by errors that mean the server could not be
// reached or went away; the transaction they ended was rolled back.
var ErrUnreachable = errors.New("PostgreSQL bank unreachable")

// explain wraps an error that means the server is gone in a sentence that
// says so; the original stays wrapped (database/sql still sees ErrBadConn).
func (c *connector) explain(err error) error {
	if err == nil || !lost(err) {
		return err
	}
	return &unreachableError{where: c.where, err: err}
}

// unreachableError is a lost server, in words an operator can act on.
type unreachableError struct {
	where string
	err   error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("%v (%s): nothing in this step was saved; memreview reconnects when the server is back: %v", ErrUnreachable, e.where, e.err)
}

func (e *unreachableError) Unwrap() []error { return []error{ErrUnreachable, e.err} }

// lost reports whether err means the connection or the server is gone.
func lost(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the caller gave up; the server may be fine
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &ne) || errors.As(err, &oe) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// admin_shutdown, crash_shutdown, cannot_connect_now, connection_exception class
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || strings.HasPrefix(pe.Code, "08")
	}
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || pgconn.SafeToRetry(err)
}

var rebound sync.Map // query → rewritten query

// rebind rewrites '?' placeholders outside quoted text to $1, $2, ….
func rebind(query string) string {
	if q, ok := rebound.Load(query); ok {
		return q.(string)
	}
	var b strings.Builder
	n := 0
	var quote byte
	for i := 0; i < len(query); i++ {
		ch := query[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(ch)
	}
	out := b.String()
	rebound.Store(query, out)
	return out
}
