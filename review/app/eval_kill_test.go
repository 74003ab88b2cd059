package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memreview/memreview/curator/eval"
	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/formats"
	"github.com/memreview/memreview/sample"
)

// The eval child's settings, from its parent.
const (
	evalURLEnv   = "MEMREVIEW_EVAL_URL"
	evalRunEnv   = "MEMREVIEW_EVAL_RUN"
	evalTasksEnv = "MEMREVIEW_EVAL_TASKS"
)

// evalChild runs an eval until its parent kills it.
func evalChild(svc *app.Service) int {
	_, err := svc.Eval(context.Background(), app.EvalRequest{TasksFile: os.Getenv(evalTasksEnv), RunID: os.Getenv(evalRunEnv),
		Settings: evalSettings(os.Getenv(evalURLEnv)), EvalRun: app.EvalRun{Jobs: 2}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		return 1
	}
	fmt.Println("done")
	return 0
}

// countingAgent is driftAgent, slowed down, counting the task runs each
// (system prompt, task) pair started.
type countingAgent struct {
	mu     sync.Mutex
	starts map[string]int
}

func (c *countingAgent) server(t *testing.T, tasks []review.Task) *llmtest.Server {
	inner := driftRespond(t, tasks)
	return llmtest.NewFunc(t, func(req llmtest.Request) llmtest.Reply {
		time.Sleep(15 * time.Millisecond)
		if len(req.Messages) == 2 {
			c.mu.Lock()
			c.starts[req.Messages[0].Content+"\x00"+req.Messages[1].Content]++
			c.mu.Unlock()
		}
		return inner(req)
	})
}

// kill -9 in the middle of an eval, then resume: every unit ends up in the
// log exactly once, and no unit the killed process had logged runs again.
func TestEvalKillResume(t *testing.T) {
	svc := sampleService(t, app.Options{})
	dir := svc.Info().Dir
	tasks := sample.Tasks()[15:27] // both sides of the drift
	path := filepath.Join(t.TempDir(), "tasks.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteTasks(f, tasks); err != nil {
		t.Fatal(err)
	}
	f.Close()
	agent := &countingAgent{starts: map[string]int{}}
	srv := agent.server(t, tasks)
	run := "ev_kill"
	t.Setenv(evalURLEnv, srv.BaseURL())
	t.Setenv(evalRunEnv, run)
	t.Setenv(evalTasksEnv, path)
	svc.Close() // the child holds the bank now; this test reopens it after
	cmd, _ := startChild(t, "eval", dir, 0)
	results := filepath.Join(dir, "evals", run, eval.ResultsFile)
	deadline := time.Now().Add(20 * time.Second)
	for lines(results) < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("the child logged %d task runs in 20 s", lines(results))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	svc2, err := app.Open(context.Background(), dir, app.Options{Operator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc2.Close()
	killed, err := svc2.EvalReport(run)
	if err != nil {
		t.Fatal(err)
	}
	total := len(tasks) * 2
	if killed.Done >= total || killed.Running {
		t.Fatalf("the kill came too late: %d of %d task runs logged, running %v", killed.Done, total, killed.Running)
	}
	logged := map[string]bool{}
	for _, tr := range killed.Runs {
		logged[tr.Messages[0].Content+"\x00"+tr.Messages[1].Content] = true
	}
	rep, err := svc2.ResumeEval(context.Background(), run, evalSettings(srv.BaseURL()), app.EvalRun{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Done != total || len(rep.Runs) != total {
		t.Fatalf("after resume: %d of %d task runs", rep.Done, total)
	}
	seen := map[string]int{}
	for _, tr := range rep.Runs {
		seen[fmt.Sprintf("%s/%s/%d", tr.Task, tr.Condition, tr.Rep)]++
	}
	for _, tk := range tasks {
		for _, c := range []string{"none", "bank"} {
			if k := tk.ID + "/" + c + "/1"; seen[k] != 1 {
				t.Errorf("%s is in the log %d times", k, seen[k])
			}
		}
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	for k := range logged {
		if agent.starts[k] != 1 {
			t.Errorf("a task run the killed process had logged started %d times: %q", agent.starts[k], strings.SplitN(k, "\x00", 2)[1])
		}
	}
}

// lines counts the whole lines of a file (0 while it is missing).
func lines(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "\n")
}
