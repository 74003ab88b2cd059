package app_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/formats"
	"github.com/memreview/memreview/sample"
)

// A task set with a malformed line is refused with file, line and field
// before anything runs: no model call, no run folder.
func TestEvalRefusesBadTasks(t *testing.T) {
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
