package index

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

// The bank store is the index's Store.
var _ Store = (*store.Store)(nil)

// TestWithStore follows a real bank: import, then a trajectory, then reopen.
func TestWithStore(t *testing.T) {
	bank := t.TempDir()
	st, err := store.Create(bank, store.Options{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatalf("create bank: %v", err)
	}
	defer st.Close()
	src := sampleBank()
	all, _ := src.Records(review.RecordFilter{})
	if err := st.PutRecords(all, "test", "import"); err != nil {
		t.Fatalf("PutRecords: %v", err)
	}
	dir := filepath.Join(bank, "index")
	ix, err := Open(dir, st)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer func() { ix.Close() }()
	if got := search(t, ix, "category:Fact", ""); !slices.Equal(got, recs("mem_2", "mem_3")) {
		t.Errorf("category:Fact = %v", got)
	}
	trajs, _ := src.Trajectories()
	if err := st.PutTrajectories(trajs); err != nil {
		t.Fatalf("PutTrajectories: %v", err)
	}
	if err := ix.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if got := search(t, ix, "book_reservation", "trajectory"); !slices.Equal(got, []string{"trajectory/traj_1"}) {
		t.Errorf("book_reservation = %v", got)
	}
	last, err := st.LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	if ix.Seq() != last {
		t.Errorf("Seq = %d, bank's LastSeq = %d", ix.Seq(), last)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if ix, err = Open(dir, st); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	if n := docCount(t, ix); n != uint64(len(all)+len(trajs)) {
		t.Errorf("DocCount after reopen = %d, want %d", n, len(all)+len(trajs))
	}
}
