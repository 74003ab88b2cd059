package app_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/formats"
	"github.com/memreview/memreview/sample"
)

// A task set with a malformed line is refused with file, line and field
// before anything runs: no model call, no run folder.
func TestEvalRefusesBadTasks(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	srv := llmtest.New(t)
	good := `{"id":"a","env":"shop","text":"How many?","grading":{"probe":"SELECT COUNT(*) FROM items_g1"}}`
	for _, c := range []struct{ line, field string }{
		{`{"id":"b","env":"shop","text":"x"}`, "grading"},
		{`{"id":"b","env":"attic","text":"x","grading":{"expect":"1"}}`, "env"},
		{`{"id":"a","env":"shop","text":"x","grading":{"expect":"1"}}`, "id"},
	} {
		_, err := svc.Eval(context.Background(), app.EvalRequest{TasksFile: "set.jsonl", Tasks: strings.NewReader(good + "\n" + c.line + "\n"),
			Settings: evalSettings(srv.BaseURL())})
		var ie *app.InputError
		if !errors.As(err, &ie) || ie.File != "set.jsonl" || ie.Line != 2 || ie.Field != c.field {
			t.Fatalf("%s: got %v, want set.jsonl:2 field %q", c.line, err, c.field)
		}
	}
	if _, err := svc.Eval(context.Background(), app.EvalRequest{TasksFile: "set.jsonl", Tasks: strings.NewReader(good), Conditions: []string{"bank@nowhere"},
		Settings: evalSettings(srv.BaseURL())}); err == nil || !strings.Contains(err.Error(), "no decision") {
		t.Fatalf("an unknown decision: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model was called %d times", n)
	}
	if _, err := os.Stat(filepath.Join(svc.Info().Dir, "evals")); !os.IsNotExist(err) {
		t.Fatalf("a refused eval left a run folder behind (%v)", err)
	}
}

// A grading probe that would write is refused like every probe: the task
// is ungradable, and the database is unchanged.
func TestEvalGradingProbeReadOnly(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	db := filepath.Join(svc.Info().Dir, sample.ShopPath)
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.Calls(llmtest.Call{Name: "answer", Args: `{"answer":"0"}`}))
	set := `{"id":"w","env":"shop","text":"Empty the items table.","grading":{"probe":"DELETE FROM items_g1"}}`
	rep, err := svc.Eval(context.Background(), app.EvalRequest{TasksFile: "w.jsonl", Tasks: strings.NewReader(set), Conditions: []string{"none"},
		Settings: evalSettings(srv.BaseURL())})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Status != app.EvalUngradable || rep.Conditions[0].Ungradable != 1 {
		t.Fatalf("the writing grading probe: %+v", rep.Runs)
	}
	after, err := os.ReadFile(db)
	if err != nil || !bytes.Equal(before, after) {
		t.Fatal("the shop database changed")
	}
}

// Without a model server named, eval refuses rather than call a hosted
// API.
func TestEvalNeedsAnEndpoint(t *testing.T) {
	svc := sampleService(t, app.Options{})
	t.Setenv("OPENAI_BASE_URL", "")
	if _, err := svc.EvalSettings(""); err == nil || !strings.Contains(err.Error(), "no model server is configured") {
		t.Fatalf("EvalSettings with no endpoint: %v", err)
	}
	t.Setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
	set, err := svc.EvalSettings("qwen3")
	if err != nil || set.BaseURL != "http://localhost:11434/v1" || set.Model != "qwen3" {
		t.Fatalf("EvalSettings with ollama's endpoint: %+v, %v", set, err)
	}
}

