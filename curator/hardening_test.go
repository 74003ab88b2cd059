package curator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestRefusedCallThenPlainText: a run whose last tool call was refused and
// which then only answers in plain text ends with an error naming the
// refused call and why, not "use a model that supports tool calls".
func TestRefusedCallThenPlainText(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t,
		toolReply(call{"c1", ToolSQL, `{"env":"shop","sql":""}`}),
		textReply("I cannot do that."),
		textReply("Still no."))
	_, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_1"}, Options{Probe: true})
	if err == nil {
		t.Fatal("no error")
	}
	f.done()
	mustContain(t, "error", err.Error(), "after its call sql_query(", "was refused", "sql_query needs a non-empty sql statement", `"Still no."`)
	if strings.Contains(err.Error(), "supports tool calls") {
		t.Errorf("error still blames tool support: %v", err)
	}
}

// TestInfiniteProbeResultReachesTheModel: SELECT 1e999 run by the model
// comes back to it as JSON naming +Inf, and the run goes on.
func TestInfiniteProbeResultReachesTheModel(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t,
		toolReply(call{"c1", ToolSQL, `{"env":"shop","sql":"SELECT 1e999 AS big, -1e999 AS small"}`}),
		toolReply(call{"c2", "propose_skip", `{"targets":[],"rationale":"fine","evidence":[],"probe_runs":[]}`}).with(func(t *testing.T, r *wireReq) {
			res := r.toolResult(t, "c1")
			var v struct {
				Rows [][]any `json:"rows"`
			}
			if err := json.Unmarshal([]byte(res), &v); err != nil || len(v.Rows) != 1 || v.Rows[0][0] != "+Inf" || v.Rows[0][1] != "-Inf" {
				t.Errorf("tool result %q (%v)", res, err)
			}
		}),
		toolReply(call{"c3", ToolFinish, `{}`}))
	run, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_1"}, Options{Probe: true})
	if err != nil {
		t.Fatal(err)
	}
	f.done()
	if len(run.ProbeRuns) != 1 || run.ProbeRuns[0].Result.Rows[0][0] == nil {
		t.Fatalf("probe runs %+v", run.ProbeRuns)
	}
	if _, err := json.Marshal(run); err != nil {
		t.Fatalf("the run does not encode: %v", err)
	}
}

// TestCancelStopsTheHTTPCall: cancelling the context ends a run waiting on
// a slow model server at once (the TUI cancels it on quit).
func TestCancelStopsTheHTTPCall(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	slow := textReply("late")
	slow.delay = 30 * time.Second
	f := newFakeLLM(t, slow)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := Curate(ctx, Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_1"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "cancel") {
		t.Fatalf("err = %v, want a cancellation", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the run took %s after cancel", took)
	}
}

// TestOversizeProposalIsRefusedToTheModel: a lemma over the bank's text
// limit is refused at the tool call, with the limit, so the model can
// shorten it; the corrected call is queued.
func TestOversizeProposalIsRefusedToTheModel(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	rec := func(lemma string) string {
		return args(map[string]any{"record": map[string]any{"lemma": lemma, "category": "fact", "scope": map[string]any{"env": "shop", "tags": []string{}, "task_family": ""},
			"trigger": "", "steps": []string{}, "confidence": 0.5}, "rationale": "r", "evidence": []map[string]int{{"from": 2, "to": 3}}, "probe_runs": []string{}})
	}
	f := newFakeLLM(t,
		toolReply(call{"c1", "propose_create", rec(strings.Repeat("x", 10<<20))}),
		toolReply(call{"c2", "propose_create", rec("short")}).with(func(t *testing.T, r *wireReq) {
			mustContain(t, "refusal", r.toolResult(t, "c1"), "record.lemma", "a text field may hold", "shorten it")
		}),
		toolReply(call{"c3", ToolFinish, `{}`}))
	run, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_1"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.done()
	if len(run.Proposals) != 1 || run.Proposals[0].Record.Lemma != "short" || queueLen(t, st) != 1 {
		t.Fatalf("proposals %+v", run.Proposals)
	}
}
