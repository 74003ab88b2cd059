package common

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/review"
)

func TestEventLine(t *testing.T) {
	for _, c := range []struct {
		e          curator.Event
		lead, text string
		bad        bool
	}{
		{curator.Event{Kind: curator.EventCall, Tool: "sql_query", Args: `{"env": "shop",  "sql": "SELECT COUNT(*) FROM items_g1"}`},
			"→ ", `sql_query {"env":"shop","sql":"SELECT COUNT(*) FROM items_g1"}`, false},
		{curator.Event{Kind: curator.EventCall, Tool: "propose_create", Args: `{"record":{"lemma":"In shop, count\n items.","category":"procedure","scope":{"env":"shop"}},"rationale":"r"}`},
			"→ ", `propose_create "In shop, count items." (procedure, env shop)`, false},
		{curator.Event{Kind: curator.EventCall, Tool: "propose_delete", Args: `{"targets":["mem_1","mem_2"],"rationale":"both are wrong"}`},
			"→ ", `propose_delete mem_1, mem_2: both are wrong`, false},
		{curator.Event{Kind: curator.EventCall, Tool: "propose_skip", Args: `not json`},
			"→ ", `propose_skip not json`, false},
		{curator.Event{Kind: curator.EventResult, Tool: "sql_query", Result: `{"probe_run":"run_cur_x_1","columns":["n"],"rows":[[3],[4],[5]]}`},
			"← ", "3 rows (run_cur_x_1)", false},
		{curator.Event{Kind: curator.EventResult, Tool: "sql_query", Result: `{"probe_run":"run_cur_x_2","columns":["n"],"rows":[[1]]}`},
			"← ", "1 row (run_cur_x_2)", false},
		{curator.Event{Kind: curator.EventResult, Tool: "sql_query", Result: `{"probe_run":"run_cur_x_3","error":"no such table: items"}`},
			"← ", "error: no such table: items (run_cur_x_3)", true},
		{curator.Event{Kind: curator.EventResult, Tool: "files_read", Result: `{"probe_run":"run_cur_x_4","text":"a\nb\n"}`},
			"← ", "2 lines (run_cur_x_4)", false},
		{curator.Event{Kind: curator.EventResult, Tool: "memory_search", Result: `[{"id":"mem_1"},{"id":"mem_2"}]`},
			"← ", "2 records", false},
		{curator.Event{Kind: curator.EventResult, Tool: "memory_get", Result: `{"id":"mem_1","lemma":"x"}`},
			"← ", "record mem_1", false},
		{curator.Event{Kind: curator.EventResult, Tool: "propose_create", Result: `{"queued":"propose_create","proposal":1,"probe_runs":[]}`},
			"← ", "queued propose_create", false},
		{curator.Event{Kind: curator.EventResult, Tool: "finish", Result: "finished"},
			"← ", "finished", false},
		{curator.Event{Kind: curator.EventResult, Tool: "memory_get", Err: errors.New(`there is no record "mem_9"`)},
			"✘ ", `memory_get: there is no record "mem_9"`, true},
		{curator.Event{Kind: curator.EventText, Result: "I think\n  we are done"},
			"· ", "model: I think we are done", false},
		{curator.Event{Kind: curator.EventError, Err: errors.New("curator: the model server answered 500")},
			"✘ ", "curator: the model server answered 500", true},
	} {
		lead, text, bad := EventLine(c.e)
		if lead != c.lead || text != c.text || bad != c.bad {
			t.Errorf("EventLine(%s %s) = %q %q %t, want %q %q %t", c.e.Kind, c.e.Tool, lead, text, bad, c.lead, c.text, c.bad)
		}
	}
	long := curator.Event{Kind: curator.EventCall, Tool: "sql_query", Args: `{"sql":"` + strings.Repeat("x", 2000) + `"}`}
	if _, text, _ := EventLine(long); len([]rune(text)) > maxEventText {
		t.Errorf("a long call is %d runes, over %d", len([]rune(text)), maxEventText)
	}
}

