package probe

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// folderState is every file of dir with its contents' hash (hash false:
// its size and modification time).
func folderState(tb testing.TB, dir string, hash bool) []string {
	tb.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !hash {
			info, err := d.Info()
			if err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("%s %d %v", p, info.Size(), info.ModTime()))
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %x", p, sha256.Sum256(b)))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// FuzzSQLProbe: whatever a SQLite probe is asked — writes, DDL, ATTACH,
// VACUUM INTO, pragmas, functions with effects, several statements —
// the database's folder and the working folder hold the same files with
// the same bytes afterwards: a probe never writes.
func FuzzSQLProbe(f *testing.F) {
	db := writeMusicDB(f)
	wd, err := os.Getwd()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"SELECT COUNT(*) FROM Track", "DELETE FROM Artist", "INSERT INTO Artist VALUES (999, 'x')", "UPDATE Track SET Name = 'x'",
		"CREATE TABLE z (a)", "DROP TABLE Genre", "ATTACH 'attached.db' AS x", "ATTACH ':memory:' AS m; CREATE TABLE m.t(a)",
		"VACUUM INTO 'copy.db'", "VACUUM", "PRAGMA journal_mode=DELETE", "PRAGMA user_version = 7", "REINDEX",
		"SELECT 1; DELETE FROM Artist", "WITH x AS (SELECT 1) DELETE FROM Album", "CREATE TEMP TABLE t AS SELECT * FROM Track",
		"ANALYZE", "BEGIN; DELETE FROM Artist; COMMIT", "SELECT load_extension('x')", "REPLACE INTO Genre VALUES (1, 'x')",
	} {
		f.Add(s)
	}
	env := Env{Name: "music", Kind: KindSQL, Path: db}
	before, beforeWD := folderState(f, filepath.Dir(db), true), folderState(f, wd, false)
	f.Fuzz(func(t *testing.T, input string) {
		Run(context.Background(), env, input, Limits{Timeout: time.Second, MaxRows: 20, MaxBytes: 32 << 10})
		if after := folderState(t, filepath.Dir(db), true); !slices.Equal(after, before) {
			t.Fatalf("%q changed the database's folder:\nbefore %q\nafter  %q", input, before, after)
		}
		if after := folderState(t, wd, false); !slices.Equal(after, beforeWD) {
			t.Fatalf("%q changed the working folder", input)
		}
	})
}
