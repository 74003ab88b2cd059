package ui

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// The record forms through the real program: multi-line lemma and steps,
// the checks as a list, validation before save, ctrl+s to save.

var (
	ctrlS    = tea.KeyMsg{Type: tea.KeyCtrlS}
	ctrlU    = tea.KeyMsg{Type: tea.KeyCtrlU}
	ctrlK    = tea.KeyMsg{Type: tea.KeyCtrlK}
	newLine  = tea.KeyMsg{Type: tea.KeyEnter}
	tab      = tea.KeyMsg{Type: tea.KeyTab}
	inputTop = tea.KeyMsg{Type: tea.KeyCtrlHome}
)

// longLemma is two lines, the first longer than the form is wide at 80
// columns, so it wraps over several rows.
const (
	longLemma1 = "To count reviewed electronics with a given connectivity, join fdbk_g2 to items_g2 on ref_id and attrs_g2 on item_id, then count distinct item ids; fdbk_g1 has no attrs table at all."
	longLemma2 = "Checked by hand on 2026-04-01."
)

// lastDecision is the newest decision in the store.
func lastDecision(t *testing.T, s *store.Store) review.Decision {
	t.Helper()
	decs, err := s.Decisions()
	if err != nil || len(decs) == 0 {
		t.Fatalf("decisions: %d, %v", len(decs), err)
	}
	return decs[len(decs)-1]
}

// TestEditFormMultiLine edits, in the review screen's edit form at 80x24,
// a long two-line lemma, the step list (the first step deleted, one
// added) and the checks (the one check's input edited, which the form
// says drops its expected output, and a second check added), saves with
// ctrl+s, and finds exactly that record after reopening the bank.
//
// Saving runs the checks that have no expected output live (issue 23 item
// 2): the added one, which holds, takes its result as its baseline and
// the footer says so; the edited one fails now (the sample's attrs_g2 was
// split since) and keeps none, which the footer says too. Then verify
// reports the first as "same" and the second as "no baseline", never
// "changed", and the record is not suspect.
func TestEditFormMultiLine(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	pid := sample.ProposalIDs[0]
	cand := proposalRecord(t, w.store, pid)
	if len(cand.Steps) < 2 || len(cand.Checks) != 1 || cand.Checks[0].Expect.Env == "" {
		t.Fatalf("the sample changed: %s has %d steps and %d checks", pid, len(cand.Steps), len(cand.Checks))
	}
	const added = "SELECT COUNT(*) FROM attrs_g2_core"
	s := start(t, w.deps, 80, 24)
	s.waitFor("CREATE  "+pid, "Trajectory traj_") // the pane's title names it once the proposal has loaded: e waits for that
	s.typ("e")
	s.waitFor("Edit "+pid, "check 1 keeps its expected output")
	s.send(ctrlU) // the lemma is one line, the cursor at its end
	s.typ(longLemma1)
	s.send(newLine)
	s.typ(longLemma2)
	for range 5 { // trigger, tags, category, confidence, steps
		s.send(tab)
	}
	s.waitFor("▸ steps")
	s.send(newLine) // a step at the end
	s.typ("report the count per connectivity")
	s.send(inputTop) // the first step: its text, then its line break
	s.send(ctrlK)
	s.send(ctrlK)
	s.send(tab)
	s.typ(" LIMIT 1")
	s.waitFor("check 1: new or edited input: saving runs it live")
	s.send(newLine)
	s.typ("shop: " + added)
	s.send(ctrlS)
	s.waitFor("edited "+pid+" → mem_", "check 1 has no baseline") // 80 columns cut the footer after it
	s.quit()

	w.reopen(t)
	dec := lastDecision(t, w.store)
	if dec.Verb != review.Edit || dec.Proposal != pid {
		t.Fatalf("last decision %s on %s, want edit on %s", dec.Verb, dec.Proposal, pid)
	}
	got := record(t, w.store, dec.Record.ID)
	if len(dec.Baselines) != 1 || dec.Baselines[0].Check != 2 || !slices.Equal(dec.NoBaseline, []int{1}) {
		t.Fatalf("decision baselines %+v, no baseline %v; want check 2 from a live run, check 1 none", dec.Baselines, dec.NoBaseline)
	}
	run, err := w.store.ProbeRun(dec.Baselines[0].Run)
	if err != nil || run.Result.Input != added || !run.Result.OK() || len(run.Result.Rows) != 1 {
		t.Fatalf("the baseline's run %s: %+v, %v", dec.Baselines[0].Run, run, err)
	}
	want := cand.Clone()
	want.Lemma = longLemma1 + "\n" + longLemma2
	want.Steps = append(slices.Clone(cand.Steps[1:]), "report the count per connectivity")
	want.Checks = []review.Check{{Env: cand.Checks[0].Env, Input: cand.Checks[0].Input + " LIMIT 1"}, {Env: "shop", Input: added, Expect: run.Result}}
	want.Provenance.ProbeRuns = append(slices.Clone(cand.Provenance.ProbeRuns), run.ID)
	want.ID, want.Status, want.Version, want.Created, want.Updated = got.ID, review.Active, 1, got.Created, got.Updated
	want.VerifiedAgainst, want.Suspect = got.VerifiedAgainst, got.Suspect
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("edited record after reopen:\n got %+v\nwant %+v", *got, want)
	}

	results, err := w.deps.Service.Verify(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	var verdicts []probe.Verdict
	for _, r := range results {
		if r.RecordID == got.ID {
			verdicts = append(verdicts, r.Verdict)
		}
	}
	if !slices.Equal(verdicts, []probe.Verdict{probe.NoBaseline, probe.Same}) {
		t.Errorf("verify of %s: %v, want no baseline for the check that failed at save and same for the one baselined", got.ID, verdicts)
	}
	if r := record(t, w.store, got.ID); r.Suspect {
		t.Errorf("%s is suspect after verify", got.ID)
	}
}

