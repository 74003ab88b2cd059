package pg

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memreview/memreview/probe"
)

// Target is where a postgres environment points: a URL without a password
// (postgres://role@host:port/db?sslmode=…) and, optionally, the name of
// the environment variable holding the password. Without one the password
// comes from ~/.pgpass (or PGPASSFILE, or PGPASSWORD), as libpq finds it.
type Target struct {
	URL         string
	PasswordEnv string
}

// maxConns is the size of each environment's pool: probes are one at a
// time per caller, and two lets a re-run and a fingerprint overlap.
const maxConns = 2

// Pool is a small pool of probe connections to one database. Every new
// connection is checked (role, settings) before it is used.
type Pool struct {
	pool     *pgxpool.Pool
	where    string // `database "db" on host "h"`, for errors
	password string // for redaction
}

// Open makes the pool for t; it connects lazily, on the first probe. Use
// Check to connect now.
func Open(t Target) (*Pool, error) {
	where, err := probe.CheckPostgresURL(t.URL)
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(t.URL)
	if err != nil {
		return nil, fmt.Errorf("the URL for %s is not a valid connection URL", where)
	}
	p := &Pool{where: where}
	if t.PasswordEnv != "" {
		v, ok := os.LookupEnv(t.PasswordEnv)
		if !ok {
			return nil, fmt.Errorf("the environment variable %s, which should hold the password for %s, is not set", t.PasswordEnv, where)
		}
		cfg.ConnConfig.Password = v
	}
	p.password = cfg.ConnConfig.Password
	cfg.MaxConns = maxConns
	cfg.MinConns = 0
	cfg.MaxConnIdleTime = time.Minute
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	rp := cfg.ConnConfig.RuntimeParams
	rp["default_transaction_read_only"] = "on"
	rp["standard_conforming_strings"] = "on"
	rp["application_name"] = "memreview-probe"
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error { return p.checkConn(ctx, c.PgConn()) }
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot set up connections to %s: %s", where, p.redact(err.Error()))
	}
	p.pool = pool
	return p, nil
}

// Where names the database and host, for messages.
func (p *Pool) Where() string { return p.where }

// Close closes every connection.
func (p *Pool) Close() { p.pool.Close() }

// Check connects (or reuses a connection), which runs the role check, and
// says why the environment cannot be probed, or nil.
func (p *Pool) Check(ctx context.Context) error {
	c, err := p.pool.Acquire(ctx)
	if err != nil {
		return p.connectError(err)
	}
	defer c.Release()
	_, err = c.Conn().PgConn().Exec(ctx, "SELECT 1").ReadAll()
	if err != nil {
		c.Conn().PgConn().Close(context.Background())
		return p.queryError(err)
	}
	return nil
}

// roleQuery reads what checkConn refuses: a superuser, or a member of a
// role that reads or writes the server's files or runs programs on it.
const roleQuery = `SELECT r.rolsuper,
  pg_has_role(current_user, 'pg_read_server_files', 'MEMBER'),
  pg_has_role(current_user, 'pg_write_server_files', 'MEMBER'),
  pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER'),
  current_setting('standard_conforming_strings')
FROM pg_roles r WHERE r.rolname = current_user`

// checkConn is run on every new connection before it joins the pool.
func (p *Pool) checkConn(ctx context.Context, c *pgconn.PgConn) error {
	res, err := c.Exec(ctx, roleQuery).ReadAll()
	if err != nil {
		return p.queryError(err)
	}
	if len(res) != 1 || len(res[0].Rows) != 1 || len(res[0].Rows[0]) != 5 {
		return fmt.Errorf("cannot read the probe role's privileges on %s", p.where)
	}
	row := res[0].Rows[0]
	var held []string
	for i, name := range []string{"", "pg_read_server_files", "pg_write_server_files", "pg_execute_server_program"} {
		if string(row[i]) != "t" {
			continue
		}
		if i == 0 {
			return p.roleRefusal("is a superuser")
		}
		held = append(held, name)
	}
	if len(held) > 0 {
		return p.roleRefusal("is a member of " + strings.Join(held, ", ") + ", so it can reach the server's files or programs")
	}
	if string(row[4]) != "on" {
		return fmt.Errorf("refused: %s runs with standard_conforming_strings off; probes need it on", p.where)
	}
	return nil
}

// roleRefusal is the refusal of a role with too much power, with what to
// run instead.
func (p *Pool) roleRefusal(what string) error {
	return &RoleError{msg: fmt.Sprintf("refused: the role in the URL for %s %s; memreview probes only as a role that can read and do nothing more. "+
		"As an administrator run: CREATE ROLE memreview_probe LOGIN PASSWORD '…'; GRANT CONNECT ON DATABASE <database> TO memreview_probe; "+
		"GRANT USAGE ON SCHEMA public TO memreview_probe; GRANT SELECT ON ALL TABLES IN SCHEMA public TO memreview_probe; "+
		"then point the environment at postgres://memreview_probe@<host>/<database> with password_env or ~/.pgpass", p.where, what)}
}

// RoleError is the refusal of a role that may do more than read.
type RoleError struct{ msg string }

func (e *RoleError) Error() string { return e.msg }

// connectError describes a failure to connect, naming the host and
// database only: never the password, nor the user.
func (p *Pool) connectError(err error) error {
	var re *RoleError
	if errors.As(err, &re) {
		return re
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Errorf("cannot connect to %s: %s", p.where, p.redact(pe.Message))
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("cannot connect to %s: no answer in time", p.where)
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return fmt.Errorf("cannot connect to %s: %s", p.where, p.redact(oe.Err.Error()))
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return fmt.Errorf("cannot connect to %s: %s", p.where, p.redact(lastPart(ce.Unwrap().Error())))
	}
	return fmt.Errorf("cannot connect to %s: %s", p.where, p.redact(lastPart(err.Error())))
}

// lastPart keeps what follows the last ": " of a chained error, which
// is the cause, without pgconn's "user=… database=…" preamble.
func lastPart(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// redact removes the password from a message, whatever produced it.
func (p *Pool) redact(s string) string {
	if p.password != "" {
		s = strings.ReplaceAll(s, p.password, "***")
	}
	return s
}
