package ui

import (
	"bytes"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
)

// cursorLine is the merge picker's line under its cursor, printed whole.
var cursorLine = regexp.MustCompile(`▸\[[ x]\] \S+  `)

// moveTo presses down in the merge picker until its cursor is on id. Once
// the picker lists id (a search's results have come), it presses as soon
// as the cursor shows on another record; else after 1 s.
func (s *session) moveTo(id string) {
	s.t.Helper()
	buf := make([]byte, 64<<10)
	listed := false
	for range 20 {
		deadline := time.Now().Add(time.Second)
		for time.Now().Before(deadline) {
			n, _ := s.tm.Output().Read(buf)
			s.all = append(s.all, buf[:n]...)
			recent := s.all[s.seen:]
			if bytes.Contains(recent, []byte("▸[ ] "+id)) {
				s.seen = len(s.all)
				return
			}
			listed = listed || bytes.Contains(recent, []byte("[ ] "+id+"  "))
			if listed && cursorLine.Match(recent) {
				break // the cursor is on another record
			}
			time.Sleep(20 * time.Millisecond)
		}
		s.seen = len(s.all)
		s.typ("j")
	}
	s.t.Fatalf("the merge picker never put its cursor on %s", id)
}

// TestMergeEditorKeepsBothRecords merges, through the real program, the
// proposal about attrs_g2's split tables with the record that lists
// attrs_g2's columns as the editor combined them, then a second merge
// whose trigger the operator rewrote in the editor; after reopening the
// bank each merged record holds exactly what it should: both lemmas, the
// union of tags and checks, the operator's edit.
func TestMergeEditorKeepsBothRecords(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cand := proposalRecord(t, w.store, sample.PropAcceptCreate)
	cols := *record(t, w.store, sample.RecAttrsG2)
	if !strings.Contains(cols.Lemma, "color, weight_g, warranty_months, connectivity") || !strings.HasSuffix(cand.Lemma, ".") {
		t.Fatalf("the sample changed: %q / %q", cand.Lemma, cols.Lemma)
	}
	proc := *record(t, w.store, sample.RecWarrantyProc)
	mergeCand := proposalRecord(t, w.store, sample.PropMerge)
	revA, revB := *record(t, w.store, sample.RecRevenueHeadA), *record(t, w.store, sample.RecRevenueHeadB)

	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + sample.ProposalIDs[0])

	// 1. As combined: the editor shows both lemmas; enter commits.
	s.open(sample.PropAcceptCreate)
	s.typ("m")
	s.moveTo(cols.ID)
	s.typ(" ")
	s.waitFor("▸[x] " + cols.ID)
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("Merge "+sample.PropAcceptCreate+": the combined record", "- retire "+cols.ID+": attrs_g2 holds", "checks 1, 2 keep their expected output")
	s.send(tea.KeyMsg{Type: tea.KeyCtrlS})
	s.waitFor("merged " + sample.PropAcceptCreate + " → mem_")

	// 2. Edited: the warranty procedure folded into the revenue pair's
	// merge, its trigger rewritten by the operator.
	s.open(sample.PropMerge)
	s.typ("m")
	s.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	s.typ("warranty")
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.moveTo(proc.ID)
	s.typ(" ")
	s.waitFor("▸[x] " + proc.ID)
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("Merge " + sample.PropMerge + ": the combined record")
	s.send(tea.KeyMsg{Type: tea.KeyTab}) // the trigger field
	s.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	s.typ("Revenue per head, or warranty prices")
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("merged " + sample.PropMerge + " → mem_")
	s.quit()

	w.reopen(t)
	decs, err := w.store.Decisions()
	if err != nil || len(decs) != 2 {
		t.Fatalf("decisions %d (%v), want the two merges", len(decs), err)
	}

	got := record(t, w.store, decs[0].Record.ID)
	want := review.Record{ID: got.ID, Lemma: cand.Lemma + " " + cols.Lemma, Category: cand.Category,
		Scope:   review.Scope{Env: "shop", Tags: []string{"g2", "attributes", "join"}, TaskFamily: cand.Scope.TaskFamily},
		Trigger: cand.Trigger + " Or: " + cols.Trigger, Confidence: max(cand.Confidence, cols.Confidence), Priority: max(cand.Priority, cols.Priority),
		Provenance: review.Provenance{Trajectory: cand.Provenance.Trajectory, Steps: cand.Provenance.Steps,
			ProbeRuns: cand.Provenance.ProbeRuns, MergedFrom: []string{cols.ID}},
		Checks: slices.Concat(cand.Checks, cols.Checks), Status: review.Active, Version: 1,
		Created: got.Created, Updated: got.Updated, VerifiedAgainst: got.VerifiedAgainst, Suspect: got.Suspect}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("merged record as combined:\n got %+v\nwant %+v", *got, want)
	}
	if r := record(t, w.store, cols.ID); r.Status != review.Retired || r.Provenance.MergedInto != got.ID {
		t.Errorf("%s after the merge: %s, merged into %q", cols.ID, r.Status, r.Provenance.MergedInto)
	}

	edited := record(t, w.store, decs[1].Record.ID)
	var tags []string
	for _, tg := range slices.Concat(mergeCand.Scope.Tags, proc.Scope.Tags) {
		if !slices.Contains(tags, tg) {
			tags = append(tags, tg)
		}
	}
	// The merge proposal's editor starts from its record with its targets'
	// content folded in (issue 23 item 1): their lemmas, mem_0017's steps
	// the proposal's do not say, both checks.
	switch {
	case edited.Lemma != mergeCand.Lemma+" "+revA.Lemma+" "+revB.Lemma+" "+proc.Lemma:
		t.Errorf("edited merge's lemma %q, want the proposal's, its targets', then the procedure's", edited.Lemma)
	case edited.Trigger != "Revenue per head, or warranty prices":
		t.Errorf("edited merge's trigger %q, want the operator's", edited.Trigger)
	case !slices.Equal(edited.Steps, slices.Concat(mergeCand.Steps, revA.Steps[1:], proc.Steps)):
		t.Errorf("edited merge's steps %q", edited.Steps)
	case !slices.Equal(edited.Scope.Tags, tags):
		t.Errorf("edited merge's tags %q, want %q", edited.Scope.Tags, tags)
	case !reflect.DeepEqual(edited.Checks, slices.Concat(mergeCand.Checks, revA.Checks, revB.Checks, proc.Checks)):
		t.Errorf("edited merge's checks %+v", edited.Checks)
	case !slices.Equal(edited.Provenance.MergedFrom, []string{sample.RecRevenueHeadA, sample.RecRevenueHeadB, proc.ID}):
		t.Errorf("edited merge's merged_from %q", edited.Provenance.MergedFrom)
	}
}

func proposalRecord(t *testing.T, s *store.Store, id string) review.Record {
	t.Helper()
	p, err := s.Proposal(id)
	if err != nil || p.Record == nil {
		t.Fatalf("proposal %s: %v", id, err)
	}
	return *p.Record
}
