package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestOutcomesWithoutAReward adds a run whose format gave no outcome and
// one whose outcome is not a reward, both retrieving the cents record:
// the trajectories screen shows "? unknown" and the value, never a fail;
// the outcome filter's "failed" leaves them out and "no reward" lists
// them; the bank's detail of the record shows them as unknown and its
// worth counts them apart (issue 23 item 11).
func TestOutcomesWithoutAReward(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	at := time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC)
	run := func(id, task string, o review.Outcome) review.Trajectory {
		return review.Trajectory{ID: id, Env: "shop", Task: task, Outcome: o, Retrieved: []string{sample.RecCentsA},
			Steps: []review.Step{{Role: "user", Content: task}, {Role: "assistant", Content: "done"}}, Started: at, Ended: at.Add(time.Minute)}
	}
	if err := w.store.PutTrajectories([]review.Trajectory{
		run("traj_nooutcome", "Zebra task with no outcome at all", review.Outcome{Kind: review.OutcomeUnknown}),
		run("traj_value", "Zebra task that ended as submitted", review.Outcome{Kind: review.OutcomeValue, Value: "submitted"}),
	}); err != nil {
		t.Fatal(err)
	}
	m := started(t, w.deps, 200, 60)
	m = drive(t, m, uitest.Key("4"))
	v := ansi.Strip(m.View())
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, "Zebra task") && (strings.Contains(l, "✘") || strings.Contains(l, "0.00")) {
			t.Errorf("a run without a reward shows as failed: %q", l)
		}
	}
	if !strings.Contains(v, "? unknown") || !strings.Contains(v, "• submit") || !strings.Contains(v, "Zebra task with no outcome") {
		t.Errorf("the runs' outcomes do not show as unknown and the value:\n%s", v)
	}
	m = drive(t, m, uitest.Key("o"))
	m = drive(t, m, uitest.Key("o")) // passed, failed
	if v := ansi.Strip(m.View()); !strings.Contains(v, "5/20 · failed") || strings.Contains(v, "Zebra") {
		t.Errorf("the failed filter lists a run that did not fail:\n%s", v)
	}
	m = drive(t, m, uitest.Key("o"))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "2/20 · no reward") || !strings.Contains(v, "Zebra task with no outcome") || !strings.Contains(v, "Zebra task that ended") {
		t.Errorf("the no-reward filter:\n%s", v)
	}
	m = drive(t, m, common.ShowRecord{ID: sample.RecCentsA})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "2 without a reward") || !regexp.MustCompile(`\? unknown\s+traj_nooutcome Zebra`).MatchString(v) {
		t.Errorf("the bank's detail of %s:\n%s", sample.RecCentsA, v)
	}
}
