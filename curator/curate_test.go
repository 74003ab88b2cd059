package curator

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

var allProbeTools = []string{"memory_search", "memory_get", "sql_query", "files_ls", "files_read", "files_grep", "files_sheet",
	"propose_create", "propose_update", "propose_narrow", "propose_merge", "propose_delete", "propose_skip", "finish"}

var noProbeTools = []string{"memory_search", "memory_get",
	"propose_create", "propose_update", "propose_narrow", "propose_merge", "propose_delete", "propose_skip", "finish"}

func wantTools(want []string) func(t *testing.T, r *wireReq) {
	return func(t *testing.T, r *wireReq) {
		if got := r.toolNames(); !reflect.DeepEqual(got, want) {
			t.Errorf("declared tools = %v, want %v", got, want)
		}
		for _, tl := range r.Tools {
			if !tl.Function.Strict {
				t.Errorf("tool %s is not strict", tl.Function.Name)
			}
		}
	}
}

var newRecord = map[string]any{
	"lemma": "In shop, list item names with SELECT name FROM items_g1.", "category": "procedure",
	"scope":   map[string]any{"env": "shop", "tags": []string{"items"}, "task_family": "listing"},
	"trigger": "a task asks for item names", "steps": []string{"SELECT name FROM items_g1"}, "confidence": 0.9,
}