// TestEditRefusesEmptyLemma: an emptied lemma is flagged under the field
// as soon as it is empty, ctrl+s is refused with the reason, and esc
// closes the form with nothing written.
func TestEditRefusesEmptyLemma(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	pid := sample.PropUpdate
	s := start(t, w.deps, 120, 40)
	s.waitFor("Candidate " + sample.ProposalIDs[0])
	s.open(pid)
	s.typ("e")
	s.waitFor("Edit " + pid)
	s.send(ctrlU)
	s.waitFor("! the lemma is empty")
	s.send(ctrlS)
	s.waitFor("not saved: lemma: the lemma is empty")
	s.send(tea.KeyMsg{Type: tea.KeyEsc})
	s.waitFor("Candidate " + pid)
	s.quit()

	w.reopen(t)
	if decs, err := w.store.Decisions(); err != nil || len(decs) != 0 {
		t.Fatalf("decisions after a refused save: %d (%v), want none", len(decs), err)
	}
	if p, err := w.store.Proposal(pid); err != nil || p.Status != review.Pending {
		t.Fatalf("%s after a refused save: %+v, %v", pid, p, err)
	}
}

// TestMergeEditorMultiLine merges, through the real program, the first
// proposal with the record on attrs_g2.connectivity, the operator adding
// a second lemma line, dropping the last step and the source's check in
// the merge editor (which then says the source's check is gone); after
// reopening the merged record is exactly the combined one with those
// edits, the candidate's check keeping its expected output.
func TestMergeEditorMultiLine(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	pid := sample.ProposalIDs[0]
	cand := proposalRecord(t, w.store, pid)
	cols := *record(t, w.store, sample.RecConnectivity)
	combined := review.Combine(cand, cols)
	if len(combined.Steps) < 2 || len(cols.Checks) != 1 || len(combined.Checks) != len(cand.Checks)+1 {
		t.Fatalf("the sample changed: merging %s with %s keeps %d steps and %d checks", pid, cols.ID, len(combined.Steps), len(combined.Checks))
	}

	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + pid)
	s.typ("m")
	s.moveTo(cols.ID)
	s.typ(" ")
	s.waitFor("▸[x] " + cols.ID)
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("Merge " + pid + ": the combined record")
	s.send(newLine)
	s.typ(longLemma2)
	for range 5 {
		s.send(tab)
	}
	// The last step, then the last check (the source's): the text, then
	// the line break before it.
	s.send(ctrlU)
	s.send(tea.KeyMsg{Type: tea.KeyBackspace})
	s.send(tab)
	s.send(ctrlU)
	s.send(tea.KeyMsg{Type: tea.KeyBackspace})
	s.waitFor("! drops 1 of " + cols.ID + "'s 1 checks")
	s.send(ctrlS)
	s.waitFor("merged " + pid + " → mem_")
	s.quit()

	w.reopen(t)
	dec := lastDecision(t, w.store)
	got := record(t, w.store, dec.Record.ID)
	want := combined.Clone()
	want.Lemma = combined.Lemma + "\n" + longLemma2
	want.Steps = combined.Steps[:len(combined.Steps)-1]
	want.Checks = combined.Checks[:len(combined.Checks)-1]
	want.ID, want.Version, want.Created, want.Updated = got.ID, 1, got.Created, got.Updated
	want.Provenance.MergedFrom = []string{cols.ID}
	want.VerifiedAgainst, want.Suspect = got.VerifiedAgainst, got.Suspect
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("merged record after reopen:\n got %+v\nwant %+v", *got, want)
	}
	if !strings.Contains(got.Lemma, cols.Lemma) || got.Checks[0].Expect.Env == "" {
		t.Errorf("the merged record lost %s's lemma or the candidate's expected output: %+v", cols.ID, got)
	}
}

// TestFormKeysListed opens the edit form on the review and bank screens
// and moves through its fields: no key in the footer means two things,
// and ? (the screen's full help) lists every key the footer shows.
func TestFormKeysListed(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 200, 60).(*Model)
	for _, scr := range []string{"1", "2"} {
		m = drive(t, m, uitest.Key(scr)).(*Model)
		m = drive(t, m, uitest.Key("e")).(*Model)
		s := m.screens[m.active]
		if !strings.Contains(ansi.Strip(m.View()), "Edit ") {
			t.Fatalf("screen %s: e opened no form:\n%s", scr, ansi.Strip(m.View()))
		}
		listed := map[string]bool{}
		for _, g := range s.(common.FullHelper).FullHelp() {
			for _, b := range g {
				for _, k := range b.Keys() {
					listed[k] = true
				}
			}
		}
		for range 7 { // every field, the multi-line and the one-line ones
			seen := map[string]string{}
			for _, b := range s.ShortHelp() {
				for _, k := range b.Keys() {
					if !listed[k] {
						t.Errorf("screen %s: the form's footer shows %q (%s) but ? does not list it", scr, k, b.Help().Desc)
					}
					if prev, ok := seen[k]; ok && prev != b.Help().Desc {
						t.Errorf("screen %s: key %q is both %q and %q in the form", scr, k, prev, b.Help().Desc)
					}
					seen[k] = b.Help().Desc
				}
			}
			m = drive(t, m, tab).(*Model)
		}
		m = drive(t, m, uitest.Key("esc")).(*Model)
	}
}
