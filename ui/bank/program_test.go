package bank_test

import (
	"bytes"
	"io"
	"log"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui"
	"github.com/memreview/memreview/ui/bank"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/console"
	"github.com/memreview/memreview/ui/trajs"
)

// TestThroughTheProgram drives the real root (ui.New) with the three
// screens registered as ui/REQUESTS-issue6.md asks: bank → provenance →
// trajectories, then a console probe attached to the proposal the review
// screen shows, which the review screen then lists.
func TestThroughTheProgram(t *testing.T) {
	saved := map[int]ui.Constructor{}
	for n, c := range ui.Screens {
		saved[n] = c
	}
	ui.Screens[2], ui.Screens[3], ui.Screens[4] = bank.New, console.New, trajs.New
	t.Cleanup(func() {
		for n, c := range saved {
			ui.Screens[n] = c
		}
	})

	dir := t.TempDir()
	if err := sample.Generate(dir, sample.Seed); err != nil {
		t.Fatal(err)
	}
	s, err := review.Open(dir, review.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(filepath.Join(dir, review.IndexDir), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close(); s.Close() })
	deps := common.Deps{Store: s, Index: ix, BankName: "sample", IsSample: true, Operator: "tester",
		Log: log.New(io.Discard, "", 0)}
	queue, err := s.Queue()
	if err != nil || len(queue) == 0 {
		t.Fatalf("queue: %v", err)
	}
	first := queue[0].ID
	res, err := ix.Search(index.Request{Type: "record", Sort: []string{"_id"}, Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Record(res.Hits[0].ID)
	if err != nil || rec.Provenance.Steps == nil {
		t.Fatalf("first record %v has no provenance steps: %v", rec, err)
	}

	tm := teatest.NewTestModel(t, ui.New(deps), teatest.WithInitialTermSize(180, 50))
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	})
	wait(t, tm, "Candidate "+first)

	tm.Type("2")
	wait(t, tm, "Detail "+rec.ID+" v1")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait(t, tm, "Detail "+rec.Provenance.Trajectory+" · step ", "↳ "+rec.ID)

	tm.Type("3")
	wait(t, tm, "[shop sql]", "attach → proposal "+first)
	tm.Type("SELECT COUNT(*) AS n_attached FROM items_g1")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait(t, tm, "✔ 1 rows")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a"), Alt: true})
	wait(t, tm, "attached run_")
	runs, err := s.ProbeRunsFor("proposal", first)
	if err != nil || len(runs) == 0 || runs[len(runs)-1].Result.Input != "SELECT COUNT(*) AS n_attached FROM items_g1" {
		t.Fatalf("the proposal's runs do not end with the attached one: %+v, %v", runs, err)
	}
	runID := runs[len(runs)-1].ID
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	tm.Send(common.ShowProposal{ID: first})
	wait(t, tm, "Candidate "+first, runID)
}

func wait(t *testing.T, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	var seen []byte
	buf := make([]byte, 64<<10)
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		n, _ := tm.Output().Read(buf)
		seen = append(seen, buf[:n]...)
		all := true
		for _, s := range texts {
			all = all && bytes.Contains(seen, []byte(s))
		}
		if all {
			return
		}
	}
	tail := ansi.Strip(string(seen))
	if len(tail) > 4000 {
		tail = tail[len(tail)-4000:]
	}
	t.Fatalf("the program did not print %q within 15s; it printed:\n%s", texts, tail)
}
