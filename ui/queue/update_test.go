package queue

import (
	"io"
	"log"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// loaded returns the review screen on a fresh sample world with the queue
// and the first proposal's context loaded (without an index: its service
// has none).
func loaded(t *testing.T) *Model {
	t.Helper()
	s, err := store.Open(uitest.SampleDir(t), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := app.New(s, app.Options{Operator: "tester",
		OpenIndex: func() (app.Index, error) { return nil, app.ErrNoIndex }})
	t.Cleanup(func() { svc.Close() })
	deps := common.Deps{Service: svc, Operator: "tester", Log: log.New(io.Discard, "", 0)}
	m := New(common.NewCommon(), deps).(*Model)
	m.SetSize(200, 50)
	settle(t, m, m.Init())
	if !m.ready() {
		t.Fatal("the first proposal did not load")
	}
	return m
}

// settle runs cmd and the Cmds its messages lead to (uitest.Drain:
// heartbeats dropped, debounces fired at once).
func settle(t testing.TB, m *Model, cmd tea.Cmd) { uitest.Drain(t, m, cmd) }

func TestStaleResultsAreDropped(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	first := m.cur.P.ID

	// A context load the operator has moved past is dropped.
	oldSeq := m.curSeq
	settle(t, m, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("]")} })
	second := m.cur.P.ID
	if second == first {
		t.Fatalf("] did not move on from %s", first)
	}
	m.Update(contextLoaded{seq: oldSeq, pid: first, ctx: &proposalContext{P: &review.Proposal{ID: first}}})
	if m.cur.P.ID != second {
		t.Errorf("a stale context of %s replaced %s", first, second)
	}

	// A probe result for another proposal, or an earlier re-run, is dropped.
	m.probes = []liveProbe{{}}
	m.probeSeq = 42
	m.Update(probeDone{pid: first, seq: 42, idx: 0, run: review.ProbeRun{Result: probe.Result{Error: "boom"}}})
	m.Update(probeDone{pid: second, seq: 41, idx: 0, run: review.ProbeRun{Result: probe.Result{Error: "boom"}}})
	if m.probes[0].done {
		t.Error("a stale probe result was shown")
	}
	m.Update(probeDone{pid: second, seq: 42, idx: 0, run: review.ProbeRun{Result: probe.Result{Error: "boom"}}})
	if !m.probes[0].done {
		t.Error("the current probe result was dropped")
	}

	// A queue load older than the latest request is dropped.
	n := len(m.queue)
	m.Update(queueLoaded{seq: m.queueSeq - 1})
	if len(m.queue) != n || m.loadErr != nil {
		t.Error("a stale queue load replaced the queue")
	}
}

func TestKeysFollowTheProposal(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	cases := []struct {
		id                   string
		del, merge, probeKey bool
	}{
		{sample.PropTrajectoryOnly, false, true, true}, // create: nothing to delete
		{sample.PropDelete, true, false, true},         // delete: no record to merge
		{sample.PropSkip, false, false, false},         // skip: nothing but accept/reject
	}
	for _, c := range cases {
		settle(t, m, m.reloadQueue(c.id))
		k := m.Keys
		if m.cur.P.ID != c.id || k.Delete.Enabled() != c.del || k.Merge.Enabled() != c.merge || k.Probe.Enabled() != c.probeKey {
			t.Errorf("%s: delete %v merge %v probe %v; want %v %v %v", m.cur.P.ID,
				k.Delete.Enabled(), k.Merge.Enabled(), k.Probe.Enabled(), c.del, c.merge, c.probeKey)
		}
	}
}

func TestFilter(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	press := func(keys ...tea.KeyMsg) {
		for _, k := range keys {
			settle(t, m, func() tea.Msg { return k })
		}
	}
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	press(runes("f"))
	// op row: any → create → delete → merge (sorted).
	press(runes("l"), runes("l"), runes("l"), tea.KeyMsg{Type: tea.KeyEnter})
	if got := m.Title(); got != "Review 1/1 · op=merge" {
		t.Fatalf("title after filtering by merge: %q", got)
	}
	if m.cur.P.ID != sample.PropMerge {
		t.Errorf("shown %s, want %s", m.cur.P.ID, sample.PropMerge)
	}
	if !m.Keys.NextPane.Enabled() {
		t.Error("tab is hidden while panes are shown")
	}
	// env row: any → docs → shop; no merge proposal is about shop.
	press(runes("f"), runes("j"), runes("l"), runes("l"), tea.KeyMsg{Type: tea.KeyEnter})
	if got := m.Title(); got != "Review 0/0 · op=merge env=shop" {
		t.Fatalf("title after filtering by merge and shop: %q", got)
	}
	if m.Keys.NextPane.Enabled() {
		t.Error("the footer offers tab to switch panes while no pane is shown")
	}
}

