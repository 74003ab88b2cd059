package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

// fillingBank is a new bank with the trajectories of sampleBank (ntraj),
// as a writer filling it starts.
func fillingBank(t *testing.T) (*store.Store, string) {
	t.Helper()
	bank := t.TempDir()
	st, err := store.Create(bank, store.Options{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	trajs, _ := sampleBank().Trajectories()
	if err := st.PutTrajectories(trajs); err != nil {
		t.Fatal(err)
	}
	if len(trajs) != ntraj {
		t.Fatalf("sampleBank has %d trajectories, want %d", len(trajs), ntraj)
	}
	return st, filepath.Join(bank, "index")
}

const ntraj = 2

// waitFor polls until ok holds (the build has started), failing after a
// generous while.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// TestBuildFilling builds the index of a bank while records are written
// into it: the build starts on an empty bank and must wait for each
// commit (returning at a short page would index nothing), index every
// record, also one whose id sorts before those written earlier, store
// the sequence of the last insert, and leave the edits made after it to
// the next open's catch-up, after which the index's sequence is the
// bank's.
func TestBuildFilling(t *testing.T) {
	t.Parallel()
	st, dir := fillingBank(t)
	const batch = 300 // the build's batches (BuildTuning.Batch), small for the test's time
	const n = 3*batch + 17
	all := bulkRecords("fill", n)
	// The last record's id sorts before every other: a build that followed
	// the ids would have passed it by when it is written.
	all[n-1].ID = "a_last"
	f := NewFilling(n)
	built := make(chan error, 1)
	go func() { built <- buildFilling(dir, st, f, BuildTuning{Batch: batch}) }()
	waitFor(t, "the build to start", func() bool { _, err := os.Stat(dir + ".new"); return err == nil })
	for _, part := range [][]review.Record{all[:210], all[210:630], all[630:631], all[631:]} {
		if err := st.PutRecords(part, "test", "fill"); err != nil {
			t.Fatal(err)
		}
		f.Committed(0)
	}
	inserted, err := st.LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	f.Inserted(inserted)
	// An edit after the inserts, as Synth's are.
	edited := all[5]
	edited.Lemma = "bulk note rewritten about zebras"
	if _, err := st.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Edit, Record: &edited, Operator: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := <-built; err != nil {
		t.Fatalf("BuildFilling: %v", err)
	}
	idx, err := openDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := readSeq(idx)
	count, _ := idx.DocCount()
	lost := missingDocs(t, idx, st, all)
	idx.Close()
	if err != nil || stored != inserted {
		t.Errorf("stored sequence = %d, %v; want the last insert's, %d", stored, err, inserted)
	}
	if count != n+ntraj || len(lost) > 0 {
		t.Errorf("the build holds %d documents, want %d records and %d trajectories; missing %v", count, n, ntraj, lost)
	}
	ix, err := Open(dir, st)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	last, _ := st.LastSeq()
	if ix.Seq() != last || last <= inserted {
		t.Errorf("after open the index is at %d, the bank at %d (last insert %d)", ix.Seq(), last, inserted)
	}
	if got := search(t, ix, "zebras", ""); !slices.Equal(got, recs(edited.ID)) {
		t.Errorf("zebras = %v; want the edit caught up, %s", got, edited.ID)
	}
	if got := docCount(t, ix); got != n+ntraj {
		t.Errorf("DocCount = %d, want %d", got, n+ntraj)
	}
	if got := search(t, ix, "id:a_last", ""); !slices.Equal(got, recs("a_last")) {
		t.Errorf("id:a_last = %v; want the record written last", got)
	}
}

// missingDocs names the documents of all and of st's trajectories that
// the built index idx lacks.
func missingDocs(t *testing.T, idx bleve.Index, st *store.Store, all []review.Record) []string {
	t.Helper()
	want := make([]string, 0, len(all)+ntraj)
	for _, r := range all {
		want = append(want, schema.DocID("record", r.ID))
	}
	trajs, err := st.Trajectories()
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trajs {
		want = append(want, schema.DocID("trajectory", tr.ID))
	}
	var lost []string
	for _, id := range want {
		if d, err := idx.Document(id); err != nil || d == nil {
			lost = append(lost, id)
		}
	}
	return lost
}

// TestBuildFillingEditedBeforeRead: a record inserted before f.Inserted
// and edited after it, both before the build reads the change feed (a
// build starved while the writer runs ahead), is in the build. The feed
// gives each object's latest change only, so the record shows there at
// the edit's sequence, after the last insert's.
func TestBuildFillingEditedBeforeRead(t *testing.T) {
	t.Parallel()
	st, dir := fillingBank(t)
	const n = 40
	all := bulkRecords("ahead", n)
	f := NewFilling(n)
	if err := st.PutRecords(all, "test", "fill"); err != nil {
		t.Fatal(err)
	}
	f.Committed(n)
	inserted, err := st.LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	f.Inserted(inserted)
	edited := all[7]
	edited.Lemma = "bulk note rewritten about zebras"
	if _, err := st.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Edit, Record: &edited, Operator: "test"}); err != nil {
		t.Fatal(err)
	}
	// The build starts only now: the writer is done and has edited.
	if err := buildFilling(dir, st, f, BuildTuning{Batch: 16}); err != nil {
		t.Fatalf("BuildFilling: %v", err)
	}
	idx, err := openDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	stored, serr := readSeq(idx)
	count, _ := idx.DocCount()
	lost := missingDocs(t, idx, st, all)
	idx.Close()
	if serr != nil || stored != inserted {
		t.Errorf("stored sequence = %d, %v; want the last insert's, %d", stored, serr, inserted)
	}
	if count != n+ntraj || len(lost) > 0 {
		t.Errorf("the build holds %d documents, want %d records and %d trajectories; missing %v", count, n, ntraj, lost)
	}
}

