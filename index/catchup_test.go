package index

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/memreview/memreview/review"
)

func bulkRecords(prefix string, n int) []review.Record {
	rs := make([]review.Record, n)
	for i := range rs {
		rs[i] = review.Record{ID: fmt.Sprintf("%s_%05d", prefix, i), Lemma: fmt.Sprintf("bulk note number %d about %s", i, prefix), Category: review.Fact}
	}
	return rs
}

// TestLongFeedRebuilt checks that a change feed longer than the index is
// caught up by a rebuild (no item read one by one), reporting progress up
// to the whole bank, and that a short one is replayed.
func TestLongFeedRebuilt(t *testing.T) {
	const rebuildMin = 200 // the rule, at a size a test builds quickly
	src := sampleBank()
	ix, err := OpenWith(filepath.Join(t.TempDir(), "index"), src, OpenOptions{Tuning: Tuning{RebuildMin: rebuildMin}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var mu sync.Mutex
	var reports [][2]int
	ix.SetProgress(func(done, total int) {
		mu.Lock()
		reports = append(reports, [2]int{done, total})
		mu.Unlock()
	})
	src.putRecord(bulkRecords("long", rebuildMin+1)...)
	reads := src.reads
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	if src.reads != reads {
		t.Errorf("catch-up of %d changes read %d items one by one; want a rebuild (none)", rebuildMin+1, src.reads-reads)
	}
	want := 9 + rebuildMin + 1
	if n := docCount(t, ix); n != uint64(want) {
		t.Errorf("DocCount = %d, want %d", n, want)
	}
	if got := search(t, ix, fmt.Sprintf("id:long_%05d", rebuildMin), "record"); !slices.Equal(got, recs(fmt.Sprintf("long_%05d", rebuildMin))) {
		t.Errorf("search for the last record after rebuild: %v", got)
	}
	mu.Lock()
	last := reports[len(reports)-1]
	mu.Unlock()
	if last != [2]int{want, want} {
		t.Errorf("last progress report %v, want [%d %d]", last, want, want)
	}

	src.putRecord(bulkRecords("short", 10)...)
	reads = src.reads
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	if src.reads-reads != 10 {
		t.Errorf("catch-up of 10 changes read %d items, want 10 (a replay)", src.reads-reads)
	}
}

// TestSearchSaysBehind checks that a search made before the index caught
// up says by how many changes, and 0 once it has.
func TestSearchSaysBehind(t *testing.T) {
	ix, src := openSample(t)
	src.putRecord(bulkRecords("late", 3)...)
	src.deleteRecord("mem_1")
	res, err := ix.Search(Request{Query: "late", Type: "record"})
	if err != nil {
		t.Fatal(err)
	}
	// The tail (the changes the index lacks, read from the bank) finds the
	// new records, and says so.
	if res.Behind != 4 || !slices.Equal(ids(res), recs("late_00000", "late_00001", "late_00002")) || res.Direct != 4 || res.Unsearched != 0 {
		t.Errorf("before Sync: Behind %d, hits %v, direct %d, unsearched %d; want 4, the 3 late records, 4, 0",
			res.Behind, ids(res), res.Direct, res.Unsearched)
	}
	res, err = ix.Search(Request{Query: "id:mem_1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 0 {
		t.Errorf("before Sync: the deleted mem_1 is found: %v", ids(res))
	}
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	res, err = ix.Search(Request{Query: "late", Type: "record"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Behind != 0 || !slices.Equal(ids(res), recs("late_00000", "late_00001", "late_00002")) {
		t.Errorf("after Sync: Behind %d, hits %v", res.Behind, ids(res))
	}
}