func TestWheelScrollsThePaneUnderThePointer(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	settle(t, m, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("t")} }) // raw steps: a long trajectory
	m.panes.Body(paneTrajectory).GotoTop()
	m.panes.SetFocus(paneProbes)
	wheel := tea.MouseMsg{X: 5, Y: 10, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress}
	m.Update(wheel)
	if m.panes.Focus() != paneTrajectory || m.panes.Body(paneTrajectory).YOffset() != 3 {
		t.Fatalf("wheel over the trajectory: focus %d, offset %d", m.panes.Focus(), m.panes.Body(paneTrajectory).YOffset())
	}
	wheel.Button = tea.MouseButtonWheelUp
	m.Update(wheel)
	if m.panes.Body(paneTrajectory).YOffset() != 0 {
		t.Fatalf("wheel up: offset %d", m.panes.Body(paneTrajectory).YOffset())
	}
	// j and k scroll the focused pane.
	settle(t, m, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")} })
	if m.panes.Body(paneTrajectory).YOffset() != 1 {
		t.Fatalf("j: offset %d", m.panes.Body(paneTrajectory).YOffset())
	}
}

func TestEditFormValidates(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	settle(t, m, m.reloadQueue(sample.PropUpdate))
	key := func(k tea.KeyMsg) { settle(t, m, func() tea.Msg { return k }) }
	key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("e")})
	f, ok := m.overlay.(*editForm)
	if !ok || !m.Capturing() {
		t.Fatalf("e opened %T, capturing %v", m.overlay, m.Capturing())
	}
	// Go to the confidence field and type a value out of range.
	for range 4 {
		key(tea.KeyMsg{Type: tea.KeyTab})
	}
	key(tea.KeyMsg{Type: tea.KeyCtrlU})
	key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2")})
	key(tea.KeyMsg{Type: tea.KeyEnter})
	if m.overlay == nil || f.Err() == "" {
		t.Fatal("a confidence of 2 was accepted")
	}
	key(tea.KeyMsg{Type: tea.KeyCtrlU})
	key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("0.5")})
	key(tea.KeyMsg{Type: tea.KeyEnter})
	if m.overlay != nil {
		t.Fatalf("the form stayed open: %s", f.Err())
	}
	r, err := m.deps.Service.Record(sample.RecAttrsG2)
	if err != nil || r.Confidence != 0.5 || r.Version != 2 {
		t.Fatalf("%s after edit: %+v %v", sample.RecAttrsG2, r, err)
	}
}

// TestAttachedEvidenceShows attaches a console run to the shown proposal:
// the probes pane lists it without leaving the proposal, and a run
// attached to another proposal changes nothing.
func TestAttachedEvidenceShows(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	pid, before := m.cur.P.ID, len(m.cur.Runs)
	s := m.deps.Service
	id, err := s.AttachRun(review.ProbeRun{Result: probe.Result{Env: "shop", Kind: probe.KindSQL,
		Input: "SELECT 41+1", Columns: []string{"41+1"}, Rows: [][]any{{42}}}, At: s.Now(), Actor: "tester"}, "proposal", pid, "tester")
	if err != nil {
		t.Fatal(err)
	}
	settle(t, m, func() tea.Msg {
		return common.EvidenceAttached{Target: common.Focus{Kind: "proposal", ID: "prop_other"}, Run: id}
	})
	if len(m.cur.Runs) != before {
		t.Fatalf("a run attached to another proposal reloaded %s", pid)
	}
	settle(t, m, func() tea.Msg {
		return common.EvidenceAttached{Target: common.Focus{Kind: "proposal", ID: pid}, Run: id}
	})
	if !m.ready() || m.cur.P.ID != pid || len(m.cur.Runs) != before+1 {
		t.Fatalf("after attaching %s to %s: %d runs shown, want %d", id, pid, len(m.cur.Runs), before+1)
	}
	if pane := strings.Join(m.panes.Body(paneProbes).Lines(), "\n"); !strings.Contains(pane, id) || !strings.Contains(pane, "SELECT 41+1") {
		t.Errorf("the probes pane does not show the attached run %s:\n%s", id, pane)
	}
}

