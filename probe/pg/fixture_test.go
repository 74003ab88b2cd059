package pg

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/memreview/memreview/probe/mcpenv/mcptest"
	"github.com/memreview/memreview/review/store/pg/pgtest"
	"github.com/memreview/memreview/sample/testenv"
)

func TestMain(m *testing.M) {
	testenv.LessGC()
	mcptest.MaybeServe() // the benchmarks' MCP server is this binary
	os.Exit(pgtest.Main(m))
}

// fixture is one test database: a few tables (every column type the
// probe maps), a view, a sequence, the dblink extension, and a role that
// may read them, use the sequence (so nextval would work if it were sent)
// and nothing more.
type fixture struct {
	srv  *pgtest.Server
	db   string
	role string
}

func (f fixture) roURL() string { return f.srv.URL(f.role, f.db) }

func (f fixture) admin(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := f.srv.Admin(ctx, f.db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	srv := pgtest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := srv.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{srv: srv, db: db, role: "ro_" + db}
	c := f.admin(t)
	for _, q := range []string{
		"CREATE EXTENSION dblink",
		`CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, price numeric(8,2), added date, data bytea, f float8, ok bool)`,
		`INSERT INTO items VALUES (1, 'apple', 1.50, '2024-01-02', '\x0102', 0.5, true),
			(2, 'pear', 2.25, '2024-02-03', NULL, NULL, false), (3, 'fig', NULL, NULL, NULL, 'Infinity', NULL)`,
		`CREATE TABLE quirky ("update" int, "into" text)`,
		`INSERT INTO quirky VALUES (7, 'a')`,
		"CREATE SEQUENCE item_seq",
		"SELECT nextval('item_seq')",
		"CREATE VIEW cheap AS SELECT id, name FROM items WHERE price < 2",
		fmt.Sprintf("CREATE ROLE %s LOGIN", f.role),
		fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", db, f.role),
		fmt.Sprintf("GRANT USAGE ON SCHEMA public TO %s", f.role),
		fmt.Sprintf("GRANT SELECT ON ALL TABLES IN SCHEMA public TO %s", f.role),
		fmt.Sprintf("GRANT USAGE, SELECT, UPDATE ON SEQUENCE item_seq TO %s", f.role),
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return f
}

// dbState is everything a probe must leave as it was: every table's and
// view's rows (hashed), every sequence's state, the large objects, the
// schema, the advisory locks held, and the next transaction id.
func dbState(t *testing.T, c *pgx.Conn) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	rows, err := c.Query(ctx, `SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables
		WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, tbl := range tables {
		var h string
		if err := c.QueryRow(ctx, "SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) FROM "+tbl+" t").Scan(&h); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "table %s %s\n", tbl, h)
	}
	for _, q := range []string{
		"SELECT coalesce(string_agg(sequencename || '=' || coalesce(last_value::text, 'null'), ',' ORDER BY sequencename), '') FROM pg_sequences",
		"SELECT count(*)::text FROM pg_largeobject_metadata",
		"SELECT md5(string_agg(relname || ':' || relkind::text, ',' ORDER BY relname)) FROM pg_class WHERE relnamespace = 'public'::regnamespace",
		"SELECT count(*)::text FROM pg_locks WHERE locktype = 'advisory'",
		"SELECT pg_snapshot_xmax(pg_current_snapshot())::text",
	} {
		var v string
		if err := c.QueryRow(ctx, q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		fmt.Fprintf(&b, "%s\n", v)
	}
	return b.String()
}

func inf() float64 { return math.Inf(1) }

func newHash() hash.Hash { return sha256.New() }

// Fixture is newFixture for the package's external tests (the Runner's):
// the read-only role's URL and the superuser's, for a fresh database.
func Fixture(t testing.TB) (roURL, adminURL string, admin *pgx.Conn) {
	f := newFixture(t)
	return f.roURL(), f.srv.URL("postgres", f.db), f.admin(t)
}
