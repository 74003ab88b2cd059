package eval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui"
	"github.com/memreview/memreview/ui/uitest"
)

const twoTasks = `{"id":"count","env":"shop","text":"How many office products are listed?","grading":{"probe":"SELECT COUNT(*) FROM items_g1"}}
{"id":"other","env":"shop","text":"How many musical instruments are listed?","grading":{"probe":"SELECT COUNT(*) FROM items_g3"}}
`

// counting is a scripted task agent that counts the office products
// whatever it is asked; once hold is set, requests after the first
// `after` wait for the gate.
type counting struct {
	n     atomic.Int32
	after atomic.Int32 // 0: never wait
	gate  chan struct{}
}

func (c *counting) server(t *testing.T) *llmtest.Server {
	return llmtest.NewFunc(t, func(req llmtest.Request) llmtest.Reply {
		if a := c.after.Load(); a > 0 && c.n.Add(1) > a {
			<-c.gate
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role != "tool" {
			return llmtest.Calls(llmtest.Call{Name: "sql_query", Args: `{"sql":"SELECT COUNT(*) FROM items_g1"}`})
		}
		var res struct{ Rows [][]any }
		json.Unmarshal([]byte(last.Content), &res)
		return llmtest.Calls(llmtest.Call{Name: "answer", Args: fmt.Sprintf(`{"answer":"%v"}`, res.Rows[0][0])})
	})
}

func settings(url string) app.CuratorSettings {
	return app.CuratorSettings{BaseURL: url, Model: "counting", MaxRetries: -1, HTTPTimeout: 20 * time.Second}
}

// TestEvalScreenFlow drives the real program: 5 shows the runs, a run in
// progress with its progress bar and time left, live, until it ends; enter
// lists a run's task runs, and enter on one opens its transcript on the
// trajectories screen.
func TestEvalScreenFlow(t *testing.T) {
	deps := uitest.OpenSample(t)
	svc := deps.Service
	agent := &counting{gate: make(chan struct{})}
	srv := agent.server(t)
	first, err := svc.Eval(context.Background(), app.EvalRequest{TasksFile: "two.jsonl", Tasks: strings.NewReader(twoTasks), Settings: settings(srv.BaseURL())})
	if err != nil {
		t.Fatal(err)
	}
	// The second run: two task runs end, the other two wait at the gate.
	agent.after.Store(4)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := svc.Eval(context.Background(), app.EvalRequest{TasksFile: "two.jsonl", Tasks: strings.NewReader(twoTasks),
			Settings: settings(srv.BaseURL()), RunID: "ev_live"}); err != nil {
			t.Error(err)
		}
	}()
	defer wg.Wait()
	released := false
	release := func() {
		if !released {
			released = true
			close(agent.gate)
		}
	}
	defer release()
	tm := uitest.Start(t, ui.New(deps), 100, 30)
	uitest.WaitFor(t, tm, "Candidate")
	tm.Type("5")
	uitest.WaitFor(t, tm, "Eval 2 runs", "ev_live", "2/4", "left", first.Plan.ID)
	release()
	uitest.WaitFor(t, tm, "4/4 ✔")
	tm.Type("j") // the first run, below the newer one
	uitest.WaitFor(t, tm, first.Plan.ID+" · ")
	tm.Send(uitest.Key("enter"))
	uitest.WaitFor(t, tm, "task runs 4/4", "count", "✔ passed", "✘ failed")
	tm.Send(uitest.Key("enter"))
	traj := first.Plan.ID + "_count_none_r1"
	uitest.WaitFor(t, tm, "Detail "+traj)
	if got, err := svc.Trajectory(traj); err != nil || !got.Outcome.Passed {
		t.Fatalf("the transcript in the bank: %+v, %v", got, err)
	}
}

// The bank screen's record detail says what the decision that made the
// record did in an eval run that compared the bank before and after it.
func TestRecordDetailAttribution(t *testing.T) {
	deps := uitest.OpenSample(t)
	svc := deps.Service
	d, err := svc.Decide(context.Background(), review.DecideRequest{Proposal: sample.PropAcceptCreate, Verb: review.Accept})
	if err != nil {
		t.Fatal(err)
	}
	agent := &counting{gate: make(chan struct{})}
	srv := agent.server(t)
	task := `{"id":"join","env":"shop","text":"Combine electronics weight with warranty: how many items have both?","grading":{"probe":"SELECT COUNT(*) FROM items_g1"},"tags":["g2"]}`
	rep, err := svc.Eval(context.Background(), app.EvalRequest{TasksFile: "one.jsonl", Tasks: strings.NewReader(task), Conditions: []string{"none"},
		Decisions: []string{d.ID}, Settings: settings(srv.BaseURL())})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Decisions) != 1 || len(rep.Decisions[0].Tasks) != 1 {
		t.Fatalf("the decision's effect: %+v", rep.Decisions)
	}
	tm := uitest.Start(t, ui.New(deps), 160, 47)
	uitest.WaitFor(t, tm, "Candidate")
	tm.Type("2")
	uitest.WaitFor(t, tm, "records")
	tm.Type("/" + d.Record.ID)
	uitest.WaitFor(t, tm, "Detail "+d.Record.ID+" v", d.ID+": this accept recovered 0 tasks, regressed 0")
}
