package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/memreview/memreview/sample"
)

// TestProbeOutputSidewaysAndInFull opens the split-tables update in the
// real program at 200x60, where its probe's CREATE TABLE texts are wider
// than the probes pane: the pane shows the table's left part and says so;
// → (l) on the focused pane scrolls it until the end of attrs_g2_ext's
// definition shows; enter shows every cell whole ("sql: CREATE TABLE
// attrs_g2_ext (…)" in full), and esc goes back to the panes.
func TestProbeOutputSidewaysAndInFull(t *testing.T) {
	w := newWorld(t)
	runs, err := w.store.ProbeRunsFor("proposal", sample.PropUpdate)
	if err != nil || len(runs) != 1 || len(runs[0].Result.Rows) != 2 {
		t.Fatalf("probe runs of %s: %+v %v", sample.PropUpdate, runs, err)
	}
	ext, _ := runs[0].Result.Rows[1][1].(string) // the sql column of attrs_g2_ext
	if !strings.HasPrefix(ext, "CREATE TABLE attrs_g2_ext (") || len(ext) < 100 {
		t.Fatalf("the probe's second row is %q, want attrs_g2_ext's long definition", ext)
	}
	tail := ext[len(ext)-30:] // "…, connectivity TEXT)"

	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + sample.ProposalIDs[0])
	s.open(sample.PropUpdate)
	s.send(tea.KeyMsg{Type: tea.KeyTab})
	s.send(tea.KeyMsg{Type: tea.KeyTab}) // the probes pane
	first := ansi.Strip(string(s.waitFor("← → scroll · columns 1–2 of 2 shown (in part)", "enter full text")))
	if strings.Contains(first, tail) {
		t.Fatalf("the pane already shows the end of the definition; the test needs it cut:\n%s", first)
	}
	s.typ("lll") // three half-panes: the right edge of the widest line
	s.waitFor(tail, "‹ sql", "column 2 of 2 shown (in part)")

	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("Probes of "+sample.PropUpdate+" in full", "sql: "+ext)
	s.send(tea.KeyMsg{Type: tea.KeyEsc})
	s.waitFor("Trajectory traj_13")
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("Probes of " + sample.PropUpdate + " in full")
	s.tm.Type("q")
	final := s.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	v := ansi.Strip(final.View())
	for _, want := range []string{"row 2", "name: attrs_g2_ext", "sql: " + ext, "$ " + runs[0].Result.Input} {
		if !strings.Contains(v, want) {
			t.Errorf("the full text lacks %q:\n%s", want, v)
		}
	}
}

// TestConsoleRowsInFull runs the same probe in the probe console at 80x24,
// where the table cuts the definitions: the footer offers ctrl+o, which
// (while the input still has the focus) shows every row's cells in full,
// wrapped; ctrl+o again brings the table back.
func TestConsoleRowsInFull(t *testing.T) {
	w := newWorld(t)
	runs, err := w.store.ProbeRunsFor("proposal", sample.PropUpdate)
	if err != nil || len(runs) != 1 || len(runs[0].Result.Rows) != 2 {
		t.Fatalf("probe runs of %s: %+v %v", sample.PropUpdate, runs, err)
	}
	ext, _ := runs[0].Result.Rows[1][1].(string)

	s := start(t, w.deps, 80, 24)
	s.waitFor("Review 1/")
	s.typ("3")
	s.waitFor("Type a probe")
	s.typ(runs[0].Result.Input)
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("✔ 2 rows", "CREATE TABLE attrs_g2_ext", "(2 rows · ctrl+o: every cell in full)")
	s.send(tea.KeyMsg{Type: tea.KeyCtrlO})
	s.waitFor("row 2", "name: attrs_g2_ext", "(2 rows · ctrl+o: the table)")
	s.send(tea.KeyMsg{Type: tea.KeyCtrlO})
	s.waitFor("(2 rows · ctrl+o: every cell in full)")
	s.send(tea.KeyMsg{Type: tea.KeyCtrlO})
	s.waitFor("(2 rows · ctrl+o: the table)")
	s.send(tea.KeyMsg{Type: tea.KeyCtrlC}) // q would be typed
	final := s.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	v := ansi.Strip(final.View())
	// The definition wrapped under "sql: ", joined again, is whole.
	_, after, _ := strings.Cut(v, "name: attrs_g2_ext")
	_, after, _ = strings.Cut(after, "\n")
	var parts []string
	for _, l := range strings.Split(after, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "(2 rows") {
			break
		}
		parts = append(parts, l)
	}
	if got := strings.Join(parts, " "); got != "sql: "+ext {
		t.Errorf("the second row's sql in full reads %q, want %q:\n%s", got, "sql: "+ext, v)
	}
}
