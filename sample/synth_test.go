package sample

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memreview/memreview/review"
)

// synthExport returns a synthetic bank's records, trajectories, decisions
// and the histories of its edited records as JSON Lines.
func synthExport(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	s := openBank(t, dir)
	recs, err := s.Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}
	trajs, err := s.Trajectories()
	if err != nil {
		t.Fatal(err)
	}
	decs, err := s.Decisions()
	if err != nil {
		t.Fatal(err)
	}
	var hist []review.Version
	for _, r := range recs {
		if r.Version > 1 {
			h, err := s.History(r.ID)
			if err != nil {
				t.Fatal(err)
			}
			hist = append(hist, h...)
		}
	}
	return map[string][]byte{"records": jsonl(t, recs), "trajectories": jsonl(t, trajs),
		"decisions": jsonl(t, decs), "history": jsonl(t, hist)}
}

func TestSynth(t *testing.T) {
	opt := SynthOptions{Records: 500, Trajectories: 40, Seed: 7}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, dir := range []string{a, b} {
		if err := Synth(dir, opt); err != nil {
			t.Fatalf("Synth: %v", err)
		}
	}
	ea, eb := synthExport(t, a), synthExport(t, b)
	for name := range ea {
		if !bytes.Equal(ea[name], eb[name]) {
			t.Errorf("%s differs between two banks synthesised with seed %d", name, opt.Seed)
		}
	}

	s := openBank(t, a)
	recs, err := s.Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != opt.Records {
		t.Fatalf("bank holds %d records, want %d", len(recs), opt.Records)
	}
	cats := map[review.Category]int{}
	envs := map[string]int{}
	versions := map[int]int{}
	for _, r := range recs {
		cats[r.Category]++
		envs[r.Scope.Env]++
		versions[r.Version]++
		if r.Provenance.Trajectory == "" {
			t.Errorf("%s has no trajectory provenance", r.ID)
		}
	}
	for _, c := range review.Categories {
		if cats[c] == 0 {
			t.Errorf("no %s record among %d", c, len(recs))
		}
	}
	for _, e := range []string{EnvShop, EnvDocs} {
		if envs[e] == 0 {
			t.Errorf("no record in env %s", e)
		}
	}
	if versions[2] == 0 || versions[3] == 0 {
		t.Errorf("versions per record = %v; want some records at 2 and 3", versions)
	}
	trajs, err := s.Trajectories()
	if err != nil {
		t.Fatal(err)
	}
	if len(trajs) != opt.Trajectories {
		t.Errorf("bank holds %d trajectories, want %d", len(trajs), opt.Trajectories)
	}

	other := filepath.Join(t.TempDir(), "c")
	opt.Seed++
	if err := Synth(other, opt); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(ea["records"], synthExport(t, other)["records"]) {
		t.Errorf("seeds %d and %d give the same records", opt.Seed-1, opt.Seed)
	}
	if err := Synth(a, opt); err == nil {
		t.Error("Synth into a directory that holds a bank succeeded")
	}
}

func TestSynthRecordsPrefix(t *testing.T) {
	short, long := SynthRecords(50, 3), SynthRecords(80, 3)
	if !slices.EqualFunc(short, long[:50], func(a, b review.Record) bool { return a.ID == b.ID && a.Lemma == b.Lemma }) {
		t.Error("SynthRecords(50) is not a prefix of SynthRecords(80)")
	}
	ids := map[string]bool{}
	for _, r := range long {
		if ids[r.ID] {
			t.Errorf("duplicate id %s", r.ID)
		}
		ids[r.ID] = true
	}
}
