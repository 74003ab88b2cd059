package bank_test

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestRefreshKeepsTheFocusElsewhere: a change made elsewhere reloads the
// bank's detail while the review screen shows a proposal; the reload of
// the record already shown does not take the console's attach target
// back from that proposal (TestThroughTheProgram saw the console attach
// to the record when its own attach's change landed after the switch).
func TestRefreshKeepsTheFocusElsewhere(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	queue, err := deps.Service.Queue()
	if err != nil || len(queue) == 0 {
		t.Fatalf("queue: %v", err)
	}
	first := queue[0].ID
	tm := uitest.Start(t, ui.New(deps), 180, 50)
	uitest.WaitFor(t, tm, "Candidate "+first)
	tm.Type("2")
	uitest.WaitFor(t, tm, "Detail mem_")
	tm.Type("3")
	uitest.WaitFor(t, tm, "attach → record mem_")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	tm.Send(common.ShowProposal{ID: first})
	uitest.WaitFor(t, tm, "Candidate "+first)
	tm.Send(common.BankChanged{From: "elsewhere"}) // the bank reloads its detail, hidden
	tm.Type("3")
	uitest.WaitFor(t, tm, "attach → proposal "+first)
	if uitest.Shows(tm, 500*time.Millisecond, "attach → record") {
		t.Fatal("the bank's reload took the attach target back to its record")
	}
}
