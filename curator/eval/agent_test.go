package eval

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// fakeProbe answers "SELECT 42" with one row, anything else with an error.
func fakeProbe(calls *int) ProbeFunc {
	return func(ctx context.Context, env, input string) probe.Result {
		if calls != nil {
			*calls++
		}
		if strings.TrimSpace(input) == "SELECT 42" {
			return probe.Result{Env: env, Kind: probe.KindSQL, Input: input, Columns: []string{"n"}, Rows: [][]any{{int64(42)}}}
		}
		return probe.Result{Env: env, Kind: probe.KindSQL, Input: input, Error: "no such table: nowhere"}
	}
}

func testAgent(t *testing.T, srv *llmtest.Server, budget int) Agent {
	t.Helper()
	set := curator.Settings{BaseURL: srv.BaseURL(), Model: "test-model", MaxRetries: -1, HTTPTimeout: 200 * time.Millisecond}
	return Agent{LLM: curator.NewLLM(set), Probe: fakeProbe(nil), Budget: budget, Timeout: 5 * time.Second}
}

var task42 = review.Task{ID: "t42", Env: "shop", Text: "What is the answer?", Grading: review.Grading{Probe: "SELECT 42"}}

// runAndGrade is what the runner does with one unit.
func runAndGrade(t *testing.T, a Agent, task review.Task) TaskRun {
	t.Helper()
	tr, err := a.Run(context.Background(), &task, probe.KindSQL, nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status != Errored {
		tr.Status, tr.Grade = gradeRun(context.Background(), a.Probe, &task, &tr)
	}
	return tr
}

var (
	query42  = llmtest.Call{Name: ToolSQL, Args: `{"sql":"SELECT 42"}`}
	answer42 = llmtest.Call{Name: ToolAnswer, Args: `{"answer":"42"}`}
)

// Every fault of the model is counted in the task run, never a crash or
// an error of the run.
func TestAgentFaults(t *testing.T) {
	cases := []struct {
		name    string
		replies []llmtest.Reply
		cycle   bool
		status  Status
		calls   int
		check   func(Faults) bool
	}{
		{"answers after a query", []llmtest.Reply{llmtest.Calls(query42), llmtest.Calls(answer42)}, false, Passed, 1,
			func(f Faults) bool { return f == Faults{} }},
		{"never calls a tool", []llmtest.Reply{llmtest.Text("It is 42.")}, true, Failed, 0,
			func(f Faults) bool { return f.NoToolCall && f.Prose == maxProse }},
		{"prose once, then a tool", []llmtest.Reply{llmtest.Text("Let me think."), llmtest.Calls(answer42)}, false, Passed, 0,
			func(f Faults) bool { return !f.NoToolCall && f.Prose == 1 }},
		{"calls an unknown tool", []llmtest.Reply{llmtest.Calls(llmtest.Call{Name: "shell", Args: `{"cmd":"rm -rf /"}`}), llmtest.Calls(answer42)}, false, Passed, 1,
			func(f Faults) bool { return f.UnknownTool == 1 }},
		{"bad arguments", []llmtest.Reply{llmtest.Calls(llmtest.Call{Name: ToolSQL, Args: `{"sql":`}), llmtest.Calls(answer42)}, false, Passed, 1,
			func(f Faults) bool { return f.BadArgs == 1 }},
		{"exceeds the budget", []llmtest.Reply{llmtest.Calls(query42)}, true, Failed, 3,
			func(f Faults) bool { return f.OverBudget }},
		{"wrong answer", []llmtest.Reply{llmtest.Calls(llmtest.Call{Name: ToolAnswer, Args: `{"answer":"41"}`})}, false, Failed, 0,
			func(f Faults) bool { return f == Faults{} }},
		{"answers 429", []llmtest.Reply{llmtest.Fail(429)}, false, Errored, 0,
			func(f Faults) bool { return f.RateLimited && !f.ServerError }},
		{"answers 500", []llmtest.Reply{llmtest.Calls(query42), llmtest.Fail(500)}, false, Errored, 1,
			func(f Faults) bool { return f.ServerError && !f.RateLimited }},
		{"times out", []llmtest.Reply{{Gate: make(chan struct{})}}, false, Errored, 0,
			func(f Faults) bool { return f.Timeout }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.New(t, c.replies...)
			if c.cycle {
				srv.Cycle()
			}
			tr := runAndGrade(t, testAgent(t, srv, 3), task42)
			if tr.Status != c.status || tr.ToolCalls != c.calls || !c.check(tr.Faults) {
				t.Fatalf("status %s (%s), %d tool calls, faults %+v; want %s, %d calls", tr.Status, tr.Grade+tr.Error, tr.ToolCalls, tr.Faults, c.status, c.calls)
			}
			if c.status == Errored && tr.Error == "" {
				t.Fatal("an errored task run says nothing of why")
			}
			if len(tr.Messages) < 2 || tr.Messages[0].Role != "system" || tr.Messages[1].Content != task42.Text {
				t.Fatalf("the transcript starts %+v", tr.Messages[:min(2, len(tr.Messages))])
			}
		})
	}
}

