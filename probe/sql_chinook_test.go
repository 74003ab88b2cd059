package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// chinookSource is the real Chinook database shared by the project's tests.
var chinookSource = filepath.Join("..", "..", "shared", "realdata", "sqlite", "Chinook_Sqlite.sqlite")

// chinookPresent reports whether the real Chinook database is here.
func chinookPresent() bool {
	_, err := os.Stat(chinookSource)
	return err == nil
}

// copyChinook copies the Chinook database into a fresh temp dir and returns
// the path of the copy; when real data is absent it skips (the fixture
// tests cover the same ground everywhere), or fails under MEMREVIEW_CI=1.
func copyChinook(t *testing.T) string {
	t.Helper()
	src, err := os.Open(chinookSource)
	if err != nil {
		needRealData(t, "real Chinook database", chinookSource, err)
	}
	defer src.Close()
	dst := filepath.Join(t.TempDir(), "chinook.sqlite")
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, src); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// TestSQLMatchesFixture runs the correctness cases on the fixture, whose
// answers come from its formulas in Go.
func TestSQLMatchesFixture(t *testing.T) {
	t.Parallel()
	checkSQLCases(t, Env{Name: "fixture", Kind: KindSQL, Path: writeMusicDB(t)}, fixtureCases())
}

// TestSQLMatchesSQLiteCLI is the extra check on real data: answers the
// sqlite3 command-line tool gave on the real Chinook database.
func TestSQLMatchesSQLiteCLI(t *testing.T) {
	t.Parallel()
	checkSQLCases(t, Env{Name: "chinook", Kind: KindSQL, Path: copyChinook(t)}, chinookCases)
}

// checkSQLCases runs each case on env and compares columns, rows and the
// result's metadata exactly.
func checkSQLCases(t *testing.T, env Env, cases []sqlCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Run(context.Background(), env, c.query, Limits{})
			if r.Error != "" {
				t.Fatalf("%s: %s", c.query, r.Error)
			}
			if !reflect.DeepEqual(r.Columns, c.cols) {
				t.Errorf("columns = %q, want %q", r.Columns, c.cols)
			}
			if !reflect.DeepEqual(r.Rows, c.rows) {
				t.Errorf("rows =\n%#v\nwant\n%#v", r.Rows, c.rows)
			}
			if r.Truncated || r.Env != env.Name || r.Kind != KindSQL || r.Input != c.query || r.Fingerprint == "" {
				t.Errorf("bad metadata: %+v", r)
			}
		})
	}
}

func TestSQLEmptyResultKeepsColumns(t *testing.T) {
	t.Parallel()
	env := Env{Name: "fixture", Kind: KindSQL, Path: writeMusicDB(t)}
	r := Run(context.Background(), env, "SELECT * FROM Album WHERE AlbumId < 0", Limits{})
	if r.Error != "" || len(r.Rows) != 0 {
		t.Fatalf("got %+v", r)
	}
	if want := []string{"AlbumId", "Title", "ArtistId"}; !reflect.DeepEqual(r.Columns, want) {
		t.Errorf("columns = %q, want %q", r.Columns, want)
	}
}

func TestSQLBlobsAndTrailingSemicolon(t *testing.T) {
	t.Parallel()
	env := Env{Name: "fixture", Kind: KindSQL, Path: writeMusicDB(t)}
	r := Run(context.Background(), env, "SELECT x'CAFE' AS small, zeroblob(100) AS big; -- done\n;", Limits{})
	want := [][]any{{"x'CAFE'", "<blob 100 bytes>"}}
	if r.Error != "" || !reflect.DeepEqual(r.Rows, want) {
		t.Fatalf("rows = %#v, error %q; want %#v", r.Rows, r.Error, want)
	}
}

func TestSplitStatement(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in     string
		single bool
	}{
		{"SELECT 1", true},
		{"SELECT 1;", true},
		{"SELECT ';' AS a; -- trailing; comment", true},
		{`SELECT "a;b" FROM [x;y] WHERE c = 'it''s;'`, true},
		{"SELECT 1 /* ; */", true},
		{"CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; SELECT 2; END;", true},
		{"CREATE TEMP TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END", true},
		{"SELECT 1; SELECT 2", false},
		{"SELECT 1;/* x */ DELETE FROM a", false},
		{"SELECT 'a'';'; x", false},
		{"PRAGMA query_only=0; INSERT INTO a VALUES (1)", false},
	}
	for _, c := range cases {
		_, rest := splitStatement(c.in)
		if got := onlyTrivia(rest); got != c.single {
			t.Errorf("splitStatement(%q): single = %v, want %v (rest %q)", c.in, got, c.single, rest)
		}
	}
}
