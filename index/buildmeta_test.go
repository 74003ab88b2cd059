package index

import (
	"github.com/memreview/memreview/index/schema"
	"path/filepath"
	"testing"
)

// TestBuildPersistsEveryBatch builds a bank of several batches (written
// with unsafe_batch, so each batch returns before it is on disk), closes
// the index and opens it again: every document and the stored sequence
// must have reached the disk.
func TestBuildPersistsEveryBatch(t *testing.T) {
	t.Parallel()
	src := newFake()
	const n = 2*batchSize + 100
	src.putRecord(bulkRecords("p", n)...)
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	idx, err := openDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if got, err := idx.DocCount(); err != nil || got != n {
		t.Errorf("DocCount after reopen = %d, %v; want %d", got, err, n)
	}
	want, _ := src.LastSeq()
	if got, err := readSeq(idx); err != nil || got != want {
		t.Errorf("stored sequence = %d, %v; want %d", got, err, want)
	}
	if mv, err := idx.GetInternal(mappingKey); err != nil || string(mv) != schema.Version {
		t.Errorf("stored mapping version = %q, %v; want %q", mv, err, schema.Version)
	}
}