// TestCuratorAppliesOnce feeds every message to two "screens", as the root
// does, and checks each is applied once and only the first gets the Cmd
// that continues the run. No run is started: Start's Cmd is never run.
func TestCuratorAppliesOnce(t *testing.T) {
	c := NewCurator(curator.Settings{BaseURL: "http://127.0.0.1:1/v1"})
	if _, ch := c.Update(CuratorEvent{RunID: "cur_x", N: 1}); ch != CuratorNone {
		t.Errorf("an event before any run: %v, want CuratorNone", ch)
	}
	// The session's first Start asks (the root shows the question); y
	// consents, and Start then starts the run.
	cmd, err := c.Start(Deps{Operator: "tester"}, []string{"traj_07"})
	if ask, ok := cmd().(CuratorConsent); err != nil || !ok || len(ask.Trajectories) != 1 || c.Run() != nil {
		t.Fatalf("the first Start: %v, %v, run %+v; want the question and no run", cmd(), err, c.Run())
	}
	c.Consent()
	cmd, err = c.Start(Deps{Operator: "tester"}, []string{"traj_07"})
	if err != nil || cmd == nil {
		t.Fatalf("Start: %v", err)
	}
	r := c.Run()
	if !r.Running() || !r.Concerns("traj_07") || r.Concerns("traj_08") || !strings.HasPrefix(r.ID, "cur_") {
		t.Fatalf("run after Start: %+v", r)
	}
	if _, err := c.Start(Deps{}, []string{"traj_08"}); err == nil || !strings.Contains(err.Error(), r.ID+" on traj_07 is still going") {
		t.Errorf("a second Start during a run: %v", err)
	}

	twice := func(msg tea.Msg) (first, second tea.Cmd, ch CuratorChange) {
		first, ch = c.Update(msg)
		second, ch2 := c.Update(msg)
		if ch2 != ch {
			t.Errorf("%T: second screen got %v, first %v", msg, ch2, ch)
		}
		return first, second, ch
	}
	ev := curator.Event{Kind: curator.EventCall, Tool: "sql_query", Args: `{}`}
	first, second, ch := twice(CuratorEvent{RunID: r.ID, N: 1, Event: ev})
	if first == nil || second != nil || ch != CuratorLog || len(r.Events) != 1 {
		t.Errorf("event 1: first cmd %v, second %v, change %v, %d events", first != nil, second != nil, ch, len(r.Events))
	}
	if _, ch := c.Update(CuratorEvent{RunID: "cur_other", N: 2, Event: ev}); ch != CuratorNone || len(r.Events) != 1 {
		t.Errorf("another run's event was applied")
	}
	first, second, ch = twice(curatorTick{runID: r.ID, seq: c.tick})
	if first == nil || second != nil || ch != CuratorFrame || c.frame != 1 {
		t.Errorf("tick: first cmd %v, second %v, change %v, frame %d", first != nil, second != nil, ch, c.frame)
	}

	done := &curator.Run{ID: r.ID, Proposals: []review.Proposal{{ID: "prop_0016"}}}
	first, second, _ = twice(CuratorDone{RunID: r.ID, Run: done})
	if first == nil || second != nil || r.Running() || len(r.Proposals) != 1 {
		t.Fatalf("done: first cmd %v, second %v, run %+v", first != nil, second != nil, r)
	}
	var status Status
	var changed bool
	for _, cmd := range first().(tea.BatchMsg) {
		switch msg := cmd().(type) {
		case Status:
			status = msg
		case QueueChanged:
			changed = msg.RunID == r.ID
		}
	}
	if status.Err || status.Text != "curator run "+r.ID+" made 1 proposal" || !changed {
		t.Errorf("done: status %+v, QueueChanged %t", status, changed)
	}
	if cmd, ch := c.Update(curatorTick{runID: r.ID, seq: c.tick}); cmd != nil || ch != CuratorFrame {
		t.Errorf("a tick after the end keeps ticking")
	}
	v := ansi.Strip(c.View(DefaultStyles(), 60, true))
	for _, want := range []string{"Curator run " + r.ID, "✔ made 1 proposal: prop_0016", "→ sql_query {}"} {
		if !strings.Contains(v, want) {
			t.Errorf("View lacks %q:\n%s", want, v)
		}
	}

	// A failed run: the error sentence, nothing queued.
	if _, err := c.Start(Deps{}, []string{"traj_08"}); err != nil {
		t.Fatal(err)
	}
	r = c.Run()
	cmd, _ = c.Update(CuratorDone{RunID: r.ID, Err: errors.New("curator: the model server answered 500")})
	if msg, ok := cmd().(Status); !ok || !msg.Err || msg.Text != "nothing saved — curator: the model server answered 500" {
		t.Errorf("failed run's status: %#v", cmd())
	}
	if v := ansi.Strip(c.View(DefaultStyles(), 60, true)); !strings.Contains(v, "✘ failed; nothing was saved") {
		t.Errorf("failed run's View:\n%s", v)
	}
}

func TestNilCurator(t *testing.T) {
	var c *Curator
	if c.Run() != nil || c.Spinner() != "" || c.View(DefaultStyles(), 40, true) != "" {
		t.Error("a nil Curator shows something")
	}
	if cmd, ch := c.Update(CuratorDone{}); cmd != nil || ch != CuratorNone {
		t.Error("a nil Curator handles messages")
	}
}