// TestBuildFillingWriterFails: when the writer fails, the build stops with
// its error and leaves no index, and the next open builds one of what the
// bank holds.
func TestBuildFillingWriterFails(t *testing.T) {
	t.Parallel()
	st, dir := fillingBank(t)
	f := NewFilling(5000)
	built := make(chan error, 1)
	go func() { built <- BuildFilling(dir, st, f) }()
	if err := st.PutRecords(bulkRecords("half", 1500), "test", "fill"); err != nil {
		t.Fatal(err)
	}
	f.Committed(1500)
	f.Fail(errors.New("disk full"))
	err := <-built
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("BuildFilling after the writer failed = %v; want its error", err)
	}
	for _, p := range []string{dir, dir + ".new"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left after the failed build (%v)", filepath.Base(p), err)
		}
	}
	ix, err := Open(dir, st)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got := docCount(t, ix); got != 1500+ntraj {
		t.Errorf("DocCount after the next open = %d, want %d", got, 1500+ntraj)
	}
}

// failingPager is a bank whose records fail to read after a number of
// pages, as a disk error midway through a build would.
type failingPager struct {
	*store.Store
	pages int
}

func (p *failingPager) RecordsAfter(afterID string, limit int) ([]review.Record, error) {
	if p.pages == 0 {
		return nil, errors.New("injected read error")
	}
	p.pages--
	return p.Store.RecordsAfter(afterID, limit)
}

