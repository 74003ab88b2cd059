package queue

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/ui/common"
)

// TestCurateKey checks when c applies and what it does at once; the run's
// Cmd is never run, so no model server is needed.
func TestCurateKey(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	c := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("c")}
	if m.Keys.Curate.Enabled() {
		t.Error("c is on without a curator")
	}
	if _, cmd := m.Update(c); cmd != nil {
		t.Error("c without a curator did something")
	}

	m.deps.Curator = common.NewCurator(curator.Settings{BaseURL: "http://127.0.0.1:1/v1"})
	m.deps.Curator.Consent() // the root's y to its question (ui/consent.go)
	m.enableKeys()
	if !m.Keys.Curate.Enabled() {
		t.Fatal("c is off on a proposal with a trajectory")
	}
	traj := m.cur.P.Trajectory
	if _, cmd := m.Update(c); cmd == nil {
		t.Fatal("c started nothing")
	}
	r := m.deps.Curator.Run()
	if !r.Running() || !r.Concerns(traj) || m.panes.Focus() != paneProbes {
		t.Errorf("after c: run %+v, focus %d", r, m.panes.Focus())
	}
	if probes := ansi.Strip(strings.Join(m.panes.Body(paneProbes).Lines(), "\n")); !strings.Contains(probes, "Curator run "+r.ID+" · "+traj) {
		t.Errorf("the probes pane does not show the run:\n%s", probes)
	}

	_, cmd := m.Update(c)
	if st, ok := cmd().(common.Status); !ok || !strings.Contains(st.Text, r.ID+" on "+traj+" is still going") {
		t.Errorf("c during a run: %#v", cmd())
	}

	// Another proposal shows the run while it is going, one without a
	// trajectory cannot start one.
	m.queue[m.pos].Trajectory = ""
	m.enableKeys()
	if m.Keys.Curate.Enabled() {
		t.Error("c is on for a proposal without a trajectory")
	}
}