// TestCurateWithProbes drives the whole loop: search, a real SQL probe, two
// proposals with evidence, finish; then checks what the bank holds.
func TestCurateWithProbes(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t,
		toolReply(
			call{"call_1", "memory_search", args(map[string]any{"query": "item names", "k": 5})},
			call{"call_2", "sql_query", args(map[string]any{"env": "shop", "sql": "SELECT item_id, name FROM items_g1 ORDER BY item_id"})},
		).with(func(t *testing.T, r *wireReq) {
			wantTools(allProbeTools)(t, r)
			if r.Model != "test-model" || r.Messages[0].Role != "system" || !strings.Contains(r.Messages[0].Content, "record contract") {
				t.Errorf("first request: model %q, first message %+v", r.Model, r.Messages[0])
			}
			mustContain(t, "brief", r.Messages[1].Content, "traj_1", "List the item names.", "steps 2-3", "shop (sql)")
		}),
		toolReply(
			call{"call_3", "propose_create", args(map[string]any{"record": newRecord, "rationale": "the probe returned widget and gadget",
				"evidence": []map[string]int{{"from": 2, "to": 3}}, "probe_runs": []string{"run_cur_t_1"}})},
			call{"call_4", "propose_update", args(map[string]any{"targets": []string{"mem_1"}, "record": map[string]any{
				"lemma": "In shop, item names are in items_g1.name (ids in item_id).", "category": "fact",
				"scope": map[string]any{"env": "shop", "tags": []string{}, "task_family": ""}, "trigger": "", "steps": []string{}, "confidence": 0.95},
				"rationale": "confirmed by probe", "evidence": []map[string]int{{"from": 3, "to": 3}}, "probe_runs": []string{}})},
		).with(func(t *testing.T, r *wireReq) {
			mustContain(t, "memory_search result", r.toolResult(t, "call_1"), `"id":"mem_1"`, "items_g1.name")
			mustContain(t, "sql_query result", r.toolResult(t, "call_2"), `"probe_run":"run_cur_t_1"`, `"columns":["item_id","name"]`, `[1,"widget"]`, `[2,"gadget"]`)
		}),
		toolReply(call{"call_5", "finish", args(map[string]any{"summary": "one create, one update"})}).with(func(t *testing.T, r *wireReq) {
			mustContain(t, "propose_create result", r.toolResult(t, "call_3"), `"queued":"propose_create"`)
			mustContain(t, "propose_update result", r.toolResult(t, "call_4"), `"queued":"propose_update"`)
		}),
	)
	var events []Event
	run, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_1"},
		Options{Probe: true, RunID: "cur_t", OnEvent: func(e Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	f.done()
	if run.Steps != 3 || run.PromptTokens != 300 || run.CompletionTokens != 60 || len(run.ToolCalls) != 5 || run.BadCalls != 0 {
		t.Errorf("run: steps %d, tokens %d/%d, %d tool calls, %d bad", run.Steps, run.PromptTokens, run.CompletionTokens, len(run.ToolCalls), run.BadCalls)
	}
	if run.Latency <= 0 || run.Model != "test-model" || run.ID != "cur_t" {
		t.Errorf("run: latency %v, model %q, id %q", run.Latency, run.Model, run.ID)
	}
	if len(events) != 10 || events[0].Kind != EventCall || events[0].Tool != "memory_search" || events[3].Kind != EventResult || !strings.Contains(events[3].Result, "gadget") {
		t.Errorf("events: %+v", events)
	}
	q, err := st.Queue()
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 2 {
		t.Fatalf("queue has %d proposals, want 2", len(q))
	}
	create, update := q[0], q[1]
	if create.Op != review.OpCreate || update.Op != review.OpUpdate {
		t.Fatalf("ops = %s, %s", create.Op, update.Op)
	}
	wantRec := &review.Record{Lemma: newRecord["lemma"].(string), Category: review.Procedure,
		Scope: review.Scope{Env: "shop", Tags: []string{"items"}, TaskFamily: "listing"}, Trigger: "a task asks for item names",
		Steps: []string{"SELECT name FROM items_g1"}, Confidence: 0.9, Status: review.Active,
		Provenance: review.Provenance{Trajectory: "traj_1", Steps: &review.StepRange{From: 2, To: 3}, ProbeRuns: []string{"run_cur_t_1"}}}
	if !reflect.DeepEqual(create.Record, wantRec) {
		t.Errorf("created record\n got %+v\nwant %+v", create.Record, wantRec)
	}
	if create.Trajectory != "traj_1" || create.CuratorRun != "cur_t" || create.Status != review.Pending ||
		!reflect.DeepEqual(create.Evidence, review.Evidence{Steps: []review.StepRange{{From: 2, To: 3}}, ProbeRuns: []string{"run_cur_t_1"}}) {
		t.Errorf("create proposal: %+v", create)
	}
	if !reflect.DeepEqual(update.Targets, []review.Target{{ID: "mem_1", Version: 1}}) || update.Record.ID != "mem_1" ||
		update.Record.Confidence != 0.95 || !reflect.DeepEqual(update.Evidence.ProbeRuns, []string{"run_cur_t_1"}) {
		t.Errorf("update proposal (empty probe_runs means all): %+v, record %+v", update, update.Record)
	}
	runs, err := st.ProbeRunsFor("proposal", create.ID)
	if err != nil || len(runs) != 1 {
		t.Fatalf("probe runs of %s: %v, %v", create.ID, runs, err)
	}
	r := runs[0]
	if r.ID != "run_cur_t_1" || r.Result.Env != "shop" || r.Result.Kind != probe.KindSQL || !r.Result.OK() || len(r.Result.Rows) != 2 || r.Result.Rows[1][1] != "gadget" || r.Result.Fingerprint == "" {
		t.Errorf("stored probe run: %+v", r)
	}
}

// TestCurateFilesProbes checks the files tools reach probe.Run with its
// grammar and that the model sees the real file text.
func TestCurateFilesProbes(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t,
		toolReply(
			call{"c1", "files_ls", args(map[string]any{"env": "docs", "path": ""})},
			call{"c2", "files_read", args(map[string]any{"env": "docs", "path": "schema.md", "offset": 0, "limit": 0})},
			call{"c3", "files_grep", args(map[string]any{"env": "docs", "pattern": "cents", "path": "."})},
		),
		toolReply(call{"c4", "propose_skip", args(map[string]any{"targets": []string{}, "rationale": "docs agree with the bank", "evidence": []any{}, "probe_runs": []string{"run_cur_f_2"}})}).
			with(func(t *testing.T, r *wireReq) {
				mustContain(t, "files_ls", r.toolResult(t, "c1"), "schema.md")
				mustContain(t, "files_read", r.toolResult(t, "c2"), "reviews join items on ref_id")
				mustContain(t, "files_grep", r.toolResult(t, "c3"), "prices are in cents")
			}),
		textReply("Done."),
	)
	run, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_1"}, Options{Probe: true, RunID: "cur_f"})
	if err != nil {
		t.Fatal(err)
	}
	f.done()
	var inputs []string
	for _, r := range run.ProbeRuns {
		inputs = append(inputs, r.Result.Input)
		if !r.Result.OK() {
			t.Errorf("probe %s failed: %s", r.Result.Input, r.Result.Error)
		}
	}
	if want := []string{"ls '.'", "read 'schema.md'", "grep 'cents' '.'"}; !reflect.DeepEqual(inputs, want) {
		t.Errorf("probe inputs = %q, want %q", inputs, want)
	}
	q, _ := st.Queue()
	if len(q) != 1 || q[0].Op != review.OpSkip || q[0].Record != nil || !reflect.DeepEqual(q[0].Evidence.ProbeRuns, []string{"run_cur_f_2"}) {
		t.Errorf("queue: %+v", q)
	}
}

