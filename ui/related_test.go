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

// TestRelatedPaneThroughTheProgram opens the stars proposal ("1 to 5 in
// every fdbk_gN table") in the real program, gives the candidate pane the
// screen (tab, z) and goes to its end (G): the Related section lists
// mem_0006 (fdbk_g3 is 1–10, with where it differs) and mem_0007 (g1 and
// g2 are 1–5), and not the "best brand" record that shares only common
// words with it.
func TestRelatedPaneThroughTheProgram(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + sample.ProposalIDs[0])
	s.open(sample.PropOvergeneral)
	s.send(tea.KeyMsg{Type: tea.KeyTab})
	s.typ("z")
	s.typ("G") // the end of the pane, where Related is
	s.waitFor("tab: next pane · z: all panes", "Related", sample.RecStarsG3+" overlap", "mem_0007 overlap", "it says fdbk_g3, 10")
	s.tm.Type("q")
	final := s.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	v := ansi.Strip(final.View())
	related := v[strings.Index(v, "Related"):]
	for _, want := range []string{sample.RecStarsG3 + " overlap", "mem_0007 overlap", "differs: it says fdbk_g3, 10", "m merges related records"} {
		if !strings.Contains(related, want) {
			t.Errorf("the Related section lacks %q:\n%s", want, related)
		}
	}
	if strings.Contains(related, "best brand") || strings.Contains(related, "mem_0011") {
		t.Errorf("the Related section lists the best-brand record:\n%s", related)
	}
}
