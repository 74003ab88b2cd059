package ui

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// TestAcceptMergeProposalKeepsSources accepts the curator's merge of the
// two revenue-per-head records (sample prop_0013) with a, as proposed.
// Before the accept the candidate pane says what the proposal's own
// record drops of each record it merges; after reopening the bank the
// merged record holds exactly the proposal's record with every source's
// sentence, step and check (with the output it expects) folded in, the
// proposal's own trigger and confidence standing (issue 23 item 1).
func TestAcceptMergeProposalKeepsSources(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cand := proposalRecord(t, w.store, sample.PropMerge)
	a, b := *record(t, w.store, sample.RecRevenueHeadA), *record(t, w.store, sample.RecRevenueHeadB)
	if len(a.Checks) != 1 || len(b.Checks) != 1 || !a.Checks[0].HasBaseline() || !b.Checks[0].HasBaseline() ||
		len(a.Steps) != 3 || a.Steps[0] != cand.Steps[0] || !strings.Contains(b.Lemma, "LDS, MAN, BRS, EDI") {
		t.Fatalf("the sample changed: %+v / %+v", a, b)
	}

	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + sample.ProposalIDs[0])
	s.open(sample.PropMerge)
	warn := []string{"The proposal's record drops", a.ID + ": 1 sentence, 2 steps, 1 check;", "Accept keeps it all"}
	s.wait(func(all, _ []byte) bool { // printed with the proposal, which open waited for
		for _, w := range warn {
			if !bytes.Contains(all, []byte(w)) {
				return false
			}
		}
		return true
	}, fmt.Sprintf("%q", warn))
	s.typ("a")
	s.waitFor("accepted " + sample.PropMerge + " → mem_")
	s.quit()

	w.reopen(t)
	decs, err := w.store.Decisions()
	if err != nil || len(decs) != 1 || decs[0].Verb != review.Accept {
		t.Fatalf("decisions %+v (%v), want the accept", decs, err)
	}
	got := record(t, w.store, decs[0].Record.ID)
	var runs []string
	for _, id := range slices.Concat(cand.Provenance.ProbeRuns, a.Provenance.ProbeRuns, b.Provenance.ProbeRuns) {
		if !slices.Contains(runs, id) {
			runs = append(runs, id)
		}
	}
	want := review.Record{ID: got.ID,
		Lemma:    cand.Lemma + " " + a.Lemma + " " + b.Lemma,
		Category: cand.Category, Scope: cand.Scope, Trigger: cand.Trigger,
		Steps:      append(slices.Clone(cand.Steps), a.Steps[1:]...),
		Confidence: cand.Confidence, Priority: cand.Priority,
		Provenance: review.Provenance{Trajectory: cand.Provenance.Trajectory, Steps: cand.Provenance.Steps,
			ProbeRuns: runs, MergedFrom: []string{a.ID, b.ID}},
		Checks: slices.Concat(cand.Checks, a.Checks, b.Checks), Status: review.Active, Version: 1,
		Created: got.Created, Updated: got.Updated, VerifiedAgainst: got.VerifiedAgainst, Suspect: got.Suspect}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("accepted merge after reopen:\n got %+v\nwant %+v", *got, want)
	}
	for _, c := range got.Checks {
		if !c.HasBaseline() || c.Expect.Text == "" {
			t.Errorf("check %s: %s lost its expected output: %+v", c.Env, c.Input, c.Expect)
		}
	}
	for _, src := range []review.Record{a, b} {
		if r := record(t, w.store, src.ID); r.Status != review.Retired || r.Provenance.MergedInto != got.ID {
			t.Errorf("%s after the merge: %s, merged into %q", src.ID, r.Status, r.Provenance.MergedInto)
		}
	}
}
