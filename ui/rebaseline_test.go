package ui

import (
	"context"
	"encoding/json"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
)

// suspectRecord gives the overgeneral record a check expectation the shop
// no longer gives (its count is off by one) and verifies it: the record is
// suspect with a check that changed but still runs.
func suspectRecord(t *testing.T, w *world) *review.Record {
	t.Helper()
	ctx := context.Background()
	r, err := w.store.Record(sample.RecOvergeneral)
	if err != nil || len(r.Checks) != 1 || len(r.Checks[0].Expect.Rows) != 1 {
		t.Fatalf("%s: %+v, %v", sample.RecOvergeneral, r, err)
	}
	off := r.Clone()
	off.Checks[0].Expect.Rows = [][]any{{float64(1), float64(1)}}
	if _, err := w.deps.Service.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, IDs: []string{r.ID}, Record: &off}); err != nil {
		t.Fatal(err)
	}
	if v, err := w.deps.Service.VerifyRecord(ctx, r.ID, 0); err != nil || v.Held() != 0 {
		t.Fatalf("verify: %+v, %v; want the check to fail", v, err)
	}
	r, _ = w.store.Record(r.ID)
	if !r.Suspect {
		t.Fatal("the record is not suspect")
	}
	return r
}

// TestRebaselineInTheBank: on a suspect record, b shows what the check
// expects and what verify got, y writes the next version with verify's
// output as the expected result (a person's edit, with N's note), and the
// record is no longer suspect, there and after the bank is reopened.
func TestRebaselineInTheBank(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := suspectRecord(t, w)
	results, _ := w.store.CheckResults(r.ID)

	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + sample.ProposalIDs[0])
	s.send(common.ShowRecord{ID: r.ID})
	s.waitFor("⚠ suspect", "· b re-baselines")
	s.typ("N")
	s.typ("counted by hand")
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("note: counted by hand")
	s.typ("b")
	s.waitFor("Re-baseline "+r.ID+" v2", "expects", "now (2026-04-01 09:00)")
	s.typ("y")
	s.waitFor("re-baseline dec_", r.ID+" v3")
	s.quit()

	w.reopen(t)
	got, err := w.store.Record(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(results[0].Now)
	have, _ := json.Marshal(got.Checks[0].Expect)
	if got.Version != 3 || got.Suspect || string(have) != string(want) {
		t.Fatalf("after b: v%d suspect=%v expects %s; want v3, not suspect, expecting %s", got.Version, got.Suspect, have, want)
	}
	h, _ := w.store.History(r.ID)
	last := h[len(h)-1]
	if last.Reason != "re-baseline check 1 from the verify of 2026-04-01 09:00; counted by hand" || last.Actor != w.deps.Operator || last.Op != "edit" {
		t.Fatalf("history v3 = %+v", last)
	}
	if v, _ := w.deps.Service.VerifyRecord(context.Background(), r.ID, 0); v.Held() != 1 {
		t.Fatalf("the check does not hold after re-baselining: %+v", v.Results)
	}
}

// TestNoteOnABankVerb: N then a bank verb (delete): the note is the
// reason in the record's history and the decision's note.
func TestNoteOnABankVerb(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + sample.ProposalIDs[0])
	s.send(common.ShowRecord{ID: sample.RecWrong})
	s.waitFor("Bank 1 record", "Detail "+sample.RecWrong+" v1") // d waits for the detail
	s.typ("N")
	s.typ("prices are in cents")
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("note: prices are in cents")
	s.typ("d")
	s.waitFor("retire " + sample.RecWrong)
	s.typ("y")
	s.waitFor(sample.RecWrong + " v2 (retired)")
	s.quit()

	w.reopen(t)
	h, _ := w.store.History(sample.RecWrong)
	last := h[len(h)-1]
	if last.Op != "retire" || last.Reason != "prices are in cents" {
		t.Fatalf("history %+v: want the retire with the note", last)
	}
	ds, _ := w.store.Decisions()
	if d := ds[len(ds)-1]; d.Note != "prices are in cents" || d.Verb != review.Delete {
		t.Fatalf("the decision is %+v", d)
	}
}

// TestRebaselineSaysWhy: b on a record whose check fails outright (the
// sample's attrs_g2 record: the table was split) says why it cannot
// re-baseline and what does apply, instead of nothing (issue 23 item 5).
func TestRebaselineSaysWhy(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + sample.ProposalIDs[0])
	s.send(common.ShowRecord{ID: sample.RecAttrsG2})
	s.waitFor("Detail " + sample.RecAttrsG2 + " v1")
	s.typ("b") // the sample's last verify found it failing
	s.waitFor("b: check 1 fails now (query failed:", ": a failing probe gives no baseline; e edits the check, d retires the record")
	s.quit()
	if ds, _ := w.store.Decisions(); len(ds) != 0 {
		t.Errorf("b on a failing check wrote %d decisions", len(ds))
	}
}

// TestRebaselineACheckWithoutBaseline: an imported record whose check has
// no expected output verifies as "no baseline" (not suspect); b's question
// says it expects nothing yet and shows what the check returns now; y
// takes that as its baseline, and the next verify finds it the same.
func TestRebaselineACheckWithoutBaseline(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	rec := review.Record{ID: "mem_9001", Lemma: "catalog_groups has one row per product group.", Category: review.Fact,
		Scope: review.Scope{Env: "shop"}, Confidence: 0.8, Status: review.Active,
		Checks: []review.Check{{Env: "shop", Input: "SELECT COUNT(*) AS n FROM catalog_groups"}}}
	if err := w.store.PutRecords([]review.Record{rec}, "import", "test"); err != nil {
		t.Fatal(err)
	}
	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + sample.ProposalIDs[0])
	s.send(common.ShowRecord{ID: rec.ID})
	s.waitFor("Detail " + rec.ID + " v1")
	s.typ("v")
	s.waitFor("? no baseline to compare with", "1 had no baseline to compare with (b takes the result now as one)")
	s.typ("b")
	s.waitFor("expects nothing yet: the check has no baseline", "now (2026-04-01 09:00)")
	s.typ("y")
	s.waitFor("re-baseline dec_", rec.ID+" v2")
	s.quit()

	w.reopen(t)
	got := record(t, w.store, rec.ID)
	if got.Suspect || len(got.Checks) != 1 || !got.Checks[0].HasBaseline() || len(got.Checks[0].Expect.Rows) != 1 {
		t.Fatalf("after b: %+v", got)
	}
	if v, err := w.deps.Service.VerifyRecord(context.Background(), rec.ID, 0); err != nil || v.Held() != 1 {
		t.Fatalf("the check does not hold after b: %+v, %v", v.Results, err)
	}
}
