package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample/testenv"
)

// noRealData skips t because the real data is missing, saying how to get
// it; under MEMREVIEW_CI=1 (which CI sets) it fails instead.
func noRealData(t *testing.T, why any) {
	t.Helper()
	testenv.Missing(t, fmt.Sprintf("real data not present (%v): to run this test put the shared realdata folder at ../shared/realdata beside the repo", why))
}

// copyChinook copies the real Chinook database into dir, or skips.
func copyChinook(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join("..", "..", "..", "shared", "realdata", "sqlite", "Chinook_Sqlite.sqlite")
	in, err := os.Open(src)
	if err != nil {
		noRealData(t, err)
	}
	defer in.Close()
	dst := filepath.Join(dir, "chinook.db")
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// writeMusicDB writes a small Chinook-shaped database (the tables and
// columns the verify test reads) into dir, so the test runs everywhere.
func writeMusicDB(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "chinook.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`
CREATE TABLE Track (TrackId INTEGER PRIMARY KEY, Name TEXT);
CREATE TABLE Customer (CustomerId INTEGER PRIMARY KEY, Country TEXT);
CREATE TABLE Genre (GenreId INTEGER PRIMARY KEY, Name TEXT);
CREATE TABLE Invoice (InvoiceId INTEGER PRIMARY KEY, CustomerId INTEGER);
INSERT INTO Track (Name) VALUES ('a'), ('b'), ('c');
INSERT INTO Customer (Country) VALUES ('Brazil'), ('Brazil'), ('Germany'), ('USA');
INSERT INTO Genre (Name) VALUES ('Rock'), ('Jazz');
INSERT INTO Invoice (CustomerId) VALUES (1), (2), (3);`); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestVerifyFlagsExactlyTheAffectedRecords records checks against a
// Chinook-shaped fixture (and a copy of the real Chinook when present),
// renames a column and changes a row in it, and shows that verify flips
// exactly the checks that depend on them and marks only those records
// suspect.
func TestVerifyFlagsExactlyTheAffectedRecords(t *testing.T) {
	t.Parallel()
	t.Run("fixture", func(t *testing.T) { verifyFlagsAffected(t, writeMusicDB) })
	t.Run("chinook", func(t *testing.T) { verifyFlagsAffected(t, copyChinook) })
}

func verifyFlagsAffected(t *testing.T, makeDB func(*testing.T, string) string) {
	s, err := Create(t.TempDir(), Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := makeDB(t, s.Dir())
	if err := s.SaveConfig(review.Config{Envs: []probe.Env{{Name: "music", Kind: probe.KindSQL, Path: "chinook.db"}}}); err != nil {
		t.Fatal(err)
	}
	env, err := s.ResolveEnv("music")
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]string{
		"mem_tracks":  "SELECT count(*) FROM Track",                               // unaffected by either change
		"mem_brazil":  "SELECT count(*) FROM Customer WHERE Country = 'Brazil'",   // uses the renamed column
		"mem_genre":   "SELECT Name FROM Genre WHERE GenreId = 1",                 // the changed row
		"mem_invoice": "SELECT count(*) FROM Invoice",                             // unaffected
		"mem_country": "SELECT count(DISTINCT Country) FROM Customer WHERE 1 = 1", // uses the renamed column
	}
	var recs []review.Record
	for id, q := range checks {
		res := probe.Run(context.Background(), env, q, probe.Limits{})
		if !res.OK() {
			t.Fatalf("recording %s: %s", id, res.Error)
		}
		recs = append(recs, review.Record{ID: id, Lemma: "a fact about Chinook: " + q, Category: review.Fact, Confidence: 0.9,
			Scope: review.Scope{Env: "music"}, Checks: []review.Check{{Env: "music", Input: q, Expect: res}}})
	}
	if err := s.PutRecords(recs, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	first, err := s.Verify(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range first {
		if r.Verdict != probe.Same {
			t.Fatalf("before any change %s: %s (%s)", r.RecordID, r.Verdict, r.Now.Error)
		}
	}

	w, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`ALTER TABLE Customer RENAME COLUMN Country TO CountryName`,
		`UPDATE Genre SET Name = 'Rock & Roll' WHERE GenreId = 1`,
	} {
		if _, err := w.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()

	results, err := s.Verify(context.Background(), "music")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]probe.Verdict{
		"mem_tracks": probe.EnvChanged, "mem_invoice": probe.EnvChanged,
		"mem_brazil": probe.FailsNow, "mem_country": probe.FailsNow,
		"mem_genre": probe.Changed,
	}
	if len(results) != len(want) {
		t.Fatalf("%d results, want %d", len(results), len(want))
	}
	for _, r := range results {
		if r.Verdict != want[r.RecordID] {
			t.Errorf("%s: %s, want %s (%s)", r.RecordID, r.Verdict, want[r.RecordID], r.Now.Error)
		}
	}
	var suspect []string
	all, err := s.Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if r.Suspect {
			suspect = append(suspect, r.ID)
		}
	}
	sort.Strings(suspect)
	if got := len(suspect); got != 3 || suspect[0] != "mem_brazil" || suspect[1] != "mem_country" || suspect[2] != "mem_genre" {
		t.Fatalf("suspect records = %v, want mem_brazil, mem_country, mem_genre", suspect)
	}
	cfg, _ := s.Config()
	cfg.Envs = append(cfg.Envs, probe.Env{Name: "other-env", Kind: probe.KindFiles, Path: "."})
	if err := s.SaveConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(context.Background(), "other-env"); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Record("mem_brazil"); !r.Suspect {
		t.Fatal("verifying another environment cleared mem_brazil's suspect flag")
	}
}
