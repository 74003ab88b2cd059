package bank_test

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestThroughTheProgram drives the real root (ui.New): bank → provenance →
// trajectories, then a console probe attached to the record the bank
// showed, then to the proposal the review screen shows, which the review
// screen then lists.
func TestThroughTheProgram(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	s, ix := deps.Service, deps.Service
	queue, err := s.Queue()
	if err != nil || len(queue) == 0 {
		t.Fatalf("queue: %v", err)
	}
	first := queue[0].ID
	res, err := ix.Search(app.SearchRequest{Type: "record", Sort: []string{"_id"}, Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Record(res.Hits[0].ID)
	if err != nil || rec.Provenance.Steps == nil {
		t.Fatalf("first record %v has no provenance steps: %v", rec, err)
	}

	tm := uitest.Start(t, ui.New(deps), 180, 50)
	uitest.WaitFor(t, tm, "Candidate "+first)

	tm.Type("2")
	uitest.WaitFor(t, tm, "Detail "+rec.ID+" v1")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	uitest.WaitFor(t, tm, "Detail "+rec.Provenance.Trajectory+" · step ", "↳ "+rec.ID)

	// The console attaches to the record the bank showed last, then, once
	// the review screen shows a proposal again, to that proposal.
	tm.Type("3")
	uitest.WaitFor(t, tm, "[shop sql]", "attach → record "+rec.ID)
	const q = "SELECT COUNT(*) AS n_attached FROM items_g1"
	tm.Type(q)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	uitest.WaitFor(t, tm, "✔ 1 row ·")
	altA := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a"), Alt: true}
	tm.Send(altA)
	uitest.WaitFor(t, tm, "attached run_", "to record "+rec.ID)
	lastRun := func(kind, id string) string {
		t.Helper()
		runs, err := s.ProbeRunsFor(kind, id)
		if err != nil || len(runs) == 0 || runs[len(runs)-1].Result.Input != q {
			t.Fatalf("the runs of %s %s do not end with the attached one: %+v, %v", kind, id, runs, err)
		}
		return runs[len(runs)-1].ID
	}
	lastRun("record", rec.ID)

	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	tm.Send(common.ShowProposal{ID: first})
	uitest.WaitFor(t, tm, "Candidate "+first)
	tm.Type("3")
	uitest.WaitFor(t, tm, "attach → proposal "+first)
	tm.Type("A") // the input is blurred: A attaches
	uitest.WaitFor(t, tm, "attached run_", "to proposal "+first)
	runID := lastRun("proposal", first)
	tm.Send(common.ShowProposal{ID: first})
	uitest.WaitFor(t, tm, "Candidate "+first, runID)
}
