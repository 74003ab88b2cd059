package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/memreview/memreview/review"
)

func docCount(t *testing.T, ix *Index) uint64 {
	t.Helper()
	n, err := ix.DocCount()
	if err != nil {
		t.Fatalf("DocCount: %v", err)
	}
	return n
}

func search(t *testing.T, ix *Index, q, typ string) []string {
	t.Helper()
	res, err := ix.Search(Request{Query: q, Type: typ, Size: 100})
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	return ids(res)
}

func TestOpenBuildsAndCounts(t *testing.T) {
	ix, src := openSample(t)
	if n := docCount(t, ix); n != 9 {
		t.Errorf("DocCount = %d, want 9 (6 records, 1 proposal, 2 trajectories)", n)
	}
	if ix.Seq() != int64(len(src.log)) {
		t.Errorf("Seq = %d, want %d", ix.Seq(), len(src.log))
	}
	if _, err := os.Stat(ix.dir + ".new"); !os.IsNotExist(err) {
		t.Errorf("%s.new left behind: %v", ix.dir, err)
	}
}

func TestSyncUpdateAndDelete(t *testing.T) {
	ix, src := openSample(t)
	r := src.recs["mem_2"]
	r.Lemma = "The orders table stores totals in euros."
	src.putRecord(r)
	src.deleteRecord("mem_3")
	src.putTrajectory(review.Trajectory{ID: "traj_3", Task: "Refund a cancelled order", Env: "shop"})
	if err := ix.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if got := search(t, ix, "cents", "record"); len(got) != 0 {
		t.Errorf("old text still found after update: %v", got)
	}
	if got := search(t, ix, "euros", "record"); !slices.Equal(got, recs("mem_2")) {
		t.Errorf("new text: got %v, want mem_2", got)
	}
	if got := search(t, ix, "id:mem_3", ""); len(got) != 0 {
		t.Errorf("deleted record still found: %v", got)
	}
	if got := search(t, ix, "refund", "trajectory"); !slices.Equal(got, []string{"trajectory/traj_3"}) {
		t.Errorf("new trajectory: got %v", got)
	}
	if n := docCount(t, ix); n != 9 {
		t.Errorf("DocCount = %d, want 9", n)
	}
	if ix.Seq() != int64(len(src.log)) {
		t.Errorf("Seq = %d, want %d", ix.Seq(), len(src.log))
	}
	// Nothing changed: one ChangesSince call, no item reads.
	reads := src.reads
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	if src.reads != reads {
		t.Errorf("idle Sync read %d items", src.reads-reads)
	}
}

func TestSyncManyChangesInBatches(t *testing.T) {
	ix, src := openSample(t)
	var rs []review.Record
	for i := range 1500 {
		rs = append(rs, review.Record{ID: fmt.Sprintf("bulk_%04d", i), Lemma: fmt.Sprintf("bulk note number %d", i), Category: review.Fact})
	}
	src.putRecord(rs...)
	src.putRecord(rs[7]) // a second change to one record in the feed
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	if n := docCount(t, ix); n != 9+1500 {
		t.Errorf("DocCount = %d, want %d", n, 9+1500)
	}
	if ix.Seq() != int64(len(src.log)) {
		t.Errorf("Seq = %d, want %d", ix.Seq(), len(src.log))
	}
}

func TestSeqPersistsAcrossReopen(t *testing.T) {
	src := sampleBank()
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, src)
	if err != nil {
		t.Fatal(err)
	}
	seq := ix.Seq()
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	src.putRecord(review.Record{ID: "mem_7", Lemma: "Parcels ship on weekdays only.", Category: review.Fact})
	reads := src.reads
	ix, err = Open(dir, src)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ix.Close() }()
	if src.calls(0) != 0 {
		t.Errorf("ChangesSince(0) called %d times: the stored sequence was not used", src.calls(0))
	}
	if src.calls(seq) != 2 {
		t.Errorf("ChangesSince(%d) called %d times, want 2 (first open, reopen)", seq, src.calls(seq))
	}
	if src.reads-reads != 1 {
		t.Errorf("reopen read %d items, want 1 (only the new record)", src.reads-reads)
	}
	if ix.Seq() != seq+1 {
		t.Errorf("Seq = %d, want %d", ix.Seq(), seq+1)
	}
	if got := search(t, ix, "weekdays", ""); !slices.Equal(got, recs("mem_7")) {
		t.Errorf("record added while closed: got %v", got)
	}
	if m, ok := ix.idx.Mapping().(*mapping.IndexMappingImpl); !ok || m.ScoringModel != "bm25" {
		t.Errorf("reopened index does not score with BM25: %#v", ix.idx.Mapping())
	}
	// The catch-up itself was stored: a third open starts after mem_7.
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	reads = src.reads
	ix, err = Open(dir, src)
	if err != nil {
		t.Fatal(err)
	}
	if src.calls(seq+1) != 1 || src.reads != reads {
		t.Errorf("third open: ChangesSince(%d) called %d times (want 1), %d items read (want 0)",
			seq+1, src.calls(seq+1), src.reads-reads)
	}
}

