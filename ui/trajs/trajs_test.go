package trajs

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

func TestMain(m *testing.M) { uitest.Main(m) }

func newScreen(t *testing.T, deps common.Deps) *Model {
	m := New(common.NewCommon(), deps).(*Model)
	m.SetSize(150, 40)
	uitest.Drain(t, m, m.Init())
	return m
}

func TestFilters(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	all, err := deps.Service.Trajectories()
	if err != nil {
		t.Fatal(err)
	}
	m := newScreen(t, deps)
	if len(m.shown) != len(all) {
		t.Fatalf("shows %d of %d trajectories", len(m.shown), len(all))
	}
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "✔ 1.00") || !strings.Contains(v, "✘ 0.00") {
		t.Errorf("no outcome marks with rewards:\n%s", v)
	}
	pass, fail, envs := 0, 0, map[string]int{}
	for _, tr := range all {
		if tr.Outcome.Succeeded() {
			pass++
		}
		if tr.Outcome.Failed() {
			fail++
		}
		envs[tr.Env]++
	}
	uitest.Drain(t, m, func() tea.Msg { return uitest.Key("o") })
	if len(m.shown) != pass || !strings.Contains(m.Title(), "passed") {
		t.Errorf("outcome passed: %d shown, want %d (%s)", len(m.shown), pass, m.Title())
	}
	uitest.Drain(t, m, func() tea.Msg { return uitest.Key("o") })
	if len(m.shown) != fail {
		t.Errorf("outcome failed: %d shown, want %d", len(m.shown), fail)
	}
	uitest.Drain(t, m, func() tea.Msg { return uitest.Key("o") }) // no reward
	if !strings.Contains(m.Title(), "no reward") {
		t.Errorf("the third o is not the no-reward filter: %s", m.Title())
	}
	uitest.Drain(t, m, func() tea.Msg { return uitest.Key("o") }) // any again
	uitest.Drain(t, m, func() tea.Msg { return uitest.Key("f") })
	if len(m.shown) != envs[m.env] || m.env == "" {
		t.Errorf("env %q: %d shown, want %d", m.env, len(m.shown), envs[m.env])
	}
}

// TestOpenAtStep opens a trajectory at the step a record came from: the
// detail shows that step selected with the record under it, and enter
// opens the record.
func TestOpenAtStep(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	recs, err := deps.Service.Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var rec review.Record
	for _, r := range recs {
		if r.Provenance.Trajectory != "" && r.Provenance.Steps != nil {
			rec = r
			break
		}
	}
	m := newScreen(t, deps)
	step := rec.Provenance.Steps.From
	uitest.Drain(t, m, func() tea.Msg { return common.ShowTrajectory{ID: rec.Provenance.Trajectory, Step: step} })
	v := ansi.Strip(m.View())
	if !strings.Contains(v, fmt.Sprintf("Detail %s · step %d", rec.Provenance.Trajectory, step)) {
		t.Fatalf("not opened at the step:\n%s", v)
	}
	if !strings.Contains(v, fmt.Sprintf("▌%3d ", step)) || !strings.Contains(v, "↳ "+rec.ID) {
		t.Errorf("step %d is not selected on screen with %s under it:\n%s", step, rec.ID, v)
	}
	// The selected step's records show their lemmas, read when it was selected.
	if lead := strings.Fields(rec.Lemma); len(lead) < 2 || !strings.Contains(v, "↳ "+rec.ID+" "+lead[0]+" "+lead[1]) {
		t.Errorf("the selected step does not show %s's lemma %q:\n%s", rec.ID, rec.Lemma, v)
	}
	out := uitest.Drain(t, m, func() tea.Msg { return uitest.Key("enter") })
	found := false
	for _, msg := range out {
		if sr, ok := msg.(common.ShowRecord); ok && strings.HasPrefix(sr.ID, "mem_") {
			found = true
		}
	}
	if !found {
		t.Errorf("enter on step %d sent %v, want a ShowRecord", step, out)
	}
	uitest.Drain(t, m, func() tea.Msg { return uitest.Key("]") })
	if m.step != step+1 {
		t.Errorf("] moved to step %d, want %d", m.step, step+1)
	}
}

// TestNoMatchSaysSo: stacked with the detail shown, a search that matches
// nothing says so in the detail rather than leaving an empty frame.
func TestNoMatchSaysSo(t *testing.T) {
	t.Parallel()
	m := newScreen(t, uitest.OpenSample(t))
	m.SetSize(80, 24)
	m.Update(tea.KeyMsg{Type: tea.KeyTab})                           // the detail pane
	m.Update(searched{seq: m.search.Next(), ids: map[string]bool{}}) // a search that found nothing
	if v := ansi.Strip(m.View()); !strings.Contains(v, "No trajectory matches") {
		t.Fatalf("no match, stacked on the detail:\n%s", v)
	}
}

// TestBadQuerySaysSo: a query the index cannot read keeps the search box
// with the query as typed, says nothing was searched (naming the query),
// and leaves no earlier query's matches or detail on screen; clearing the
// query shows every trajectory again.
func TestBadQuerySaysSo(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	all, err := deps.Service.Trajectories()
	if err != nil {
		t.Fatal(err)
	}
	m := newScreen(t, deps)
	m.search.SetValue("Bluetooth")
	uitest.Drain(t, m, m.runSearch())
	if len(m.shown) == 0 || len(m.shown) == len(all) {
		t.Fatalf("Bluetooth shows %d of %d trajectories", len(m.shown), len(all))
	}
	hit := m.all[m.shown[0]].ID
	if v := ansi.Strip(m.View()); !strings.Contains(v, "Detail "+hit) {
		t.Fatalf("Bluetooth's first match %s is not in the detail:\n%s", hit, v)
	}
	typed := `Bluetooth "unterminated`
	m.search.SetValue(typed)
	uitest.Drain(t, m, m.runSearch())
	v := ansi.Strip(m.View())
	box, _, _ := strings.Cut(v, "\n")
	if !strings.Contains(box, typed) {
		t.Errorf("the search box does not show the query as typed: %q", box)
	}
	if !strings.Contains(v, "not searched: the query cannot be read") || !strings.Contains(v, `cannot parse query "Bluetooth \"unterminated"`) {
		t.Errorf("a query that cannot be read does not say so, naming it:\n%s", v)
	}
	if strings.Contains(v, hit) || len(m.shown) != 0 || !strings.Contains(m.Title(), "(bad query)") {
		t.Errorf("a query that cannot be read left %d matches (%s on screen: %v), title %q:\n%s", len(m.shown), hit, strings.Contains(v, hit), m.Title(), v)
	}
	m.search.SetValue("")
	uitest.Drain(t, m, m.runSearch())
	if len(m.shown) != len(all) || strings.Contains(m.Title(), "bad query") || strings.Contains(ansi.Strip(m.View()), "not searched") {
		t.Errorf("an empty query after a bad one shows %d of %d, title %q", len(m.shown), len(all), m.Title())
	}
}
