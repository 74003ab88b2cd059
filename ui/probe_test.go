package ui

import (
	"testing"

	"github.com/memreview/memreview/sample"
)

// TestLiveReprobe re-runs a proposal's probes live: the one recorded before
// the schema migration fails now, the one attached from after it
// reproduces, and the screen says so for each.
func TestLiveReprobe(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// Give the trajectory-only proposal a second run that still holds: the
	// one-to-one check of the split attribute tables.
	runs, err := w.store.ProbeRunsFor("proposal", sample.PropAcceptCreate)
	if err != nil || len(runs) != 1 {
		t.Fatalf("probe runs of %s: %v %v", sample.PropAcceptCreate, runs, err)
	}
	if err := w.store.Attach(runs[0].ID, "proposal", sample.PropTrajectoryOnly, "tester"); err != nil {
		t.Fatal(err)
	}

	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate "+sample.PropTrajectoryOnly, "2 sql shop")
	s.typ("p")
	s.waitFor("✘ now: fails now", "no such table: attrs_g2", "✔ now: same")
	s.quit()
}
