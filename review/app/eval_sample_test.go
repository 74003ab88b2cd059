package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/sample"
)

// evalSettings points the task agent at a scripted server.
func evalSettings(baseURL string) app.CuratorSettings {
	return app.CuratorSettings{BaseURL: baseURL, Model: "drift-agent", MaxRetries: -1, HTTPTimeout: 5 * time.Second}
}

func sampleTasks(t *testing.T, svc *app.Service) (string, []review.Task) {
	t.Helper()
	path := filepath.Join(svc.Info().Dir, sample.TasksPath)
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path, sample.Tasks()
}

// passSpan is a condition's pass rate over tasks from..to of the
// sequence, as "passed/graded".
func passSpan(rep *app.EvalReport, cond string, from, to int) string {
	passed, graded := 0, 0
	for _, tr := range rep.Runs {
		if tr.Condition == cond && tr.Index >= from && tr.Index <= to && tr.Status != app.EvalUngradable {
			graded++
			if tr.Status == app.EvalPassed {
				passed++
			}
		}
	}
	return fmt.Sprintf("%d/%d", passed, graded)
}

// The sample world's story, replayed: memory beats no memory after the
// drift only once the stale records are replaced and retired, and the
// decision that accepts a stale record shows as regressing the tasks that
// retrieve it.
func TestEvalSampleDrift(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	ctx := context.Background()
	path, tasks := sampleTasks(t, svc)
	srv := driftAgent(t, tasks)

	// The operator curates the stale records: the three updates to the
	// migrated schema are accepted, the stale connectivity record retired,
	// the trajectory-only optimisation rejected.
	for _, p := range []string{sample.PropConflictUpdate, sample.PropUpdate, sample.PropUpdateProc} {
		if _, err := svc.Decide(ctx, review.DecideRequest{Proposal: p, Verb: review.Accept}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.DecideRecords(ctx, review.RecordRequest{Verb: review.Delete, IDs: []string{sample.RecConnectivity}, Note: "attrs_g2 was split"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Decide(ctx, review.DecideRequest{Proposal: sample.PropOptimise, Verb: review.Reject}); err != nil {
		t.Fatal(err)
	}
	// Then a stale record slips in: the trajectory-only proposal (its
	// join uses attrs_g2, which the migration split) is accepted.
	stale, err := svc.Decide(ctx, review.DecideRequest{Proposal: sample.PropTrajectoryOnly, Verb: review.Accept})
	if err != nil {
		t.Fatal(err)
	}
	// The bank as generated: every sample record was written by the end
	// of March 2026 (the sample world's clock), the decisions above now.
	generated := "bank@2026-04-01"
	rep, err := svc.Eval(ctx, app.EvalRequest{TasksFile: path, Conditions: []string{"none", generated, "bank"},
		Decisions: []string{stale.ID}, Settings: evalSettings(srv.BaseURL()), EvalRun: app.EvalRun{Jobs: 4}})
	if err != nil {
		t.Fatal(err)
	}
	before, after := "bank@before:"+stale.ID, "bank@"+stale.ID
	for _, row := range rep.ByIndex {
		var b strings.Builder
		for _, c := range rep.Plan.Conditions {
			fmt.Fprintf(&b, " %.0f", row.Pass[c])
		}
		t.Logf("%2d %s%s", row.Index, row.Task, b.String())
	}
	want := []struct{ cond, pre, post string }{
		// No memory guesses the old schema: the three tasks on g3's
		// 1–10 stars fail before the drift, and everything after it.
		{"none", "17/20", "0/20"},
		// The bank as generated knows the star scale (mem_0006), so it
		// beats no memory before the drift, but its stale records send
		// every task after the drift to ref_id and attrs_g2.
		{generated, "20/20", "0/20"},
		// Curated — the stale records replaced or retired — memory wins
		// after the drift too.
		{before, "20/20", "20/20"},
		// The accepted stale record loses one task it ranks first for.
		{after, "20/20", "19/20"},
		{"bank", "20/20", "19/20"},
	}
	for _, w := range want {
		pre, post := passSpan(rep, w.cond, 1, sample.DriftAfter), passSpan(rep, w.cond, sample.DriftAfter+1, 40)
		if pre != w.pre || post != w.post {
			t.Errorf("%s: before the drift %s, after %s; want %s and %s", w.cond, pre, post, w.pre, w.post)
		}
	}
	if len(rep.Decisions) != 1 {
		t.Fatalf("decision effects: %+v, want the stale accept's", rep.Decisions)
	}
	d := rep.Decisions[0]
	if d.Decision != stale.ID || len(d.Recovered) != 0 || strings.Join(d.Regressed, ",") != "shop-28" || d.Records[0] != stale.Record.ID {
		t.Errorf("the stale accept: %s (records %v, regressed %v)", d.String(), d.Records, d.Regressed)
	}
	// Attribution by retrieval is correlational: mem_0006 is credited
	// with the three g3 scale tasks it decided, and with a task after the
	// drift that the fresh records decided beside it.
	if e := rep.Records[sample.RecStarsG3]; e == nil || strings.Join(e.Helped, ",") != "shop-05,shop-10,shop-18,shop-27" || len(e.Hurt) != 0 {
		t.Errorf("mem_0006 (g3's 1–10 stars): %+v, helped %v", e, e.Helped)
	}
	if e := rep.Records[stale.Record.ID]; e == nil || strings.Join(e.Hurt, ",") != "" || len(e.Tasks) == 0 {
		// Under bank against none the stale record hurts nothing: no
		// memory fails those tasks as well.
		t.Errorf("%s under bank against none: %+v", stale.Record.ID, e)
	}
	// The decision's line reaches the record's history, as an operator
	// reads it.
	re, err := svc.RecordEval(stale.Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(re.Decisions) != 1 || !strings.Contains(re.Decisions[0].String(), "accept recovered 0 tasks, regressed 1") {
		t.Errorf("the record's eval: %+v", re)
	}
}
