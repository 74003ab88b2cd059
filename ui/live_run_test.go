package ui

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
)

var savedAs = regexp.MustCompile(`saved as (run_\d+)`)

// liveRunOf returns the run id the probes pane said p saved.
func liveRunOf(t *testing.T, out []byte) string {
	t.Helper()
	m := savedAs.FindSubmatch(out)
	if m == nil {
		t.Fatal("the probes pane did not say which run it saved")
	}
	return string(m[1])
}

// TestLiveRunSurvivesDefer: p's live run is saved on the proposal, so a
// deferred proposal that comes back, and the same proposal after the TUI
// is reopened, show its latest live result again.
func TestLiveRunSurvivesDefer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := start(t, w.deps, 200, 60)
	s.open(sample.PropTrajectoryOnly)
	s.typ("p")
	id := liveRunOf(t, s.waitFor("✘ now: fails now", "saved as run_"))
	queue, err := w.store.Queue()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(queue, func(p review.Proposal) bool { return p.ID == sample.PropTrajectoryOnly })
	if i < 0 || i+1 >= len(queue) {
		t.Fatalf("%s is not followed by another proposal in the queue", sample.PropTrajectoryOnly)
	}
	s.typ("s")
	// The screen moves on to the next proposal; asked back before it has,
	// it would keep the live result on screen (a refresh, not a reopen).
	s.waitFor("deferred "+sample.PropTrajectoryOnly, "Candidate "+queue[i+1].ID)
	// It comes back, from the end of the queue.
	s.send(common.ShowProposal{ID: sample.PropTrajectoryOnly})
	again := "✘ live " + id + " 2026-04-01 09:00: fails now"
	s.waitFor("Candidate "+sample.PropTrajectoryOnly, again, "no such table: attrs_g2")
	s.quit()

	w.reopen(t)
	s = start(t, w.deps, 200, 60)
	s.send(common.ShowProposal{ID: sample.PropTrajectoryOnly})
	s.waitFor("Candidate "+sample.PropTrajectoryOnly, again)
	s.quit()

	runs, err := w.store.ProbeRunsFor("proposal", sample.PropTrajectoryOnly)
	if err != nil {
		t.Fatal(err)
	}
	last := runs[len(runs)-1]
	if last.ID != id || last.Repeats != runs[0].ID || last.Actor != w.deps.Operator || last.Result.OK() {
		t.Fatalf("the saved live run is %+v; want %s repeating %s by %s, failing", last, id, runs[0].ID, w.deps.Operator)
	}
}

// TestAcceptTakesLiveBaselineInTheTUI: p then a writes the record with the
// live run's output as its check's expected result, and says so.
func TestAcceptTakesLiveBaselineInTheTUI(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := start(t, w.deps, 200, 60)
	s.open(sample.PropAcceptCreate)
	s.typ("p")
	id := liveRunOf(t, s.waitFor("✔ now: same", "saved as run_"))
	s.typ("a")
	s.waitFor("accepted "+sample.PropAcceptCreate+" → mem_", "check 1 baseline from live run "+id)
	s.quit()

	w.reopen(t)
	ds, err := w.store.ProposalDecisions(sample.PropAcceptCreate)
	if err != nil || len(ds) != 1 {
		t.Fatalf("decisions %+v, %v", ds, err)
	}
	rec, err := w.store.Record(ds[0].Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	run, err := w.store.ProbeRun(id)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(rec.Checks[0].Expect)
	want, _ := json.Marshal(run.Result)
	if len(rec.Checks) != 1 || string(got) != string(want) {
		t.Fatalf("the accepted record expects %s, want the live run's %s", got, want)
	}
	h, _ := w.store.History(rec.ID)
	if len(h) != 1 || !strings.Contains(h[0].Reason, "check 1 baseline from live run "+id) {
		t.Fatalf("history %+v does not say where the baseline came from", h)
	}
	if ds[0].Baselines[0] != (review.Baseline{Check: 1, Run: id}) {
		t.Fatalf("decision baselines %+v", ds[0].Baselines)
	}
}

// TestLiveRunIsNoNewProposal: the change a saved live run makes (evidence
// on a pending proposal) is not announced as "1 new proposal".
func TestLiveRunIsNoNewProposal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	svc := w.deps.Service
	seq, _ := svc.LastSeq()
	items, err := svc.LiveItems(sample.PropTrajectoryOnly)
	if err != nil || len(items) == 0 {
		t.Fatalf("live items %v, %v", items, err)
	}
	if _, err := svc.RunLive(context.Background(), sample.PropTrajectoryOnly, items[0], ""); err != nil {
		t.Fatal(err)
	}
	cs, err := svc.ChangesSince(seq)
	if err != nil || cs.Empty() {
		t.Fatalf("changes since the live run: %+v, %v", cs, err)
	}
	if got := describe(svc, cs, w.deps.Operator, &ownProposals{}); got != "" {
		t.Fatalf("the watcher says %q after a live run", got)
	}
}

// TestLiveRunNamesItsRunAt120: at 120 columns the probes pane is the
// right third of the screen; the line of p's verdict wraps so that the
// run it saved shows whole, never "saved as run_…" (issue 23 item 12).
func TestLiveRunNamesItsRunAt120(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := start(t, w.deps, 120, 40)
	s.open(sample.PropAcceptCreate)
	s.typ("p")
	s.waitFor("✔ now: same", "saved as")
	s.tm.Type("q")
	v := ansi.Strip(s.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).View())
	var pane []string // the probes pane's text, its lines joined
	for _, l := range strings.Split(v, "\n") {
		if ansi.StringWidth(l) == 120 {
			pane = append(pane, strings.Trim(ansi.Cut(l, 80, 120), "│ "))
		}
	}
	id := liveRunOf(t, []byte(strings.Join(pane, " ")))
	runs, err := w.store.ProbeRunsFor("proposal", sample.PropAcceptCreate)
	if err != nil || len(runs) == 0 || runs[len(runs)-1].ID != id {
		t.Errorf("the pane named %s; the proposal's runs are %+v (%v)", id, runs, err)
	}
}
