package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/curator/llmtest"
)

// oneQuery is a scripted task agent that counts the office products
// whatever it is asked, and answers the count.
func oneQuery(t *testing.T) *llmtest.Server {
	return llmtest.NewFunc(t, func(req llmtest.Request) llmtest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role != "tool" {
			return llmtest.Calls(llmtest.Call{Name: "sql_query", Args: `{"sql":"SELECT COUNT(*) FROM items_g1"}`})
		}
		var res struct{ Rows [][]any }
		json.Unmarshal([]byte(last.Content), &res)
		return llmtest.Calls(llmtest.Call{Name: "answer", Args: fmt.Sprintf(`{"answer":"%v"}`, res.Rows[0][0])})
	})
}

// eval, eval show, eval list and history as a user runs them, and the JSON
// shapes the issue gives.
func TestEvalCommand(t *testing.T) {
	bank := filepath.Join(t.TempDir(), "bank")
	rawWorldTemplate.CopyTo(t, bank)
	tasks := filepath.Join(t.TempDir(), "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"id":"count","env":"shop","text":"How many office products are listed?","grading":{"probe":"SELECT COUNT(*) FROM items_g1"}}
{"id":"wrong","env":"shop","text":"How many musical instruments are listed?","grading":{"probe":"SELECT COUNT(*) FROM items_g3"},"tags":["g3"]}
`), 0o644)
	// Not parallel: the environment is the eval's (the commands inherit it).
	t.Setenv("OPENAI_BASE_URL", "")
	if r := mr(t, "", "--bank", bank, "eval", tasks); r.code == 0 || !strings.Contains(r.stderr, "no model server is configured") {
		t.Fatalf("eval with no endpoint: exit %d, %s", r.code, r.stderr)
	}
	srv := oneQuery(t)
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_MODEL", "scripted")
	r := mr(t, "", "--bank", bank, "eval", "--json", "--runs", "2", tasks)
	if r.code != 0 {
		t.Fatalf("eval: exit %d\n%s", r.code, r.stderr)
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, r.stdout)
	}
	var run string
	json.Unmarshal(out["run"], &run)
	var conds []map[string]json.RawMessage
	var taskRuns []map[string]json.RawMessage
	json.Unmarshal(out["conditions"], &conds)
	json.Unmarshal(out["tasks"], &taskRuns)
	if run == "" || len(conds) != 2 || len(taskRuns) != 8 {
		t.Fatalf("eval --json: run %q, %d conditions, %d task runs\n%s", run, len(conds), len(taskRuns), r.stdout)
	}
	for _, k := range []string{"name", "tasks", "pass_rate", "ci95", "reward", "tool_calls", "input_tokens", "output_tokens"} {
		if _, ok := conds[0][k]; !ok {
			t.Errorf("a condition lacks %q: %s", k, r.stdout)
		}
	}
	for _, k := range []string{"id", "condition", "run", "passed", "tool_calls"} {
		if _, ok := taskRuns[0][k]; !ok {
			t.Errorf("a task run lacks %q", k)
		}
	}
	var pass float64
	var ci [2]float64
	json.Unmarshal(conds[0]["pass_rate"], &pass)
	json.Unmarshal(conds[0]["ci95"], &ci)
	if pass != 0.5 || ci != [2]float64{0.5, 0.5} {
		t.Errorf("none: pass rate %v, ci95 %v; want 0.5 (one task of two, both runs)", pass, ci)
	}
	shown := must(t, mr(t, "", "--bank", bank, "eval", "show", "--json", run))
	if shown.stdout != r.stdout {
		t.Errorf("eval show --json differs from eval --json:\n%s\n%s", shown.stdout, r.stdout)
	}
	text := must(t, mr(t, "", "--bank", bank, "eval", "show", run))
	for _, want := range []string{"condition", "pass", "none", "bank", "50.0%", "pass rate over the task sequence", "task 1"} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("eval show lacks %q:\n%s", want, text.stdout)
		}
	}
	list := must(t, mr(t, "", "--bank", bank, "eval", "list", "--json"))
	var runs []map[string]any
	if err := json.Unmarshal([]byte(list.stdout), &runs); err != nil || len(runs) != 1 || runs[0]["run"] != run ||
		runs[0]["done"] != 8.0 || runs[0]["total"] != 8.0 || !slices.Equal(toStrings(runs[0]["conditions"]), []string{"none", "bank"}) {
		t.Fatalf("eval list --json: %v\n%s", err, list.stdout)
	}
	if _, ok := runs[0]["started"]; !ok {
		t.Fatal("eval list --json lacks started")
	}
	if r := mr(t, "", "--bank", bank, "eval", "--resume", run); r.code != 0 || !strings.Contains(r.stdout, "8/8 task runs, done") {
		t.Fatalf("resuming a finished run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	imp := must(t, mr(t, "", "--bank", bank, "eval", "import", run))
	if !strings.Contains(imp.stdout, "imported 8 transcripts") {
		t.Fatalf("eval import: %s", imp.stdout)
	}
	rec := firstRetrieved(t, filepath.Join(bank, "evals", run, "results.jsonl"), "count")
	hist := must(t, mr(t, "", "--bank", bank, "history", rec))
	if !strings.Contains(hist.stdout, "eval "+run+": retrieved by 1 task: 1 passed with the bank, 1 without memory") {
		t.Fatalf("history lacks the record's eval line:\n%s", hist.stdout)
	}
	if r := mr(t, "", "--bank", bank, "eval", "show", "ev_missing"); r.code == 0 || !strings.Contains(r.stderr, "no run ev_missing") {
		t.Fatalf("eval show of a missing run: exit %d %s", r.code, r.stderr)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// firstRetrieved is the first record the bank condition gave task.
func firstRetrieved(t *testing.T, results, task string) string {
	t.Helper()
	b, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var tr struct {
			Task, Condition string
			Retrieved       []string
		}
		json.Unmarshal([]byte(line), &tr)
		if tr.Task == task && tr.Condition == "bank" && len(tr.Retrieved) > 0 {
			return tr.Retrieved[0]
		}
	}
	t.Fatalf("the bank condition gave %s no record", task)
	return ""
}
