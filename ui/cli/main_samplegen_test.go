package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
)

// TestSampleGenIndexed: `sample gen` writes the bank sample.Synth writes
// while it builds the index, and leaves an index that holds every record
// and trajectory at the bank's last sequence (its edits caught up), whose
// searches count what the bank holds.
func TestSampleGenIndexed(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "gen")
	r := mr(t, "", "sample", "gen", "--records", "1234", "--trajectories", "9", "--seed", "3", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "wrote 1234 records and 9 trajectories") || !strings.Contains(r.stdout, "searchable after") {
		t.Fatalf("sample gen: %+v", r)
	}
	other := filepath.Join(t.TempDir(), "plain")
	if err := sample.Synth(other, sample.SynthOptions{Records: 1234, Trajectories: 9, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	plain, err := store.Open(other, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	got, _ := st.Records(review.RecordFilter{})
	want, _ := plain.Records(review.RecordFilter{})
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if len(got) != 1234 || string(gj) != string(wj) {
		t.Errorf("sample gen's bank (%d records) differs from sample.Synth's (%d)", len(got), len(want))
	}
	ix, err := index.Open(filepath.Join(dir, store.IndexDir), st)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	last, _ := st.LastSeq()
	if ix.Seq() != last {
		t.Errorf("index at sequence %d, bank at %d", ix.Seq(), last)
	}
	docs, retired := 0, 0
	for _, rec := range got {
		if rec.Scope.Env == sample.EnvDocs {
			docs++
		}
		if rec.Status == review.Retired {
			retired++
		}
	}
	for _, c := range []struct {
		q, typ string
		want   int
	}{{"", "record", 1234}, {"", "trajectory", 9}, {"env:" + sample.EnvDocs, "record", docs}, {"status:retired", "record", retired}} {
		res, err := ix.Search(index.Request{Query: c.q, Type: c.typ, Exact: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != uint64(c.want) {
			t.Errorf("search %q (%s) total %d, want %d", c.q, c.typ, res.Total, c.want)
		}
	}
}
