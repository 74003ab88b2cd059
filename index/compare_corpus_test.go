package index

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

// The corpora of the side-by-side benchmarks: synthetic banks (sample.Synth)
// built once per size and seed under os.TempDir(), reused by later runs and
// processes (delete memreview-bench-* there to rebuild), each with its
// Bleve index, an FTS5 table over the same records, and the records in
// memory for the plain scan.

// benchSeed is the seed of every benchmark corpus.
const benchSeed = 1

// benchCorpus is one size's corpus.
type benchCorpus struct {
	n    int
	dir  string // the bank
	recs []review.Record
	scan []scanDoc
	fts  *sql.DB

	mu sync.Mutex // guards st and ix, which the open benchmark closes
	st *store.Store
	ix *Index
}

var (
	corporaMu sync.Mutex
	corpora   = map[int]*benchCorpus{}
)

// corpusDir is where the corpus of n records lives.
func corpusDir(n int) string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("memreview-bench-%d-seed%d", n, benchSeed))
}

// corpus returns the corpus of n records, building what is missing: the
// bank and its index on disk (minutes at 100,000 records on two cores),
// then the FTS5 table and the scan documents.
func corpus(b *testing.B, n int) *benchCorpus {
	b.Helper()
	corporaMu.Lock()
	defer corporaMu.Unlock()
	if c := corpora[n]; c != nil {
		return c
	}
	dir := corpusDir(n)
	if err := ensureBank(b, dir, n); err != nil {
		b.Fatalf("corpus of %d records: %v", n, err)
	}
	c := &benchCorpus{n: n, dir: dir}
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if c.recs, err = st.Records(review.RecordFilter{}); err != nil {
		b.Fatal(err)
	}
	st.Close()
	c.scan = scanDocs(c.recs)
	if c.fts, err = openFTS(filepath.Join(dir, "fts5.db"), c.recs); err != nil {
		b.Fatalf("fts5 corpus of %d records: %v", n, err)
	}
	corpora[n] = c
	return c
}

// ensureBank synthesises the bank of n records into dir and builds its
// index, unless a complete one is there already (testenv.BuildOnce).
func ensureBank(b *testing.B, dir string, n int) error {
	_, err := testenv.BuildOnce(dir, func(tmp string) error {
		start := time.Now()
		if err := sample.Synth(tmp, sample.SynthOptions{Records: n, Trajectories: n / 100, Seed: benchSeed}); err != nil {
			return err
		}
		synth := time.Since(start)
		st, err := store.Open(tmp, store.Options{})
		if err != nil {
			return err
		}
		start = time.Now()
		ix, err := Open(filepath.Join(tmp, store.IndexDir), st)
		if err != nil {
			st.Close()
			return err
		}
		took := time.Since(start)
		b.Logf("corpus %d: synthesised in %v, indexed in %v (%.0f records/s)", n, synth.Round(time.Millisecond), took.Round(time.Millisecond), float64(n)/took.Seconds())
		return errors.Join(ix.Close(), st.Close())
	})
	return err
}

// index returns the corpus's open bank index, opening it if the open
// benchmark closed it.
func (c *benchCorpus) index(b *testing.B) *Index {
	b.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix == nil {
		st, err := store.Open(c.dir, store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ix, err := Open(filepath.Join(c.dir, store.IndexDir), st)
		if err != nil {
			st.Close()
			b.Fatal(err)
		}
		c.st, c.ix = st, ix
	}
	return c.ix
}

// release closes the corpus's bank and index, so another opener can take
// the index's lock.
func (c *benchCorpus) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix != nil {
		c.ix.Close()
		c.st.Close()
		c.ix, c.st = nil, nil
	}
}

// ftsSchema is the FTS5 peer of the Bleve mapping: the text fields and the
// keyword fields a query filters on are indexed (Porter-stemmed, like
// Bleve's English analyzer); the rest ride along unindexed.
const ftsSchema = `CREATE VIRTUAL TABLE IF NOT EXISTS recs USING fts5(
	id UNINDEXED, lemma, trigger, steps, tags, category, env, status UNINDEXED, confidence UNINDEXED,
	tokenize = 'porter unicode61')`

// openFTS opens the FTS5 database at path, filling it with recs when it is
// new.
func openFTS(path string, recs []review.Record) (*sql.DB, error) {
	_, statErr := os.Stat(path)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if statErr == nil {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM recs`).Scan(&n); err == nil && n == len(recs) {
			return db, nil
		}
		db.Exec(`DROP TABLE IF EXISTS recs`)
	}
	if err := fillFTS(db, recs); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// fillFTS creates the FTS5 table and inserts recs, 5,000 to a transaction.
func fillFTS(db *sql.DB, recs []review.Record) error {
	if _, err := db.Exec(ftsSchema); err != nil {
		return fmt.Errorf("create fts5 table: %w", err)
	}
	for len(recs) > 0 {
		n := min(len(recs), 5000)
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		stmt, err := tx.Prepare(`INSERT INTO recs(id, lemma, trigger, steps, tags, category, env, status, confidence) VALUES(?,?,?,?,?,?,?,?,?)`)
		if err != nil {
			tx.Rollback()
			return err
		}
		for _, r := range recs[:n] {
			if _, err := stmt.Exec(r.ID, r.Lemma, r.Trigger, strings.Join(r.Steps, "\n"), strings.Join(r.Scope.Tags, " "),
				string(r.Category), r.Scope.Env, string(r.Status), r.Confidence); err != nil {
				tx.Rollback()
				return err
			}
		}
		stmt.Close()
		if err := tx.Commit(); err != nil {
			return err
		}
		recs = recs[n:]
	}
	return nil
}

// scanDoc is a record prepared for the plain scan: its searchable text
// lower-cased once, and the fields filters and facets read.
type scanDoc struct {
	id, text                    string
	category, env, status, tags string
	confidence                  float64
}

// joinLines joins the non-empty parts with newlines.
func joinLines(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), "\n")
}

func scanDocs(recs []review.Record) []scanDoc {
	out := make([]scanDoc, len(recs))
	for i, r := range recs {
		out[i] = scanDoc{id: r.ID,
			text:     strings.ToLower(joinLines(r.Lemma, r.Trigger, strings.Join(r.Steps, "\n"), strings.Join(r.Scope.Tags, " "), string(r.Category), r.Scope.Env)),
			category: string(r.Category), env: r.Scope.Env, status: string(r.Status),
			tags: " " + strings.ToLower(strings.Join(r.Scope.Tags, " ")) + " ", confidence: r.Confidence}
	}
	return out
}

// procStatusMB returns a memory line of /proc/self/status ("VmRSS",
// "VmHWM") in MiB, or 0 where there is none (not Linux).
func procStatusMB(key string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(rest), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}
