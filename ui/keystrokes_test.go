package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// TestDecideWithANoteInOneStep: A opens the note and accepts with it on
// enter; R rejects the next with its note; esc in R's note decides
// nothing. After reopening, each decision carries its note (issue 23
// item 15).
func TestDecideWithANoteInOneStep(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	first, second := sample.ProposalIDs[0], sample.ProposalIDs[1]
	s := start(t, w.deps, 120, 40)
	s.waitFor("Candidate " + first)
	s.typ("A")
	s.waitFor("Accept " + first + " with this note")
	s.typ("checked by hand")
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("accepted " + first)
	s.open(second)
	s.typ("R")
	s.waitFor("Reject " + second + " with this note")
	s.send(tea.KeyMsg{Type: tea.KeyEsc})
	s.waitFor("reject " + second + " not applied")
	s.typ("R")
	s.waitFor("Reject " + second + " with this note")
	s.typ("duplicate")
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("rejected " + second)
	s.quit()

	w.reopen(t)
	ds, err := w.store.Decisions()
	if err != nil || len(ds) != 2 {
		t.Fatalf("decisions %+v (%v), want two", ds, err)
	}
	if ds[0].Verb != review.Accept || ds[0].Proposal != first || ds[0].Note != "checked by hand" ||
		ds[1].Verb != review.Reject || ds[1].Proposal != second || ds[1].Note != "duplicate" {
		t.Errorf("decisions: %+v", ds)
	}
}

// TestFormJumpKeys: in the edit form alt+7 goes to the checks, six tabs
// away, and alt+1 back to the lemma; the form names the keys.
func TestFormJumpKeys(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	pid := sample.ProposalIDs[0]
	s := start(t, w.deps, 120, 40)
	s.waitFor("Candidate " + pid)
	s.typ("e")
	s.waitFor("Edit "+pid, "alt+7 checks")
	s.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("7"), Alt: true})
	s.waitFor("▸ checks")
	s.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("1"), Alt: true})
	s.waitFor("▸ lemma")
	s.send(tea.KeyMsg{Type: tea.KeyEsc})
	s.waitFor("Candidate " + pid)
	s.quit()
}
