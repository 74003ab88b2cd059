package trajs

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestCurateKey checks when c applies and what it does at once; the run's
// Cmd is never run, so no model server is needed.
func TestCurateKey(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	m := newScreen(t, deps)
	if m.Keys.Curate.Enabled() {
		t.Error("c is on without a curator")
	}
	if _, cmd := m.Update(uitest.Key("c")); cmd != nil {
		t.Error("c without a curator did something")
	}

	deps.Curator = common.NewCurator(curator.Settings{BaseURL: "http://127.0.0.1:1/v1"})
	deps.Curator.Consent() // the root's y to its question (ui/consent.go)
	m = newScreen(t, deps)
	sel := m.selected().ID
	if !m.Keys.Curate.Enabled() {
		t.Fatal("c is off on a trajectory")
	}
	if _, cmd := m.Update(uitest.Key("c")); cmd == nil {
		t.Fatal("c started nothing")
	}
	r := deps.Curator.Run()
	if !r.Running() || !r.Concerns(sel) || m.focus != paneDetail {
		t.Errorf("after c: run %+v, focus %d", r, m.focus)
	}
	v := ansi.Strip(m.View())
	for _, want := range []string{"Curator run " + r.ID + " · " + sel, "running…", "curating " + sel} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}
	_, cmd := m.Update(uitest.Key("c"))
	if st, ok := cmd().(common.Status); !ok || !strings.Contains(st.Text, "is still going") {
		t.Errorf("c during a run: %#v", cmd())
	}
	// The detail of another trajectory does not show the run.
	m.moveTo(m.cursor + 1)
	if v := ansi.Strip(m.pane.View()); strings.Contains(v, "Curator run") {
		t.Errorf("trajectory %s shows the run of %s:\n%s", m.selected().ID, sel, v)
	}
}