// TestMovedOnWhileDeciding: the operator rejects one proposal and moves to
// the next before the decision commits; the reload that follows stays on
// the proposal they moved to instead of skipping past it.
func TestMovedOnWhileDeciding(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	first := m.cur.P.ID
	_, decide := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("r")})
	if decide == nil || m.busy == "" {
		t.Fatal("r did not start a decision")
	}
	settle(t, m, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("]")} })
	second := m.cur.P.ID
	if second == first {
		t.Fatal("] did not move on while the decision was in flight")
	}
	settle(t, m, decide)
	if p := m.current(); p == nil || p.ID != second {
		shown := "nothing"
		if p != nil {
			shown = p.ID
		}
		t.Fatalf("after %s committed the screen shows %s, want %s (where the operator was)", first, shown, second)
	}
	if got, err := m.deps.Service.Proposal(first); err != nil || got.Status.Open() {
		t.Fatalf("%s after the reject: %v %v", first, got.Status, err)
	}
}

// press types s and returns the Cmd it starts, not run.
func press(m *Model, s string) tea.Cmd {
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)})
	return cmd
}

// TestAcceptDeleteAsks: a on a delete proposal asks the y/n question d
// asks, as every destructive decision does; n leaves the bank as it was,
// y accepts it and retires the target.
func TestAcceptDeleteAsks(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	settle(t, m, m.reloadQueue(sample.PropDelete))
	if !m.ready() || m.cur.P.ID != sample.PropDelete {
		t.Fatalf("%s did not load", sample.PropDelete)
	}
	target := m.cur.P.TargetIDs()[0]
	active := func() bool {
		r, err := m.deps.Service.Record(target)
		if err != nil {
			t.Fatal(err)
		}
		return r.Status == review.Active
	}
	if cmd := press(m, "a"); cmd != nil || m.busy != "" {
		t.Fatal("a on a delete proposal decided without asking")
	}
	c, ok := m.overlay.(*confirmDelete)
	if !ok || !strings.Contains(m.View(), "Delete: retire "+target) {
		t.Fatalf("a on a delete proposal opened %T, not the delete question:\n%s", m.overlay, m.View())
	}
	if c.verb != review.Accept {
		t.Errorf("the question would decide %q, want accept", c.verb)
	}
	settle(t, m, press(m, "n"))
	if m.overlay != nil || !active() {
		t.Fatalf("n: overlay %T, %s active %v", m.overlay, target, active())
	}
	press(m, "a")
	settle(t, m, press(m, "y"))
	if active() {
		t.Fatalf("y did not retire %s", target)
	}
	p, err := m.deps.Service.Proposal(sample.PropDelete)
	if err != nil || p.Status != review.Accepted {
		t.Fatalf("%s after y: %v %v, want accepted", sample.PropDelete, p.Status, err)
	}
}

// TestVerbsWaitForTheReload: between a decision's commit and the queue
// reload it starts, the decided proposal is still on screen; its verbs are
// off (and out of the help) so a quick second key cannot decide it again.
func TestVerbsWaitForTheReload(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	first := m.cur.P.ID
	decide := press(m, "a")
	if decide == nil || m.busy == "" || m.Keys.Accept.Enabled() {
		t.Fatalf("a did not start a decision with the verbs off (busy %q)", m.busy)
	}
	_, reload := m.Update(decide()) // committed; the reload has not landed
	if m.busy != "" || m.cur == nil || m.cur.P.ID != first {
		t.Fatalf("after the commit: busy %q, shown %v; want %s still shown", m.busy, m.cur, first)
	}
	k := m.Keys
	for _, b := range []key.Binding{k.Accept, k.Reject, k.Defer, k.Narrow, k.Edit, k.Merge, k.Delete} {
		if b.Enabled() {
			t.Errorf("%s is enabled before the reload", b.Help().Key)
		}
	}
	for _, b := range m.ShortHelp() {
		if b.Enabled() && b.Help().Key == "a" {
			t.Error("the help offers a before the reload")
		}
	}
	cmd := press(m, "a")
	if m.busy != "" {
		t.Fatal("a second a before the reload started another decision")
	}
	if cmd == nil {
		t.Fatal("a second a before the reload vanished without a word")
	}
	if st, ok := cmd().(common.Status); !ok || !strings.Contains(st.Text, "accept not applied: the queue is reloading") {
		t.Fatalf("a second a before the reload said %v, want that it was not applied", st)
	}
	settle(t, m, reload)
	if !m.ready() || m.cur.P.ID == first || !m.Keys.Accept.Enabled() {
		t.Fatalf("after the reload: shown %v, accept enabled %v", m.cur, m.Keys.Accept.Enabled())
	}
	if p, err := m.deps.Service.Proposal(first); err != nil || p.Status != review.Accepted {
		t.Fatalf("%s: %v %v, want accepted once", first, p.Status, err)
	}
}

