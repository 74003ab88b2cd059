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
