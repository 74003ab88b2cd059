package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// answering is a scripted model that answers 42 to every task after one
// query, or 41 when its system prompt carries no guidelines.
func answering(t *testing.T, calls *atomic.Int32) *llmtest.Server {
	return llmtest.NewFunc(t, func(req llmtest.Request) llmtest.Reply {
		if calls != nil {
			calls.Add(1)
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "user" {
			return llmtest.Calls(query42)
		}
		if strings.Contains(req.Messages[0].Content, "Guidelines from memory") {
			return llmtest.Calls(answer42)
		}
		return llmtest.Calls(llmtest.Call{Name: ToolAnswer, Args: `{"answer":"41"}`})
	})
}

func testPlan(tasks, runs int) *Plan {
	p := &Plan{ID: "ev_test", Conditions: []string{CondNone, CondBank}, Runs: runs, Budget: 5, Seed: 1, K: 5, Model: "test-model", Started: time.Now()}
	rec := review.Record{ID: "mem_1", Version: 1, Lemma: "Answer 42.", Category: review.Fact}
	for i := range tasks {
		tk := task42
		tk.ID = "t" + string(rune('a'+i))
		p.Tasks = append(p.Tasks, tk)
		p.SetMemory(CondNone, tk.ID, nil)
		p.SetMemory(CondBank, tk.ID, []review.Record{rec})
	}
	return p
}

func sqlKind(string) (probe.Kind, error) { return probe.KindSQL, nil }

// A run logs every unit once; resuming it runs none again; the report
// reads the log.
func TestRunAndResume(t *testing.T) {
	var calls atomic.Int32
	srv := answering(t, &calls)
	a := testAgent(t, srv, 5)
	dir := filepath.Join(t.TempDir(), "evals", "ev_test")
	p := testPlan(3, 2)
	log, err := Create(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(dir, p); err == nil {
		t.Fatal("a second Create of the same run succeeded")
	}
	if _, _, _, err := Resume(dir); !errors.Is(err, ErrRunning) {
		t.Fatalf("resuming a run another log holds: %v, want ErrRunning", err)
	}
	var seen []Progress
	if err := Run(context.Background(), a, log, p, nil, Options{Jobs: 2, EnvKind: sqlKind, OnProgress: func(pr Progress) { seen = append(seen, pr) }}); err != nil {
		t.Fatal(err)
	}
	log.Close()
	if len(seen) != 12 || seen[11].Done != 12 || seen[11].Total != 12 {
		t.Fatalf("progress: %d reports, last %+v", len(seen), seen[len(seen)-1])
	}
	before := calls.Load()
	log, p2, done, err := Resume(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 12 || p2.ID != p.ID {
		t.Fatalf("resume found %d task runs of %s", len(done), p2.ID)
	}
	if err := Run(context.Background(), a, log, p2, done, Options{Jobs: 2, EnvKind: sqlKind}); err != nil {
		t.Fatal(err)
	}
	log.Close()
	if calls.Load() != before {
		t.Fatalf("resuming a finished run called the model %d times", calls.Load()-before)
	}
	_, runs, running, err := Read(dir)
	if err != nil || running || len(runs) != 12 {
		t.Fatalf("read: %d runs, running %v, %v", len(runs), running, err)
	}
	rep := NewReport(p2, runs)
	none, bank := rep.Conditions[0], rep.Conditions[1]
	if none.PassRate.Mean != 0 || bank.PassRate.Mean != 1 || bank.Runs != 2 || bank.ToolCalls.Mean != 1 || bank.Reward.Mean != 0.9 {
		t.Fatalf("report: none %+v, bank %+v", none, bank)
	}
	if bank.InputTokens.Mean != 200 || !bank.PassRate.HasCI() || bank.PassRate.Lo != 1 {
		t.Fatalf("bank tokens %v, CI %+v", bank.InputTokens, bank.PassRate)
	}
	if row := rep.ByIndex[2]; row.Pass[CondBank] != 1 || row.Pass[CondNone] != 0 {
		t.Fatalf("by index: %+v", row)
	}
	effects := RecordEffects(p2, runs)
	if e := effects["mem_1"]; e == nil || len(e.Tasks) != 3 || len(e.Helped) != 3 || e.None != 0 {
		t.Fatalf("record effects: %+v", effects)
	}
}

// A line a kill cut short is dropped and its unit runs again; a unit
// already logged is refused.
func TestTornLine(t *testing.T) {
	srv := answering(t, nil)
	a := testAgent(t, srv, 5)
	dir := filepath.Join(t.TempDir(), "ev_test")
	p := testPlan(2, 1)
	log, err := Create(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	tr := TaskRun{Task: "ta", Condition: CondNone, Rep: 1, Status: Failed}
	if err := log.Append(&tr); err != nil {
		t.Fatal(err)
	}
	if err := log.Append(&tr); err == nil {
		t.Fatal("the same unit was logged twice")
	}
	log.Close()
	f, err := os.OpenFile(filepath.Join(dir, ResultsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"task":"tb","condition":"none","run":1,"sta`)
	f.Close()
	log, p2, done, err := Resume(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 1 {
		t.Fatalf("resume read %d task runs, want the 1 whole line", len(done))
	}
	if err := Run(context.Background(), a, log, p2, done, Options{Jobs: 1, EnvKind: sqlKind}); err != nil {
		t.Fatal(err)
	}
	log.Close()
	_, runs, _, err := Read(dir)
	if err != nil || len(runs) != 4 {
		t.Fatalf("after resume: %d task runs (%v), want 4", len(runs), err)
	}
	seen := map[UnitKey]int{}
	for _, r := range runs {
		seen[r.Key()]++
	}
	for _, u := range p2.Units() {
		if seen[u] != 1 {
			t.Fatalf("unit %+v logged %d times", u, seen[u])
		}
	}
}
