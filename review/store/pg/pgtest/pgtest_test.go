package pgtest

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// A fresh database takes a write and reads it back; two are separate.
func TestNewDB(t *testing.T) {
	ctx := context.Background()
	a, b := NewDB(t), NewDB(t)
	if a == b {
		t.Fatalf("two databases share one URL %s", a)
	}
	ca, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	if _, err := ca.Exec(ctx, `CREATE TABLE x(n int); INSERT INTO x VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := ca.QueryRow(ctx, `SELECT n FROM x`).Scan(&n); err != nil || n != 42 {
		t.Fatalf("read back %d, %v; want 42", n, err)
	}
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	if _, err := cb.Exec(ctx, `SELECT n FROM x`); err == nil {
		t.Fatal("table x of one database is visible in the other")
	}
}

// Without PostgreSQL a test skips, saying how to run it.
func TestMissingSkips(t *testing.T) {
	t.Setenv("MEMREVIEW_REQUIRE_PG", "")
	t.Setenv("MEMREVIEW_CI", "")
	var sub *testing.T
	t.Run("without PostgreSQL", func(t *testing.T) {
		sub = t
		unavailable(t, errors.New(Missing))
		t.Error("unavailable returned")
	})
	if !sub.Skipped() {
		t.Fatal("a missing PostgreSQL did not skip the test")
	}
}

// A read-only role reads a table made before it and one made after, and
// may not write either.
func TestReadOnlyRole(t *testing.T) {
	ctx := context.Background()
	srv := Shared(t)
	db, err := srv.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := srv.Admin(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, `CREATE TABLE before(n int); INSERT INTO before VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	url, err := srv.ReadOnlyRole(ctx, db, "ro_"+db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, `CREATE TABLE after(n int); INSERT INTO after VALUES (2)`); err != nil {
		t.Fatal(err)
	}
	ro, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close(ctx)
	var n int
	if err := ro.QueryRow(ctx, `SELECT (SELECT n FROM before) + (SELECT n FROM after)`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("the role reads %d, %v; want 3", n, err)
	}
	if _, err := ro.Exec(ctx, `INSERT INTO before VALUES (9)`); err == nil {
		t.Fatal("the read-only role wrote a row")
	}
}
