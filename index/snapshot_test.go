package index

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/memreview/memreview/review"
)

// A snapshot of a bank's records (retired ones too: they count in the
// term statistics) ranks them as the bank's own index does when that index
// holds the same records, and leaves out the records it was not given.
func TestSnapshotRanksAsRetrieve(t *testing.T) {
	full := sampleBank()
	src := newFake()
	var all, active []review.Record
	for _, r := range full.recs {
		src.putRecord(r)
		all = append(all, src.recs[r.ID])
		if r.Status == review.Active || r.Status == "" {
			active = append(active, r)
		}
	}
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	snap, err := NewSnapshot(all)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	for _, task := range []string{"how do reviews join items", "flight prices per passenger", "list tables in the schema", "", "orders totals"} {
		for _, scope := range []review.Scope{{}, {Env: "shop"}, {Env: "shop", Tags: []string{"g2"}}} {
			want, err := ix.Retrieve(task, scope, 3)
			if err != nil {
				t.Fatal(err)
			}
			got, err := snap.Retrieve(task, scope, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Retrieve(%q, %+v): snapshot %v, index %v", task, scope, got, want)
			}
		}
	}
	fewer, err := NewSnapshot(active[:1])
	if err != nil {
		t.Fatal(err)
	}
	defer fewer.Close()
	got, err := fewer.Retrieve("", review.Scope{}, 5)
	if err != nil || len(got) != 1 || got[0].ID != active[0].ID {
		t.Fatalf("a snapshot of one record retrieved %v (%v)", got, err)
	}
}