// TestCurateDistillsAndProbeOff distils a trajectory without a packet
// (strict JSON schema), declares no probe tool, answers sql_query as
// unknown without running it, and stores the packet.
func TestCurateDistillsAndProbeOff(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	tr := testTrajectory(false)
	if err := st.PutTrajectories([]review.Trajectory{tr}); err != nil {
		t.Fatal(err)
	}
	packet := args(map[string]any{"task": "List item names in shop.", "retrieved": []string{"mem_1"},
		"observations": []any{map[string]any{"steps": map[string]int{"from": 2, "to": 3}, "text": "items_g1 holds widget, gadget"}},
		"procedures":   []string{"SELECT name FROM items_g1"}, "assumptions": []string{}, "answer": "widget, gadget"})
	f := newFakeLLM(t,
		completion(map[string]any{"role": "assistant", "content": packet}).with(func(t *testing.T, r *wireReq) {
			rf := r.ResponseFormat
			if len(r.Tools) != 0 || rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil || !rf.JSONSchema.Strict || rf.JSONSchema.Name != "packet" {
				t.Errorf("distill request: tools %v, response_format %+v", r.toolNames(), rf)
			}
			mustContain(t, "distill input", r.last(), "[2] assistant", "call sql(", "→ widget, gadget", "Outcome: passed, reward")
		}),
		toolReply(call{"c1", "sql_query", args(map[string]any{"env": "shop", "sql": "SELECT 1"})}).with(func(t *testing.T, r *wireReq) {
			wantTools(noProbeTools)(t, r)
			mustContain(t, "brief", r.Messages[1].Content, "List item names in shop.", "Probing is off")
		}),
		toolReply(call{"c2", "propose_skip", args(map[string]any{"targets": []string{"mem_1"}, "rationale": "mem_1 already covers it", "evidence": []map[string]int{{"from": 1, "to": 4}}, "probe_runs": []string{}})}).
			with(func(t *testing.T, r *wireReq) {
				mustContain(t, "sql_query result", r.toolResult(t, "c1"), `error: unknown tool "sql_query"`)
			}),
		toolReply(call{"c3", "finish", `{"summary":"skip"}`}),
	)
	probes := 0
	deps := Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil), Probe: func(context.Context, probe.Env, string, probe.Limits) probe.Result {
		probes++
		return probe.Result{}
	}}
	run, err := Curate(context.Background(), deps, []string{"traj_1"}, Options{Probe: false})
	if err != nil {
		t.Fatal(err)
	}
	f.done()
	if probes != 0 || len(run.ProbeRuns) != 0 || run.BadCalls != 1 {
		t.Errorf("probes run %d, probe runs %d, bad calls %d", probes, len(run.ProbeRuns), run.BadCalls)
	}
	got, err := st.Trajectory("traj_1")
	if err != nil || got.Distilled == nil || got.Distilled.Task != "List item names in shop." || got.Distilled.Observations[0].Steps != (review.StepRange{From: 2, To: 3}) {
		t.Errorf("stored packet: %+v, %v", got.Distilled, err)
	}
	q, _ := st.Queue()
	if len(q) != 1 || q[0].Op != review.OpSkip || len(q[0].Evidence.ProbeRuns) != 0 || q[0].Targets[0].ID != "mem_1" {
		t.Errorf("queue: %+v", q)
	}
}

// TestBadCallsCorrected: each kind of bad call is sent back as an error
// tool result, and the model's corrected retry succeeds.
func TestBadCallsCorrected(t *testing.T) {
	t.Parallel()
	okSkip := `{"targets":[],"rationale":"fine","evidence":[],"probe_runs":[]}`
	noLemma := strings.Replace(args(map[string]any{"record": newRecord, "rationale": "r", "evidence": []any{}, "probe_runs": []string{}}), `"lemma":"In shop, list item names with SELECT name FROM items_g1."`, `"lemma":""`, 1)
	for name, tc := range map[string]struct {
		call call
		want string
	}{
		"malformed arguments": {call{"b1", "propose_skip", `{"targets":[],"rationale":"fine",`}, "error: the arguments of propose_skip are not valid JSON"},
		"unknown tool":        {call{"b1", "drop_table", `{}`}, `error: unknown tool "drop_table"; the tools are memory_search, memory_get, propose_create`},
		"unknown record":      {call{"b1", "propose_delete", `{"targets":["mem_404"],"rationale":"stale","evidence":[],"probe_runs":[]}`}, `error: there is no record "mem_404" in the bank`},
		"retired record":      {call{"b1", "propose_update", args(map[string]any{"targets": []string{"mem_2"}, "record": newRecord, "rationale": "r", "evidence": []any{}, "probe_runs": []string{}})}, "record mem_2 is retired"},
		"missing lemma":       {call{"b1", "propose_create", noLemma}, "propose_create needs record.lemma"},
		"steps out of range":  {call{"b1", "propose_skip", `{"targets":[],"rationale":"r","evidence":[{"from":2,"to":7}],"probe_runs":[]}`}, "evidence 1 cites steps 2–7, but the trajectory has steps 1–4"},
		"finish too early":    {call{"b1", "finish", `{"summary":"x"}`}, "finish: nothing is proposed yet"},
	} {
		t.Run(name, func(t *testing.T) {
			st := newBank(t)
			f := newFakeLLM(t,
				toolReply(tc.call),
				toolReply(call{"g1", "propose_skip", okSkip}).with(func(t *testing.T, r *wireReq) {
					mustContain(t, "tool result", r.toolResult(t, "b1"), tc.want, "Correct the call and try again.")
				}),
				toolReply(call{"g2", "finish", `{"summary":"s"}`}),
			)
			run, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_1"}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			f.done()
			if run.BadCalls != 1 || run.ToolCalls[0].Err == "" || len(run.Proposals) != 1 || queueLen(t, st) != 1 {
				t.Errorf("bad calls %d, first call %+v, %d proposals, queue %d", run.BadCalls, run.ToolCalls[0], len(run.Proposals), queueLen(t, st))
			}
		})
	}
}

