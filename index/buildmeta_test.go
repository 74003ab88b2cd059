package index

import (
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestBuildPersistsEveryBatch builds a bank of several batches (written
// with unsafe_batch, so each batch returns before it is on disk), closes
// the index and opens it again: every document and the stored sequence
// must have reached the disk.
func TestBuildPersistsEveryBatch(t *testing.T) {
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
	if mv, err := idx.GetInternal(mappingKey); err != nil || string(mv) != mappingVersion {
		t.Errorf("stored mapping version = %q, %v; want %q", mv, err, mappingVersion)
	}
}

// TestRaiseGCPercent: the build's raise is undone when the last of two
// overlapping builds ends, and never lowers a higher setting.
func TestRaiseGCPercent(t *testing.T) {
	prev := debug.SetGCPercent(150)
	defer debug.SetGCPercent(prev)
	r1 := raiseGCPercent()
	r2 := raiseGCPercent()
	if got := currentGC(); got != buildGCPercent {
		t.Errorf("during builds GC percent = %d, want %d", got, buildGCPercent)
	}
	r1()
	if got := currentGC(); got != buildGCPercent {
		t.Errorf("with one build left GC percent = %d, want %d", got, buildGCPercent)
	}
	r2()
	if got := currentGC(); got != 150 {
		t.Errorf("after builds GC percent = %d, want 150", got)
	}
	debug.SetGCPercent(buildGCPercent * 2)
	r3 := raiseGCPercent()
	if got := currentGC(); got != buildGCPercent*2 {
		t.Errorf("raise lowered GC percent to %d", got)
	}
	r3()
}

// currentGC reads the garbage collector's percent setting.
func currentGC() int {
	v := debug.SetGCPercent(100)
	debug.SetGCPercent(v)
	return v
}
