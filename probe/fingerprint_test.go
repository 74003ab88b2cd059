package probe

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeSQL changes a database with an ordinary writable connection, as
// the environment's owner would.
func writeSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestFingerprintAndCompare(t *testing.T) {
	t.Parallel()
	path := writeMusicDB(t)
	env := Env{Name: "music", Kind: KindSQL, Path: path}
	ctx := context.Background()
	usesColumn := "SELECT Title FROM Album WHERE AlbumId = 1"
	other := "SELECT Name FROM Artist WHERE ArtistId = 1"
	row := "SELECT Name FROM Genre WHERE GenreId = 1"

	fp1, err := Fingerprint(ctx, env)
	if err != nil || len(fp1) != fingerprintLen {
		t.Fatalf("Fingerprint = %q, %v", fp1, err)
	}
	if fp, _ := Fingerprint(ctx, env); fp != fp1 {
		t.Fatalf("fingerprint not stable: %s then %s", fp1, fp)
	}
	rec := map[string]Result{}
	for _, q := range []string{usesColumn, other, row} {
		rec[q] = Run(ctx, env, q, Limits{})
		if !rec[q].OK() || rec[q].Fingerprint != fp1 {
			t.Fatalf("%s: %+v", q, rec[q])
		}
		if v := Compare(rec[q], Run(ctx, env, q, Limits{})); v != Same {
			t.Errorf("%s unchanged: verdict %s, want %s", q, v, Same)
		}
	}

	writeSQL(t, path, "UPDATE Genre SET Name = 'Rock and Roll' WHERE GenreId = 1")
	if v := Compare(rec[row], Run(ctx, env, row, Limits{})); v != Changed {
		t.Errorf("changed row: verdict %s, want %s", v, Changed)
	}
	if fp, _ := Fingerprint(ctx, env); fp != fp1 {
		t.Errorf("a data change moved the schema fingerprint: %s then %s", fp1, fp)
	}

	writeSQL(t, path, "ALTER TABLE Album RENAME COLUMN Title TO Name")
	fp2, err := Fingerprint(ctx, env)
	if err != nil || fp2 == fp1 {
		t.Fatalf("fingerprint after a column rename = %q (%v), was %q", fp2, err, fp1)
	}
	now := Run(ctx, env, usesColumn, Limits{})
	if v := Compare(rec[usesColumn], now); v != FailsNow || !strings.Contains(now.Error, "no such column") {
		t.Errorf("renamed column: verdict %s, error %q; want %s with 'no such column'", v, now.Error, FailsNow)
	}
	if v := Compare(rec[other], Run(ctx, env, other, Limits{})); v != EnvChanged {
		t.Errorf("query not using the column: verdict %s, want %s", v, EnvChanged)
	}
}

func TestFingerprintFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := Env{Name: "docs", Kind: KindFiles, Path: dir}
	ctx := context.Background()
	fp1, err := Fingerprint(ctx, env)
	if err != nil || fp1 == "" {
		t.Fatalf("Fingerprint = %q, %v", fp1, err)
	}
	rec := Run(ctx, env, "read a.txt", Limits{})
	if v := Compare(rec, Run(ctx, env, "read a.txt", Limits{})); v != Same {
		t.Errorf("unchanged: %s", v)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fp2, _ := Fingerprint(ctx, env)
	if fp2 == fp1 {
		t.Errorf("adding a file did not change the fingerprint %s", fp1)
	}
	if v := Compare(rec, Run(ctx, env, "read a.txt", Limits{})); v != EnvChanged {
		t.Errorf("new file beside: %s, want %s", v, EnvChanged)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("bye\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := Compare(rec, Run(ctx, env, "read a.txt", Limits{})); v != Changed {
		t.Errorf("edited file: %s, want %s", v, Changed)
	}
	if err := os.Remove(filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	if v := Compare(rec, Run(ctx, env, "read a.txt", Limits{})); v != FailsNow {
		t.Errorf("deleted file: %s, want %s", v, FailsNow)
	}
}

// TestSQLWALDatabaseLeavesNoFiles checks that probing a WAL-mode database
// does not leave -wal or -shm files beside it.
func TestSQLWALDatabaseLeavesNoFiles(t *testing.T) {
	t.Parallel()
	path := writeMusicDB(t)
	writeSQL(t, path, "PRAGMA journal_mode = wal")
	before := dirNames(t, filepath.Dir(path))
	if len(before) != 1 {
		t.Fatalf("setup left files: %q", before)
	}
	r := Run(context.Background(), Env{Name: "w", Kind: KindSQL, Path: path}, "SELECT count(*) FROM Genre", Limits{})
	if r.Error != "" || !reflect.DeepEqual(r.Rows, [][]any{{int64(25)}}) {
		t.Fatalf("got %+v", r)
	}
	if after := dirNames(t, filepath.Dir(path)); !reflect.DeepEqual(after, before) {
		t.Errorf("folder changed: %q before, %q after", before, after)
	}
}

func TestSQLMissingDatabaseIsNotCreated(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "missing.sqlite")
	r := Run(context.Background(), Env{Name: "m", Kind: KindSQL, Path: path}, "SELECT 1", Limits{})
	if !strings.Contains(r.Error, "cannot open the database") {
		t.Errorf("error = %q, want 'cannot open the database'", r.Error)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("probe created %s", path)
	}
}

func TestSQLPathWithURICharacters(t *testing.T) {
	t.Parallel()
	src := writeMusicDB(t)
	dir := filepath.Join(t.TempDir(), "a b?c#d%e&mode=rw")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "x.sqlite")
	if err := os.Rename(src, path); err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), Env{Name: "odd", Kind: KindSQL, Path: path}, "SELECT count(*) FROM Artist", Limits{})
	if r.Error != "" || !reflect.DeepEqual(r.Rows, [][]any{{int64(275)}}) {
		t.Errorf("got %+v", r)
	}
	if r := Run(context.Background(), Env{Name: "odd", Kind: KindSQL, Path: path}, "DELETE FROM Artist", Limits{}); !strings.HasPrefix(r.Error, "refused") {
		t.Errorf("write through an odd path: %q", r.Error)
	}
}