// The transcripts of a run import as trajectories with the grade as the
// outcome, once; the run's bank-against-none figures become the worth of
// the records it retrieved.
func TestEvalImportAndWorth(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	all := sample.Tasks()
	tasks := []review.Task{all[4], all[20]} // g3's scale (memory helps), a drifted join (stale memory)
	var buf bytes.Buffer
	if err := formats.WriteTasks(&buf, tasks); err != nil {
		t.Fatal(err)
	}
	srv := driftAgent(t, tasks)
	rep, err := svc.Eval(context.Background(), app.EvalRequest{TasksFile: "two.jsonl", Tasks: &buf, Settings: evalSettings(srv.BaseURL()),
		EvalRun: app.EvalRun{Import: true}})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := svc.ImportEval(rep.Plan.ID); err != nil || n != 0 {
		t.Fatalf("a second import added %d (%v)", n, err)
	}
	for _, tr := range rep.Runs {
		got, err := svc.Trajectory(app.EvalTrajectoryID(rep.Plan.ID, &tr))
		if err != nil {
			t.Fatal(err)
		}
		if got.Outcome.Passed != (tr.Status == app.EvalPassed) || got.Task != tasks[tr.Index-1].Text || len(got.Steps) != len(tr.Messages) ||
			strings.Join(got.Retrieved, ",") != strings.Join(tr.Retrieved, ",") || got.Format != "memreview-eval" {
			t.Errorf("%s imported as %+v", tr.Task, got.Outcome)
		}
	}
	worth, err := svc.WorthAll()
	if err != nil {
		t.Fatal(err)
	}
	w := worth[sample.RecStarsG3]
	if w.Eval != rep.Plan.ID || w.Retrieved != 1 || w.Passed != 1 || w.BankPassed != 0 || w.Lift() <= 0 {
		t.Fatalf("mem_0006's worth: %+v (%s)", w, w.String())
	}
	if j := worth[sample.RecRefJoin]; j.Eval != rep.Plan.ID || j.Passed != 0 || j.Lift() != 0 {
		t.Fatalf("mem_0001's worth: %+v (%s)", j, j.String())
	}
}

// Each condition freezes in the plan what it gives each task: nothing
// without memory; mem_0001 as it was before the decision that updated it,
// and as that decision wrote it, after; the bank as generated by date; the
// queue accepted (its delete of mem_0001 now a conflict, left out).
func TestEvalPlanConditions(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	d, err := svc.Decide(context.Background(), review.DecideRequest{Proposal: sample.PropConflictUpdate, Verb: review.Accept})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tk := sample.Tasks()[20] // a g1 join: mem_0001's task
	if err := formats.WriteTasks(&buf, []review.Task{tk}); err != nil {
		t.Fatal(err)
	}
	p, err := svc.PlanEval(app.EvalRequest{TasksFile: "one.jsonl", Tasks: &buf, Decisions: []string{d.ID},
		Conditions: []string{"none", "bank", "bank+pending", "bank@2026-04-01"}, Settings: evalSettings("http://unused")})
	if err != nil {
		t.Fatal(err)
	}
	version := func(cond string) int {
		for _, r := range p.Guidelines(cond, tk.ID) {
			if r.ID == sample.RecRefJoin {
				return r.Version
			}
		}
		return 0
	}
	for cond, want := range map[string]int{"none": 0, "bank": 2, "bank+pending": 2, "bank@2026-04-01": 1, "bank@before:" + d.ID: 1, "bank@" + d.ID: 2} {
		if got := version(cond); got != want {
			t.Errorf("%s gives mem_0001 v%d, want v%d (0: not at all)", cond, got, want)
		}
	}
	if got := p.Decisions[d.ID]; len(got) != 1 || got[0] != sample.RecRefJoin {
		t.Errorf("the decision changed %v", got)
	}
	if _, err := app.ParseEvalConditions("none,bank@"); err == nil {
		t.Error("bank@ with nothing after it was read as a condition")
	}
}

// Stopped midway (ctrl+c), a run says how to finish it, and keeps none of
// the task run in flight.
func TestEvalStopped(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	srv := llmtest.New(t, llmtest.Reply{Gate: make(chan struct{})})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(srv.Requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	set := `{"id":"a","env":"shop","text":"How many?","grading":{"probe":"SELECT COUNT(*) FROM items_g1"}}`
	rep, err := svc.Eval(ctx, app.EvalRequest{TasksFile: "a.jsonl", Tasks: strings.NewReader(set), Conditions: []string{"none"}, RunID: "ev_stop",
		Settings: evalSettings(srv.BaseURL())})
	if err == nil || !strings.Contains(err.Error(), "memreview eval --resume ev_stop finishes it") || rep == nil || rep.Done != 0 {
		t.Fatalf("a stopped run: %v (%+v)", err, rep)
	}
}