// TestBuildInterrupted: a build that fails midway leaves no index that an
// open trusts, whether there was none (the failed open leaves nothing)
// or an old one (Rebuild keeps it serving); the next build is complete.
func TestBuildInterrupted(t *testing.T) {
	t.Parallel()
	st, dir := fillingBank(t)
	const batch = 300     // the build's pages (BuildTuning.Batch), small for the test's time
	const n = 2*batch + 5 // three pages: the first open fails on the third
	if err := st.PutRecords(bulkRecords("int", n), "test", "fill"); err != nil {
		t.Fatal(err)
	}
	tuned := OpenOptions{Tuning: Tuning{Build: BuildTuning{Batch: batch}}}
	if _, err := OpenWith(dir, &failingPager{Store: st, pages: 2}, tuned); err == nil || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("Open with a failing read = %v; want the injected error", err)
	}
	for _, p := range []string{dir, dir + ".new"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left after the failed build (%v)", filepath.Base(p), err)
		}
	}
	ix, err := OpenWith(dir, st, tuned)
	if err != nil {
		t.Fatal(err)
	}
	if got := docCount(t, ix); got != n+ntraj {
		t.Errorf("DocCount after a good build = %d, want %d", got, n+ntraj)
	}
	ix.Close()
	bad := &failingPager{Store: st, pages: 1}
	ix, err = OpenWith(dir, bad, tuned)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Rebuild(); err == nil || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("Rebuild with a failing read = %v; want the injected error", err)
	}
	if got := docCount(t, ix); got != n+ntraj {
		t.Errorf("DocCount after a failed rebuild = %d, want the old index's %d", got, n+ntraj)
	}
	if _, err := os.Stat(dir + ".new"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("index.new is left after the failed rebuild (%v)", err)
	}
}

// TestFollowSourceOrder reads a filling bank page by page between its
// commits: every record comes once, also one written after the pages
// passed its id, except one edited after the inserts, which comes again
// in its edited version (the feed cannot tell that edit from the insert
// of a record not read yet); once the writer is done and that read is
// handed over, later edits are left to the catch-up.
func TestFollowSourceOrder(t *testing.T) {
	t.Parallel()
	st, _ := fillingBank(t)
	f := NewFilling(0)
	src := &followSource{Store: st, byID: st, f: f}
	seen := map[string]int{}
	lemma := map[string]string{} // the version handed over last
	read := func(until bool) {
		for {
			page, err := src.RecordsAfter("", 300)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range page {
				seen[r.ID]++
				lemma[r.ID] = r.Lemma
			}
			if len(page) == 0 || !until && len(src.pending) == 0 {
				return
			}
		}
	}
	first := bulkRecords("m", 700)
	if err := st.PutRecords(first, "test", "fill"); err != nil {
		t.Fatal(err)
	}
	f.Committed(700)
	read(false)
	if len(seen) != 700 {
		t.Fatalf("after the first commit %d records were handed over, want 700", len(seen))
	}
	late := []review.Record{{ID: "a_late", Lemma: "written last, sorts first", Category: review.Fact}, {ID: "z_late", Lemma: "written last, sorts last", Category: review.Fact}}
	if err := st.PutRecords(late, "test", "fill"); err != nil {
		t.Fatal(err)
	}
	seq, _ := st.LastSeq()
	f.Inserted(seq)
	edited := first[3]
	edited.Lemma = "edited after the inserts"
	if _, err := st.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Edit, Record: &edited, Operator: "test"}); err != nil {
		t.Fatal(err)
	}
	read(true)
	if len(seen) != 702 || seen["a_late"] != 1 || seen["z_late"] != 1 {
		t.Errorf("%d records handed over (a_late %d, z_late %d), want 702, each once", len(seen), seen["a_late"], seen["z_late"])
	}
	if seen[edited.ID] != 2 || lemma[edited.ID] != edited.Lemma {
		t.Errorf("%s handed over %d times, last as %q; want twice, last as the edit", edited.ID, seen[edited.ID], lemma[edited.ID])
	}
	for id, n := range seen {
		if n != 1 && id != edited.ID {
			t.Errorf("%s handed over %d times", id, n)
		}
	}
	again := first[4]
	again.Lemma = "edited after the last read"
	if _, err := st.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Edit, Record: &again, Operator: "test"}); err != nil {
		t.Fatal(err)
	}
	if page, err := src.RecordsAfter("", 300); err != nil || len(page) != 0 {
		t.Errorf("after the last read RecordsAfter = %d records, %v; want none (the edit is the catch-up's)", len(page), err)
	}
	if got, err := src.seqAfterItems(); err != nil || got != seq {
		t.Errorf("seqAfterItems = %d, %v; want the last insert's %d", got, err, seq)
	}
}