// TestBadCallsEndRun: three bad calls in a row end the run with a clear
// error, and the proposal made before them is not saved.
func TestBadCallsEndRun(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	bad := call{"b", "propose_update", `{"targets":["mem_404"],"record":null,"rationale":"r","evidence":[],"probe_runs":[]}`}
	f := newFakeLLM(t,
		toolReply(call{"g", "propose_skip", `{"targets":[],"rationale":"fine","evidence":[],"probe_runs":[]}`}),
		toolReply(bad), toolReply(bad), toolReply(bad),
	)
	var last Event
	run, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_1"}, Options{OnEvent: func(e Event) { last = e }})
	if err == nil {
		t.Fatal("no error")
	}
	f.done()
	mustContain(t, "error", err.Error(), "curator: the model made 3 bad tool calls in a row while curating traj_1 (step 4), the last propose_update", `no record "mem_404"`)
	if run == nil || len(run.Proposals) != 1 || queueLen(t, st) != 0 || last.Kind != EventError {
		t.Errorf("run %+v, queue %d, last event %+v", run, queueLen(t, st), last)
	}
}

func TestStepAndTokenLimits(t *testing.T) {
	t.Parallel()
	search := call{"s", "memory_search", `{"query":"items","k":3}`}
	for name, tc := range map[string]struct {
		mod  func(*Settings)
		n    int
		want string
	}{
		"steps":  {func(s *Settings) { s.MaxSteps = 2 }, 2, "curator: the model did not finish curating traj_1 within 2 steps"},
		"tokens": {func(s *Settings) { s.MaxTokens = 200 }, 2, "curator: the run used 240 tokens, over its limit of 200, while curating traj_1 (step 2)"},
	} {
		t.Run(name, func(t *testing.T) {
			st := newBank(t)
			var rs []reply
			for range tc.n {
				rs = append(rs, toolReply(search))
			}
			f := newFakeLLM(t, rs...)
			_, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, tc.mod)}, []string{"traj_1"}, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			f.done()
			mustContain(t, "error", err.Error(), tc.want)
		})
	}
}

func TestPlainTextReply(t *testing.T) {
	t.Parallel()
	t.Run("nudge then error", func(t *testing.T) {
		st := newBank(t)
		f := newFakeLLM(t, textReply("I would add a record about items."),
			textReply("As I said, add a record.").with(func(t *testing.T, r *wireReq) {
				if m := r.Messages[len(r.Messages)-1]; m.Role != "user" || !strings.Contains(m.Content, "Answer only with tool calls") {
					t.Errorf("no nudge: %+v", m)
				}
			}))
		_, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_1"}, Options{})
		if err == nil {
			t.Fatal("no error")
		}
		f.done()
		mustContain(t, "error", err.Error(), `curator: the model answered in plain text instead of calling a tool while curating traj_1 (step 2) ("As I said, add a record."); use a model that supports tool calls`)
	})
	t.Run("nudge then tool call", func(t *testing.T) {
		st := newBank(t)
		f := newFakeLLM(t, textReply("Thinking."),
			toolReply(call{"c", "propose_skip", `{"targets":[],"rationale":"fine","evidence":[],"probe_runs":[]}`}),
			textReply("All done."))
		run, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_1"}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		f.done()
		if run.Steps != 3 || queueLen(t, st) != 1 {
			t.Errorf("steps %d, queue %d", run.Steps, queueLen(t, st))
		}
	})
}

func TestUnknownTrajectory(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t)
	_, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_9"}, Options{})
	if err == nil || !strings.Contains(err.Error(), `curator: there is no trajectory "traj_9" in the bank`) {
		t.Errorf("err = %v", err)
	}
}