// TestUndoNothingSaysSo: u with no decision to undo says so in one
// sentence, not "undo failed: undo: …".
func TestUndoNothingSaysSo(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	undo := press(m, "u")
	_, status := m.Update(undo())
	st, ok := status().(common.Status)
	if !ok || !st.Err || st.Text != "there is no decision to undo" {
		t.Fatalf("u on a bank with no decision: %#v", st)
	}
}

// TestCandidateTextIsPrintable: a record whose lemma has a newline and an
// escape sequence shows them escaped, inside the pane's lines, in the diff.
func TestCandidateTextIsPrintable(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	settle(t, m, m.reloadQueue(sample.PropUpdate))
	m.cur.P.Record.Lemma = "first line\nsecond \x1b[31mred"
	m.cur.P.Record.Trigger = "when\r\x07"
	m.render()
	pane := strings.Join(m.panes.Body(paneCandidate).Lines(), "\n")
	if strings.ContainsAny(pane, "\x1b\x07\r") {
		t.Fatalf("the candidate pane passes control characters through:\n%q", pane)
	}
	for _, want := range []string{"+ lemma: first line", `second \x1b[31mred`, `trigger: when\x0d\x07`} {
		if !strings.Contains(pane, want) {
			t.Errorf("the candidate pane lacks %q:\n%s", want, pane)
		}
	}
	for i, l := range m.panes.Body(paneCandidate).Lines() {
		if w := ansi.StringWidth(l); w != m.panes.Body(paneCandidate).Width() {
			t.Errorf("line %d is %d wide, want %d: %q", i, w, m.panes.Body(paneCandidate).Width(), l)
		}
	}
}

// TestTableColumnsWiden: the probes pane's table gives a column its
// content's width; a pane narrower shows a window of it (←/→ scroll).
func TestTableColumnsWiden(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 60)
	widest := func(w int) int {
		text, _ := probeTable(common.DefaultStyles(), []string{"id", "note"}, [][]any{{1, long}}, w, 0)
		lines := strings.Split(text, "\n")
		return ansi.StringWidth(lines[2]) // the row: "1  │ xxx…"
	}
	lead := ansi.StringWidth("1  │ ")
	if got := widest(40); got != 40 {
		t.Errorf("at 40 columns the row is %d wide, want it cut to the pane", got)
	}
	if got := widest(150); got != lead+60 {
		t.Errorf("at 150 columns the row is %d wide, want the whole note (%d)", got, lead+60)
	}
}

// TestProbeRunsChecks: p on a proposal whose record has checks but no
// probe runs runs the checks live and compares them with what they expect.
func TestProbeRunsChecks(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	rec := m.cur.P.Record.Clone()
	rec.Checks = []review.Check{{Env: "shop", Input: "SELECT 1 AS one",
		Expect: probe.Result{Kind: "sql", Columns: []string{"one"}, Rows: [][]any{{int64(2)}}}}}
	m.cur.P.Record, m.cur.Runs = &rec, nil
	m.enableKeys()
	if !m.Keys.Probe.Enabled() {
		t.Fatal("p is off on a proposal with a check")
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("p")})
	settle(t, m, cmd)
	if len(m.probes) != 1 || !m.probes[0].done || m.probes[0].verdict == probe.Same {
		t.Fatalf("the check did not run live against its expectation: %+v", m.probes)
	}
	if pane := ansi.Strip(strings.Join(m.panes.Body(paneProbes).Lines(), "\n")); !strings.Contains(pane, "check 1 of the record") {
		t.Errorf("the probes pane does not show the check:\n%s", pane)
	}
}

// Stacked (below 120 columns), a proposal that names no trajectory (as
// hygiene's do) opens on its candidate pane, not on "This proposal names no
// trajectory."; one with a trajectory still opens on it.
func TestNoTrajectoryOpensOnTheCandidate(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	m.SetSize(80, 24)
	withTraj := m.current().ID
	ps := []review.Proposal{{Op: review.OpCreate, Rationale: "no run behind it",
		Record: &review.Record{Lemma: "prices are in cents", Category: review.Fact, Confidence: 0.5}}}
	if err := m.deps.Service.AddProposals(ps, nil); err != nil {
		t.Fatal(err)
	}
	settle(t, m, m.reloadQueue(withTraj))
	if m.panes.Focus() != paneTrajectory {
		t.Fatalf("focus = %d on %s, which has a trajectory; want the trajectory pane", m.panes.Focus(), withTraj)
	}
	_, cmd := m.Update(common.ShowProposal{ID: ps[0].ID})
	settle(t, m, cmd)
	if m.current().ID != ps[0].ID || m.panes.Focus() != paneCandidate || !strings.Contains(m.View(), "[Candidate]") {
		t.Fatalf("showing %s: focus = %d, want the candidate pane:\n%s", ps[0].ID, m.panes.Focus(), m.View())
	}
}