func TestOpenRebuilds(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(dir string) error
	}{
		{"deleted", os.RemoveAll},
		{"garbage files", func(dir string) error {
			for _, f := range []string{"index_meta.json", "root.bolt"} {
				if err := os.WriteFile(filepath.Join(dir, f), []byte("not an index\x00\xff"), 0o600); err != nil {
					return err
				}
			}
			return nil
		}},
		{"garbage bolt", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "root.bolt"), make([]byte, 8192), 0o600)
		}},
		{"empty dir", func(dir string) error {
			if err := os.RemoveAll(dir); err != nil {
				return err
			}
			return os.Mkdir(dir, 0o700)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := sampleBank()
			dir := filepath.Join(t.TempDir(), "index")
			ix, err := Open(dir, src)
			if err != nil {
				t.Fatal(err)
			}
			ix.Close()
			if err := tt.spoil(dir); err != nil {
				t.Fatal(err)
			}
			ix, err = Open(dir, src)
			if err != nil {
				t.Fatalf("Open after %s: %v", tt.name, err)
			}
			defer ix.Close()
			if n := docCount(t, ix); n != 9 {
				t.Errorf("DocCount = %d, want 9", n)
			}
			if got := search(t, ix, "dollars", ""); !slices.Equal(got, recs("mem_2")) {
				t.Errorf("search after rebuild: %v", got)
			}
			if ix.Seq() != int64(len(src.log)) {
				t.Errorf("Seq = %d, want %d", ix.Seq(), len(src.log))
			}
		})
	}
}

func TestOpenIndexOfAnotherBankRebuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, sampleBank())
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	other := newFake() // its feed is shorter than the sequence the index holds
	other.putRecord(review.Record{ID: "x_1", Lemma: "Another bank entirely.", Category: review.Fact})
	ix, err = Open(dir, other)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n := docCount(t, ix); n != 1 {
		t.Errorf("DocCount = %d, want 1", n)
	}
}

func TestOpenInUse(t *testing.T) {
	t.Parallel()
	ix, src := openSample(t)
	type opened struct {
		ix  *Index
		err error
	}
	done := make(chan opened, 1)
	start := time.Now()
	go func() {
		second, err := Open(ix.dir, src)
		done <- opened{second, err}
	}()
	var second *Index
	var err error
	select {
	case o := <-done:
		second, err = o.ix, o.err
	case <-time.After(5 * time.Second):
		t.Fatal("second Open of an open index still waiting after 5s")
	}
	if err == nil {
		second.Close()
		t.Fatal("second Open of an open index succeeded")
	}
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("second Open: %v, want ErrInUse", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("second Open took %v", d)
	}
	// The first is untouched.
	if got := search(t, ix, "dollars", ""); !slices.Equal(got, recs("mem_2")) {
		t.Errorf("first index after refused second Open: %v", got)
	}
}

func TestRebuild(t *testing.T) {
	ix, src := openSample(t)
	src.putRecord(review.Record{ID: "mem_8", Lemma: "Warehouses close at noon on Fridays.", Category: review.Fact})
	if err := ix.Rebuild(); err != nil {
		t.Fatalf("Rebuild: %v", err)
	}
	if n := docCount(t, ix); n != 10 {
		t.Errorf("DocCount = %d, want 10", n)
	}
	if got := search(t, ix, "warehouses", ""); !slices.Equal(got, recs("mem_8")) {
		t.Errorf("search after Rebuild: %v", got)
	}
	if ix.Seq() != int64(len(src.log)) {
		t.Errorf("Seq = %d, want %d", ix.Seq(), len(src.log))
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Rebuild(); err == nil {
		t.Error("Rebuild of a closed index succeeded")
	}
	if _, err := ix.Search(Request{}); err == nil {
		t.Error("Search of a closed index succeeded")
	}
}

func TestOpenSourceError(t *testing.T) {
	src := sampleBank()
	src.failAll = errors.New("disk on fire")
	_, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err == nil || !errors.Is(err, src.failAll) {
		t.Errorf("Open with a failing bank: %v, want the bank's error", err)
	}
}

func TestConcurrentSearchDuringSyncAndRebuild(t *testing.T) {
	t.Parallel()
	ix, src := openSample(t)
	stop := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := ix.Search(Request{Query: "join", Facets: []string{"env"}}); err != nil {
				errs <- err
				return
			}
			if _, err := ix.Retrieve("join reviews", review.Scope{Env: "shop"}, 3); err != nil {
				errs <- err
				return
			}
		}
	}()
	for i := range 20 {
		src.putRecord(review.Record{ID: fmt.Sprintf("c_%d", i), Lemma: "concurrent join note", Category: review.Fact})
		if err := ix.Sync(); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			if err := ix.Rebuild(); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	if err := <-errs; err != nil {
		t.Fatalf("search during sync/rebuild: %v", err)
	}
	if n := docCount(t, ix); n != 29 {
		t.Errorf("DocCount = %d, want 29", n)
	}
}
