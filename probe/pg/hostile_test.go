package pg

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var testLimits = Limits{Timeout: 400 * time.Millisecond, MaxRows: 100, MaxBytes: 1 << 20}

// probeOn classifies and runs input as a probe does.
func probeOn(ctx context.Context, p *Pool, input string, lim Limits) (Output, error) {
	st, err := Classify(input)
	if err != nil {
		return Output{}, err
	}
	return p.Query(ctx, st, lim)
}

func openPool(t *testing.T, url string) *Pool {
	t.Helper()
	p, err := Open(Target{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// TestHostileStatements throws writes, DDL, COPY TO PROGRAM, locking,
// sequences, advisory locks, set_config, notifications, large objects,
// signals to another session, two statements in one, huge results and a
// sleep past the time limit at a real server, as a role that could run
// several of them if they were sent. Each is refused or bounded, the
// database is unchanged afterwards (every table, sequence, large object,
// the schema, the advisory locks and the next transaction id), and
// another session of the same role, listening for notifications, was not
// disturbed.
func TestHostileStatements(t *testing.T) {
	// Not parallel: dbState reads the server's next transaction id and its
	// advisory locks, which the other tests' fixtures and sessions change;
	// they run once this one is done.
	f := newFixture(t)
	ctx := context.Background()
	admin := f.admin(t)
	victim, err := pgx.Connect(ctx, f.roURL())
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close(ctx)
	if _, err := victim.Exec(ctx, "LISTEN memreview"); err != nil {
		t.Fatal(err)
	}
	pid := victim.PgConn().PID()
	before := dbState(t, admin)
	p := openPool(t, f.roURL())

	refused := []struct{ in, want string }{
		{"INSERT INTO items VALUES (9, 'x', 1, NULL, NULL, NULL, NULL)", "INSERT"},
		{"UPDATE items SET name = 'x'", "UPDATE"},
		{"DELETE FROM items", "DELETE"},
		{"MERGE INTO items USING quirky q ON items.id = q.\"update\" WHEN MATCHED THEN DELETE", "MERGE"},
		{"TRUNCATE items", "TRUNCATE"},
		{"DROP TABLE items", "DROP"},
		{"CREATE TABLE x (a int)", "CREATE"},
		{"CREATE TEMP TABLE x AS SELECT 1", "CREATE"},
		{"ALTER TABLE items ADD COLUMN z int", "ALTER"},
		{"COPY items TO PROGRAM 'touch /tmp/memreview-pwned'", "COPY"},
		{"COPY items FROM '/etc/passwd'", "COPY"},
		{"SELECT * FROM items FOR UPDATE", "UPDATE"},
		{"SELECT * FROM items FOR NO KEY UPDATE", "locking"},
		{"SELECT * FROM items FOR SHARE", "locking"},
		{"SELECT * FROM items FOR KEY SHARE", "locking"},
		{"SELECT nextval('item_seq')", "nextval"},
		{"SELECT setval('item_seq', 1000)", "setval"},
		{"SELECT pg_advisory_lock(42)", "advisory"},
		{"SELECT pg_catalog.pg_advisory_lock(42)", "advisory"},
		{`SELECT "pg_advisory_lock"(42)`, "advisory"},
		{"SELECT PG_ADVISORY_XACT_LOCK(42)", "advisory"},
		{"SELECT pg_try_advisory_lock(42)", "advisory"},
		{"SELECT pg_catalog./**/pg_advisory_lock(42)", "advisory"},
		{`SELECT U&"pg\005fadvisory\005flock"(42)`, "advisory"},
		{`SELECT U&"pg!005fadvisory!005flock" UESCAPE '!' (42)`, "advisory"},
		{"SELECT set_config('search_path', 'evil', false)", "set_config"},
		{"SELECT pg_catalog.set_config('default_transaction_read_only', 'off', false)", "set_config"},
		{"SELECT pg_notify('memreview', 'hi')", "pg_notify"},
		{"NOTIFY memreview", "NOTIFY"},
		{"LISTEN memreview", "LISTEN"},
		{"SELECT lo_creat(-1)", "large object"},
		{"SELECT lo_import('/etc/passwd')", "large object"},
		{"SELECT txid_current()", "transaction id"},
		{"SELECT pg_current_xact_id()", "transaction id"},
		{fmt.Sprintf("SELECT pg_terminate_backend(%d)", pid), "terminates"},
		{fmt.Sprintf("SELECT pg_cancel_backend(%d)", pid), "cancels"},
		{"SELECT 1; SELECT pg_advisory_lock(1)", "one statement"},
		{"SELECT 1; DROP TABLE items", "one statement"},
		{"SET statement_timeout = 0", "SET"},
		{"SET ROLE postgres", "SET"},
		{"BEGIN", "BEGIN"},
		{"DO $$ BEGIN PERFORM pg_advisory_lock(1); END $$", "DO"},
		{"PREPARE s AS SELECT 1", "PREPARE"},
		{"ANALYZE items", "ANALYZE"},
		{"EXPLAIN ANALYZE SELECT * FROM items", "ANALYZE"},
		{"EXPLAIN (ANALYZE) DELETE FROM items", "ANALYZE"},
		{"WITH d AS (DELETE FROM items RETURNING *) SELECT * FROM d", "DELETE"},
		{"SELECT * INTO newtab FROM items", "INTO"},
		{"LOCK TABLE items IN ACCESS EXCLUSIVE MODE", "LOCK"},
		{"VACUUM items", "VACUUM"},
		{"SELECT query_to_xml('select pg_advisory_lock(1)', true, true, '')", "SQL"},
		{"SELECT $q$ select nextval('item_seq') $q$", "string"},
		{"SELECT dblink_exec('dbname=" + f.db + "', 'DELETE FROM items')", "dblink"},
		{"SELECT pg_read_file('/etc/passwd')", "files"},
		{"SELECT E'\\'; SELECT pg_advisory_lock(1); --'", "string"},
		{"/* x /* nested */ */ DELETE FROM items", "DELETE"},
	}
	for _, c := range refused {
		_, err := probeOn(ctx, p, c.in, testLimits)
		if err == nil || !strings.HasPrefix(err.Error(), "refused") || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.want)) {
			t.Errorf("%s: got %v, want a refusal naming %q", c.in, err, c.want)
		}
	}

	// Bounded by the server: the time limit, the row cap, the output cap.
	start := time.Now()
	_, err = probeOn(ctx, p, "SELECT pg_sleep(30)", testLimits)
	if !errors.Is(err, ErrTimeout) || time.Since(start) > 10*time.Second {
		t.Errorf("pg_sleep(30): %v after %s, want the time limit", err, time.Since(start))
	}
	// The row cap, not the time limit, must stop this one: a time limit of
	// its own that a loaded machine cannot reach (400 ms was, at load 20).
	rowCap := Limits{Timeout: 10 * time.Second, MaxRows: testLimits.MaxRows, MaxBytes: testLimits.MaxBytes}
	out, err := probeOn(ctx, p, "SELECT generate_series(1, 100000000)", rowCap)
	if err != nil || len(out.Rows) != testLimits.MaxRows || !out.Truncated || out.Rows[99][0] != int64(100) {
		t.Errorf("generate_series: %d rows, truncated %v, err %v; want %d rows, truncated", len(out.Rows), out.Truncated, err, testLimits.MaxRows)
	}
	_, err = probeOn(ctx, p, "SELECT repeat('x', 50000000)", Limits{Timeout: 5 * time.Second, MaxRows: 10, MaxBytes: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "output cap") {
		t.Errorf("a 50 MB row: %v, want the output cap", err)
	}
	out, err = probeOn(ctx, p, "SELECT repeat('x', 1000) FROM generate_series(1, 90)", Limits{Timeout: 10 * time.Second, MaxRows: 100, MaxBytes: 20000})
	if err != nil || !out.Truncated || len(out.Rows) >= 20 {
		t.Errorf("many mid-sized rows: %d rows, truncated %v, err %v; want the byte cap to stop them", len(out.Rows), out.Truncated, err)
	}

	// The pool still works after all of it.
	out, err = probeOn(ctx, p, "SELECT count(*) FROM items", testLimits)
	if err != nil || !reflect.DeepEqual(out.Rows, [][]any{{int64(3)}}) {
		t.Errorf("count after the hostile run: %v %v", out.Rows, err)
	}

	if after := dbState(t, admin); after != before {
		t.Errorf("the database changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// After the comparison (its write takes a transaction id): a long probe holds no lock another session waits on: a write in
	// another session (rolled back) goes through while it sleeps.
	done := make(chan error, 1)
	go func() {
		_, err := probeOn(ctx, p, "SELECT pg_sleep(0.3), count(*) FROM items", Limits{Timeout: 2 * time.Second, MaxRows: 10, MaxBytes: 1 << 20})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '100ms'"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "UPDATE items SET name = name || '!' WHERE id = 1"); err != nil {
		t.Errorf("a write in another session waited on the probe: %v", err)
	}
	tx.Rollback(ctx)
	if err := <-done; err != nil {
		t.Errorf("the sleeping probe: %v", err)
	}

	// The other session is alive, is the same backend, and heard nothing.
	var one int
	if err := victim.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || victim.PgConn().PID() != pid {
		t.Errorf("the other session was disturbed: %v", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if n, err := victim.WaitForNotification(wctx); err == nil {
		t.Errorf("the other session got a notification: %+v", n)
	}
}

// TestReadOnlyIsNotEnough shows why the deny-list exists: inside BEGIN
// READ ONLY, as the same SELECT-only role, PostgreSQL runs each of these,
// and several leave effects a rollback does not undo. (nextval and
// setval it refuses itself, but they stay on the deny-list.)
func TestReadOnlyIsNotEnough(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, f.roURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range []string{
		"SELECT pg_advisory_lock(42)::text",
		"SELECT set_config('search_path', 'evil', false)",
		"SELECT lo_creat(-1)::text",
		"SELECT txid_current()::text",
		"SELECT pg_notify('memreview', 'x')::text",
	} {
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "SET TRANSACTION READ ONLY"); err != nil {
			t.Fatal(err)
		}
		var s string
		if err := tx.QueryRow(ctx, q).Scan(&s); err != nil {
			t.Errorf("%s inside BEGIN READ ONLY: %v (the deny-list assumes the server runs it)", q, err)
		}
		tx.Rollback(ctx)
		if _, err := Classify(q); err == nil {
			t.Errorf("Classify allowed %s", q)
		}
	}
	var locks int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()").Scan(&locks); err != nil || locks != 1 {
		t.Errorf("advisory locks held after the rollback: %d (%v); want 1, which is why pg_advisory_lock is refused", locks, err)
	}
}

// TestValues: what a probe returns for each column type, and the row
// order of the statement.
func TestValues(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := openPool(t, f.roURL())
	ctx := context.Background()
	out, err := probeOn(ctx, p, "SELECT id, name, price, added, data, f, ok FROM items ORDER BY id", testLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := Output{
		Columns: []string{"id", "name", "price", "added", "data", "f", "ok"},
		Rows: [][]any{
			{int64(1), "apple", "1.50", "2024-01-02", "x'0102'", 0.5, "true"},
			{int64(2), "pear", "2.25", "2024-02-03", nil, nil, "false"},
			{int64(3), "fig", nil, nil, nil, inf(), nil},
		},
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("got %#v\nwant %#v", out, want)
	}
	for _, c := range []struct {
		in   string
		want [][]any
	}{
		{`SELECT "update", "into" FROM quirky`, [][]any{{int64(7), "a"}}},
		{"TABLE cheap", [][]any{{int64(1), "apple"}}},
		{"VALUES (1, 'a'), (2, 'b')", [][]any{{int64(1), "a"}, {int64(2), "b"}}},
		{"WITH x AS (SELECT 2 AS n) SELECT n * 21 FROM x", [][]any{{int64(42)}}},
		{"SHOW standard_conforming_strings", [][]any{{"on"}}},
		{"SHOW transaction_read_only", [][]any{{"on"}}},
	} {
		out, err := probeOn(ctx, p, c.in, testLimits)
		if err != nil || !reflect.DeepEqual(out.Rows, c.want) {
			t.Errorf("%s: %v (%v), want %v", c.in, out.Rows, err, c.want)
		}
	}
	out, err = probeOn(ctx, p, "EXPLAIN SELECT * FROM items WHERE id = 1", testLimits)
	if err != nil || len(out.Columns) != 1 || out.Columns[0] != "QUERY PLAN" || len(out.Rows) == 0 {
		t.Errorf("EXPLAIN: %v %v", out, err)
	}
	if _, err := probeOn(ctx, p, "SELECT * FROM missing_table", testLimits); err == nil || !strings.Contains(err.Error(), `"missing_table" does not exist`) {
		t.Errorf("a missing table: %v", err)
	}
}

// TestRoleRefused: a superuser, and a role holding pg_read_server_files,
// pg_write_server_files or pg_execute_server_program, are refused when a
// connection is made, with the CREATE ROLE … GRANT advice; and a role
// made superuser later is refused on the next new connection.
func TestRoleRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	admin := f.admin(t)
	p := openPool(t, f.srv.URL("postgres", f.db))
	err := p.Check(ctx)
	var re *RoleError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "superuser") ||
		!strings.Contains(err.Error(), "CREATE ROLE memreview_probe") || !strings.Contains(err.Error(), "GRANT SELECT ON ALL TABLES") {
		t.Errorf("superuser: %v", err)
	}
	if _, err := probeOn(ctx, p, "SELECT 1", testLimits); !errors.As(err, &re) {
		t.Errorf("a probe as the superuser: %v, want the role refusal", err)
	}
	for _, grp := range []string{"pg_read_server_files", "pg_write_server_files", "pg_execute_server_program"} {
		role := f.role + "_" + strings.TrimPrefix(grp, "pg_")
		for _, q := range []string{"CREATE ROLE " + role + " LOGIN", "GRANT " + grp + " TO " + role} {
			if _, err := admin.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		p := openPool(t, f.srv.URL(role, f.db))
		if err := p.Check(ctx); !errors.As(err, &re) || !strings.Contains(err.Error(), grp) {
			t.Errorf("%s: %v", grp, err)
		}
	}
	ro := openPool(t, f.roURL())
	if err := ro.Check(ctx); err != nil {
		t.Fatalf("the read-only role: %v", err)
	}
	if _, err := admin.Exec(ctx, "ALTER ROLE "+f.role+" SUPERUSER"); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(ctx, "ALTER ROLE "+f.role+" NOSUPERUSER")
	ro.pool.Reset() // the next probe needs a new connection
	if _, err := probeOn(ctx, ro, "SELECT 1", testLimits); !errors.As(err, &re) {
		t.Errorf("a role made superuser, on a new connection: %v", err)
	}
}

// TestSecrets: a URL with a password is refused without repeating it; a
// connection failure names the host and database, never the password
// from password_env, nor the role.
func TestSecrets(t *testing.T) {
	if _, err := Open(Target{URL: "postgres://ro:hunter2@db.example/shop"}); err == nil ||
		strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), `database "shop" on host "db.example"`) {
		t.Errorf("password in the URL: %v", err)
	}
	if _, err := Open(Target{URL: "postgres://ro@db.example/shop?password=hunter2"}); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("password in the query: %v", err)
	}
	if _, err := Open(Target{URL: "postgres://ro@db.example/shop", PasswordEnv: "MEMREVIEW_TEST_NO_SUCH_VAR"}); err == nil ||
		!strings.Contains(err.Error(), "MEMREVIEW_TEST_NO_SUCH_VAR") {
		t.Errorf("an unset password_env: %v", err)
	}
	t.Setenv("MEMREVIEW_TEST_PGPASS", "s3cret-value")
	p, err := Open(Target{URL: "postgres://secretrole@/nodb?host=/nonexistent-socket-dir&connect_timeout=2", PasswordEnv: "MEMREVIEW_TEST_PGPASS"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	err = p.Check(context.Background())
	if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "secretrole") ||
		!strings.Contains(err.Error(), `database "nodb" on host "/nonexistent-socket-dir"`) {
		t.Errorf("connection failure: %v", err)
	}
}

// TestSchemaHash: the fingerprint changes with a column's type and a new
// table, not with rows.
func TestSchemaHash(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := openPool(t, f.roURL())
	admin := f.admin(t)
	ctx := context.Background()
	hash := func() string {
		h := newHash()
		if err := p.SchemaHash(ctx, h); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x", h.Sum(nil))
	}
	h0 := hash()
	if _, err := admin.Exec(ctx, "INSERT INTO quirky VALUES (8, 'b')"); err != nil {
		t.Fatal(err)
	}
	if h1 := hash(); h1 != h0 {
		t.Errorf("a new row changed the schema hash")
	}
	if _, err := admin.Exec(ctx, "ALTER TABLE quirky ALTER COLUMN \"into\" TYPE varchar(10)"); err != nil {
		t.Fatal(err)
	}
	h2 := hash()
	if h2 == h0 {
		t.Errorf("a column's new type left the schema hash unchanged")
	}
	if _, err := admin.Exec(ctx, "CREATE TABLE extra (a int); GRANT SELECT ON extra TO "+f.role); err != nil {
		t.Fatal(err)
	}
	if hash() == h2 {
		t.Errorf("a new table left the schema hash unchanged")
	}
}