// A task whose grading probe fails is ungradable, not failed, whatever
// the answer; one that gives several rows too.
func TestUngradable(t *testing.T) {
	srv := llmtest.New(t, llmtest.Calls(answer42))
	srv.Cycle()
	a := testAgent(t, srv, 3)
	for _, g := range []string{"SELECT * FROM nowhere", "SELECT 1 UNION SELECT 2"} {
		task := task42
		task.Grading.Probe = g
		a.Probe = func(ctx context.Context, env, input string) probe.Result {
			if strings.Contains(input, "UNION") {
				return probe.Result{Columns: []string{"x"}, Rows: [][]any{{int64(1)}, {int64(2)}}}
			}
			return fakeProbe(nil)(ctx, env, input)
		}
		tr := runAndGrade(t, a, task)
		if tr.Status != Ungradable || !strings.Contains(tr.Grade, "grading probe") {
			t.Fatalf("grading probe %q: %s (%s), want ungradable", g, tr.Status, tr.Grade)
		}
	}
}

// The guidelines reach the system prompt, and the records given are the
// run's Retrieved.
func TestAgentGuidelines(t *testing.T) {
	srv := llmtest.New(t, llmtest.Calls(answer42))
	a := testAgent(t, srv, 3)
	recs := []review.Record{{ID: "mem_1", Lemma: "The answer is always 42.", Category: review.Fact, Steps: []string{"SELECT 42"}}}
	tr, err := a.Run(context.Background(), &task42, probe.KindSQL, recs, 7)
	if err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0]
	if !strings.Contains(body, "Guidelines from memory") || !strings.Contains(body, "The answer is always 42.") || !strings.Contains(body, `"seed":7`) {
		t.Fatalf("the request lacks the guidelines or the seed: %s", body)
	}
	if len(tr.Retrieved) != 1 || tr.Retrieved[0] != "mem_1" {
		t.Fatalf("retrieved %v", tr.Retrieved)
	}
	if Guidelines(nil) != "" {
		t.Fatal("no records should give no guidelines section")
	}
}

func TestMatches(t *testing.T) {
	cases := []struct {
		answer string
		want   []string
		tol    float64
		ok     bool
	}{
		{"267", []string{"267"}, 0, true},
		{"$1,234.50", []string{"1234.5"}, 0, true},
		{"23.46", []string{"23.45"}, 0.01, true},
		{"23.47", []string{"23.45"}, 0.01, false},
		{" voltra ", []string{"Voltra"}, 0, true},
		{"Voltra Audio", []string{"Voltra"}, 0, false},
		{"g2, 4.1", []string{"g2", "4.1"}, 0, true},
		{"g2", []string{"g2", "4.1"}, 0, false},
		{"about 267", []string{"267"}, 0, false},
	}
	for _, c := range cases {
		if ok, why := Matches(c.answer, c.want, c.tol); ok != c.ok {
			t.Errorf("Matches(%q, %v, %v) = %v (%s), want %v", c.answer, c.want, c.tol, ok, why, c.ok)
		}
	}
}

func TestInterval(t *testing.T) {
	iv := NewInterval([]float64{0.5, 0.7, 0.6})
	half := 4.303 * 0.1 / 1.7320508075688772
	if d := iv.Mean - 0.6; d > 1e-12 || d < -1e-12 || abs(iv.Lo-(0.6-half)) > 1e-9 || abs(iv.Hi-(0.6+half)) > 1e-9 {
		t.Fatalf("interval %+v, want 0.6 ± %.5f", iv, half)
	}
	if one := NewInterval([]float64{0.4}); one.HasCI() || one.Mean != 0.4 {
		t.Fatalf("one run: %+v, want a mean and no interval", one)
	}
	if q := TQuantile975(60); abs(q-2.000) > 0.002 {
		t.Fatalf("t(0.975, 60) = %v, want 2.000", q)
	}
	if r := Reward(&TaskRun{Status: Passed, ToolCalls: 5}, 10); r != 0.75 {
		t.Fatalf("reward of a pass with half the budget: %v, want 0.75", r)
	}
	if r := Reward(&TaskRun{Status: Failed}, 10); r != 0 {
		t.Fatalf("reward of a failure: %v", r)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
