package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
)

// TestBankUndoKeepsToItsOwnDecisions defers a proposal on the review
// screen, then retires a record on the bank screen and presses u twice
// there: the first u undoes the bank's retire; the second does not undo
// the review screen's defer but names it and asks, and n leaves it
// standing. After reopening the bank the defer stands and the retire is
// undone (issue 23 item 4).
func TestBankUndoKeepsToItsOwnDecisions(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := start(t, w.deps, 200, 60)
	pid := sample.ProposalIDs[0]
	s.waitFor("Candidate " + pid)
	s.typ("s")
	s.waitFor("deferred " + pid)

	s.send(common.ShowRecord{ID: sample.RecWrong})
	s.waitFor("Detail " + sample.RecWrong + " v1")
	s.typ("d")
	s.waitFor("retire " + sample.RecWrong)
	s.typ("y")
	s.waitFor(sample.RecWrong + " v2 (retired)")
	s.typ("u")
	s.waitFor("undid dec_0002")
	s.typ("u")
	s.waitFor("Undo dec_0001 (defer "+pid, "It was not made on the bank screen this session. y/n")
	s.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("n")})
	s.waitFor("nothing was undone")
	s.quit()

	w.reopen(t)
	ds, err := w.store.Decisions()
	if err != nil || len(ds) != 3 {
		t.Fatalf("decisions %+v (%v), want the defer, the retire and its undo", ds, err)
	}
	if ds[0].Verb != review.Defer || ds[0].UndoneBy != "" || ds[1].Verb != review.Delete || ds[1].UndoneBy != ds[2].ID {
		t.Errorf("decisions after the bank's two u: %+v", ds)
	}
	if p, _ := w.store.Proposal(pid); p.Status != review.Deferred {
		t.Errorf("%s is %s, want still deferred", pid, p.Status)
	}
	if r := record(t, w.store, sample.RecWrong); r.Status != review.Active {
		t.Errorf("%s is %s after its retire was undone", r.ID, r.Status)
	}
}

// TestReviewUndoAsksAboutTheBanksDecision: the review screen's u, with no
// decision of its own this session, names the bank's edit and undoes it
// only after y.
func TestReviewUndoAsksAboutTheBanksDecision(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + sample.ProposalIDs[0])
	s.send(common.ShowRecord{ID: sample.RecWrong})
	s.waitFor("Detail " + sample.RecWrong + " v1")
	s.typ("d")
	s.waitFor("retire " + sample.RecWrong)
	s.typ("y")
	s.waitFor(sample.RecWrong + " v2 (retired)")
	s.typ("1")
	s.typ("u")
	s.waitFor("Undo dec_0001 (delete " + sample.RecWrong + " by tester")
	s.typ("y")
	s.waitFor("undid dec_0001")
	s.quit()

	w.reopen(t)
	if r := record(t, w.store, sample.RecWrong); r.Status != review.Active {
		t.Errorf("%s is %s after y undid its retire", r.ID, r.Status)
	}
}
