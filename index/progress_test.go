package index

import (
	"path/filepath"
	"sync"
	"testing"
)

// OpenWith's Progress hears a first build from start to end: counts that
// only grow, ending at every item the bank holds.
func TestOpenReportsBuildProgress(t *testing.T) {
	t.Parallel()
	src := newFake()
	const n = 2*batchSize + 100
	src.putRecord(bulkRecords("p", n)...)
	var mu sync.Mutex
	var seen [][2]int
	ix, err := OpenWith(filepath.Join(t.TempDir(), "index"), src, OpenOptions{Progress: func(done, total int) {
		mu.Lock()
		seen = append(seen, [2]int{done, total})
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 {
		t.Fatalf("progress reports = %v; want one per batch of a %d-record build", seen, n)
	}
	for i, s := range seen {
		if s[1] != n || s[0] > s[1] || (i > 0 && s[0] < seen[i-1][0]) {
			t.Fatalf("progress reports = %v; want counts that grow to %d of %d", seen, n, n)
		}
	}
	if last := seen[len(seen)-1]; last[0] != n {
		t.Fatalf("the last report is %v, want %d of %d", last, n, n)
	}
}
