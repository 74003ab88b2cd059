package store

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

func cachedBank(tb testing.TB, n int) (*Store, []review.Record) {
	tb.Helper()
	s, err := Create(filepath.Join(tb.TempDir(), "bank"), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	recs := make([]review.Record, n)
	for i := range recs {
		recs[i] = review.Record{ID: fmt.Sprintf("mem_%05d", i), Lemma: fmt.Sprintf("table t%d joins u%d on id", i, i%17),
			Category: review.Relation, Scope: review.Scope{Env: "shop"}, Confidence: 0.8}
	}
	if err := s.PutRecords(recs, "test", "import"); err != nil {
		tb.Fatal(err)
	}
	return s, recs
}

// TestReadsCache: a read repeated goes through one prepared statement and
// gives what the unprepared read gives; queries of varying shape (IN
// lists) stop being cached at the bound and still answer; a bad query is
// an error, not a cached statement; Close closes what was cached.
func TestReadsCache(t *testing.T) {
	t.Parallel()
	s, recs := cachedBank(t, 300)
	plain := newReads(s.db, false)
	before := len(s.rd.stmts) // what opening the bank read
	for _, r := range recs[:50] {
		a, errA := getRecord(s.rd, r.ID)
		b, errB := getRecord(plain, r.ID)
		if errA != nil || errB != nil || a.Lemma != b.Lemma || a.Version != b.Version {
			t.Fatalf("%s: cached %+v %v, plain %+v %v", r.ID, a, errA, b, errB)
		}
	}
	if n := len(s.rd.stmts) - before; n != 1 {
		t.Fatalf("%d statements cached for one query repeated, want 1", n)
	}
	for i := 1; i <= maxCachedStmts+20; i++ {
		q := `SELECT count(*) FROM records WHERE id IN (` + strings.TrimSuffix(strings.Repeat("?,", i), ",") + `)`
		args := make([]any, i)
		for j := range args {
			args[j] = recs[j%len(recs)].ID
		}
		var n int
		if err := s.rd.QueryRow(q, args...).Scan(&n); err != nil || n != min(i, len(recs)) {
			t.Fatalf("IN list of %d: %d, %v", i, n, err)
		}
	}
	if n := len(s.rd.stmts); n != maxCachedStmts {
		t.Fatalf("%d statements cached, want the bound %d", n, maxCachedStmts)
	}
	s.rd.close()
	var x int
	if err := s.rd.QueryRow(`SELECT nonsense FROM nowhere`).Scan(&x); err == nil || !strings.Contains(err.Error(), "no such table") {
		t.Fatalf("a bad query: %v", err)
	}
	if len(s.rd.stmts) != 0 {
		t.Fatalf("a bad query was cached: %d", len(s.rd.stmts))
	}
	if _, err := getRecord(s.rd, recs[0].ID); err != nil {
		t.Fatalf("a read after the cache was closed: %v", err)
	}
}

// BenchmarkReads: the reads a screen and a retrieval make (a record, a
// proposal's targets, a record's check results) through the statement
// cache and, in the same process on the same bank, unprepared (the peer).
//
//	go test ./review/store/ -run '^$' -bench Reads -count 3
func BenchmarkReads(b *testing.B) {
	s, recs := cachedBank(b, 2000)
	for _, mode := range []struct {
		name  string
		cache bool
	}{{"cached", true}, {"unprepared", false}} {
		b.Run(mode.name, func(b *testing.B) {
			s.rd = newReads(s.db, mode.cache)
			defer s.rd.close()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				id := recs[i%len(recs)].ID
				if _, err := s.Record(id); err != nil {
					b.Fatal(err)
				}
				if _, err := s.CheckResults(id); err != nil {
					b.Fatal(err)
				}
				if _, err := s.RecordVersion(id, 1); err != nil {
					b.Fatal(fmt.Errorf("version: %w", err))
				}
			}
		})
	}
}

// BenchmarkStandings: the standing of 100 candidates (a hybrid
// retrieval's pool), read without decoding the records, against reading
// the records in full (the peer, as hybrid retrieval did), in the same
// process on the same bank (records of the sample world's size, a check
// with its expected rows each).
//
//	go test ./review/store/ -run '^$' -bench Standings -count 2
func BenchmarkStandings(b *testing.B) {
	s, err := Create(filepath.Join(b.TempDir(), "bank"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	recs := make([]review.Record, 2000)
	ids := make([]string, len(recs))
	for i := range recs {
		rows := make([][]any, 5)
		for j := range rows {
			rows[j] = []any{fmt.Sprintf("item_%d", j), float64(j * i)}
		}
		recs[i] = review.Record{ID: fmt.Sprintf("mem_%05d", i), Lemma: strings.Repeat(fmt.Sprintf("table t%d joins u%d on id; ", i, i%17), 4),
			Trigger: "a task joins the tables", Steps: []string{"read the schema", "join on id", "count"},
			Category: review.Relation, Scope: review.Scope{Env: "shop", Tags: []string{"g1", "join"}}, Confidence: 0.8, Priority: i % 3,
			Checks: []review.Check{{Env: "shop", Input: "SELECT name, n FROM t", Expect: probe.Result{Env: "shop", Kind: probe.KindSQL, Columns: []string{"name", "n"}, Rows: rows}}}}
		ids[i] = recs[i].ID
	}
	if err := s.PutRecords(recs, "test", "import"); err != nil {
		b.Fatal(err)
	}
	b.Run("standings", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			lo := (i * 100) % (len(ids) - 100)
			if got, err := s.RecordStandings(ids[lo : lo+100]); err != nil || len(got) != 100 {
				b.Fatal(len(got), err)
			}
		}
	})
	b.Run("records", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			lo := (i * 100) % (len(ids) - 100)
			if got, err := s.RecordsByID(ids[lo : lo+100]); err != nil || len(got) != 100 {
				b.Fatal(len(got), err)
			}
		}
	})
}

// TestInListsPadded: RecordsByID and RecordStandings give every record
// asked for, and only those, whatever the count (a repeated id included),
// through a handful of statements: one per power of two, not one per
// count.
func TestInListsPadded(t *testing.T) {
	t.Parallel()
	s, recs := cachedBank(t, 300)
	before := len(s.rd.stmts)
	for n := 1; n <= 300; n++ {
		ids := make([]string, 0, n+1)
		for i := range n {
			ids = append(ids, recs[(i*7)%len(recs)].ID)
		}
		ids = append(ids, "mem_absent")
		got, err := s.RecordsByID(ids)
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.RecordStandings(ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids[:n] {
			if got[id] == nil || got[id].ID != id {
				t.Fatalf("%d ids: %s read as %+v", n, id, got[id])
			}
			if want := review.StandingOf(got[id]); st[id] != want {
				t.Fatalf("%d ids: %s standing %+v, the record says %+v", n, id, st[id], want)
			}
		}
		if len(got) != n || len(st) != n {
			t.Fatalf("%d ids (and one absent): %d records, %d standings", n, len(got), len(st))
		}
	}
	// 2 to 301 ids: lists of 8, 16, …, 512, two queries each.
	if k := len(s.rd.stmts) - before; k != 2*7 {
		t.Fatalf("%d statements for IN lists of 2 to 301 ids, want 14", k)
	}
}
