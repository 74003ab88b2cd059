package sample

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestSynthIntoHooks: SynthInto with its hooks writes the bank Synth
// writes, tells Committed after each transaction (increasing, ending at
// the record count; each count is in the bank when it is told) and
// Inserted once, before the edits, with the sequence of the last insert.
func TestSynthIntoHooks(t *testing.T) {
	t.Parallel()
	opt := SynthOptions{Records: 2*600 + 300, Trajectories: 7, Seed: 5, batch: 600}
	plain, hooked := filepath.Join(t.TempDir(), "plain"), filepath.Join(t.TempDir(), "hooked")
	if err := Synth(plain, opt); err != nil {
		t.Fatal(err)
	}
	s, err := NewSynthStore(hooked, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var commits []int
	var inserted []int64
	opt.Committed = func(n int) {
		if got, err := s.RecordCount(); err != nil || got != n {
			t.Errorf("Committed(%d) while the bank holds %d (%v)", n, got, err)
		}
		commits = append(commits, n)
	}
	opt.Inserted = func(seq int64) {
		if got, _ := s.RecordCount(); got != opt.Records {
			t.Errorf("Inserted before every record is in: %d of %d", got, opt.Records)
		}
		inserted = append(inserted, seq)
	}
	if err := SynthInto(s, opt); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := []int{opt.batch, 2 * opt.batch, opt.Records}
	if len(commits) != len(want) || commits[0] != want[0] || commits[1] != want[1] || commits[2] != want[2] {
		t.Errorf("Committed was told %v, want %v", commits, want)
	}
	last, err := openBank(t, hooked).LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	if len(inserted) != 1 || inserted[0] <= 0 || inserted[0] >= last {
		t.Errorf("Inserted was told %v; want once, before the edits (the bank ends at %d)", inserted, last)
	}
	ep, eh := synthExport(t, plain), synthExport(t, hooked)
	for name := range ep {
		if !bytes.Equal(ep[name], eh[name]) {
			t.Errorf("%s differs between Synth and SynthInto with hooks", name)
		}
	}
}
