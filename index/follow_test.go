package index

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestFollow follows writers into an open index (the index's side of an
// import): a writer announcing more records than the index's rule for a
// rebuild has the index built beside the open one while it commits,
// swapped in with every record, the items that were there before and the
// sequence of its inserts, an edit after them caught up next; a search
// during it finds what is committed (from the tail); a small writer is
// caught up after each transaction, reading the changed records in bulk;
// a writer that fails ends the follow with its error, the index serving
// what it held.
func TestFollow(t *testing.T) {
	t.Parallel()
	st, dir := fillingBank(t)
	if err := st.PutRecords(bulkRecords("before", 30), "test", "seed"); err != nil {
		t.Fatal(err)
	}
	ix, err := OpenWith(dir, st, OpenOptions{Tuning: Tuning{RebuildMin: 100}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	total := func(q string) uint64 {
		t.Helper()
		res, err := ix.Search(Request{Query: q, Type: "record", Size: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}

	// A large writer: more than RebuildMin and a quarter of the 32 documents.
	const n = batchSize + 200
	big := bulkRecords("import", n)
	f := NewFilling(n)
	followed := make(chan error, 1)
	go func() { followed <- ix.Follow(f) }()
	if err := st.PutRecords(big[:600], "test", "import"); err != nil {
		t.Fatal(err)
	}
	f.Committed(600)
	waitFor(t, "the follow to build beside the index", func() bool { _, err := os.Stat(dir + ".new"); return err == nil && ix.CatchingUp() })
	if got := total(fmt.Sprintf("id:import_%05d", 599)); got != 1 {
		t.Errorf("during the follow, the first transaction's last record is found %d times, want once", got)
	}
	if err := st.PutRecords(big[600:], "test", "import"); err != nil {
		t.Fatal(err)
	}
	inserted, err := st.LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	f.Committed(n - 600)
	f.Inserted(inserted)
	if err := <-followed; err != nil {
		t.Fatalf("Follow: %v", err)
	}
	if ix.Seq() < inserted || ix.CatchingUp() {
		t.Errorf("after the follow: sequence %d, catching up %v; want at least %d, done", ix.Seq(), ix.CatchingUp(), inserted)
	}
	if got := total("bulk"); got != n+30 {
		t.Errorf("after the follow: %d records, want %d (the import and the 30 before)", got, n+30)
	}
	if res, err := ix.Search(Request{Type: "trajectory"}); err != nil || res.Total != ntraj {
		t.Errorf("after the follow: %v trajectories (%v), want %d", res, err, ntraj)
	}

	// A small writer: caught up after its transaction, in bulk.
	small := NewFilling(20)
	go func() { followed <- ix.Follow(small) }()
	if err := st.PutRecords(bulkRecords("small", 20), "test", "import"); err != nil {
		t.Fatal(err)
	}
	seq, _ := st.LastSeq()
	small.Committed(20)
	small.Inserted(seq)
	if err := <-followed; err != nil {
		t.Fatalf("Follow of a small writer: %v", err)
	}
	if got := total("small"); got != 20 || ix.Seq() != seq {
		t.Errorf("after a small follow: %d small records at sequence %d, want 20 at %d", got, ix.Seq(), seq)
	}

	// A writer that fails.
	failed := NewFilling(5000)
	go func() { followed <- ix.Follow(failed) }()
	failed.Fail(errors.New("disk full"))
	if err := <-followed; err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Follow of a failed writer = %v, want its error", err)
	}
	if got := total("bulk"); got != n+30+20 {
		t.Errorf("after a failed follow: %d records, want %d", got, n+30+20)
	}
}

// TestReplayInBulk checks that a catch-up reads the changed items of a
// source that reads in bulk with no read one by one, and applies new,
// changed and deleted items alike.
func TestReplayInBulk(t *testing.T) {
	t.Parallel()
	src := &bulkFake{fakeSource: sampleBank()}
	ix, err := Open(t.TempDir()+"/index", src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	src.putRecord(bulkRecords("late", 5)...)
	r := src.recs["mem_2"]
	r.Lemma = "Totals are stored in pennies."
	src.putRecord(r)
	src.deleteRecord("mem_3")
	reads, bulk := src.reads, src.bulk
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	if src.reads != reads || src.bulk == bulk {
		t.Errorf("catch-up: %d single reads, %d bulk reads; want none, some", src.reads-reads, src.bulk-bulk)
	}
	for q, want := range map[string]uint64{"late": 5, "pennies": 1, "dollars": 0, "id:mem_3": 0} {
		res, err := ix.Search(Request{Query: q, Type: "record"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != want || res.Behind != 0 {
			t.Errorf("%s: %d hits (behind %d), want %d", q, res.Total, res.Behind, want)
		}
	}
}
