package formats

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/sample/testenv"
)

const realdata = "../../../shared/realdata"

// noRealData skips t because the real data is missing, saying how to get
// it; under MEMREVIEW_CI=1 (which CI sets) it fails instead.
func noRealData(t *testing.T, why any) {
	t.Helper()
	testenv.Missing(t, fmt.Sprintf("real data not present (%v): to run this test put the shared realdata folder at ../shared/realdata beside the repo", why))
}

func readReal(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(realdata, rel))
	if os.IsNotExist(err) {
		noRealData(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// generic decodes JSON into plain Go values, independently of the adapters.
func generic(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }

// want holds counts computed from the raw JSON.
type want struct{ runs, steps, calls, linked, outcomes int }

func checkCounts(t *testing.T, rep *Report, w want) {
	t.Helper()
	got := want{rep.Runs, rep.Steps, rep.ToolCalls, rep.Linked, rep.Outcomes}
	if got != w {
		t.Errorf("%s: got runs/steps/calls/linked/outcomes %+v, counted from the raw JSON %+v", rep.File, got, w)
	}
}

func TestRealSWEAgent(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(realdata, "trajectories/swe-agent/*.traj"))
	if len(files) == 0 {
		noRealData(t, "no "+filepath.Join(realdata, "trajectories/swe-agent/*.traj"))
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		raw := obj(generic(t, data))
		var w want
		w.runs = 1
		hist := arr(raw["history"])
		w.steps = len(hist)
		ids := map[string]bool{}
		actionOpen := false
		for _, h := range hist {
			m := obj(h)
			switch m["role"] {
			case "assistant":
				calls := arr(m["tool_calls"])
				w.calls += len(calls)
				for _, c := range calls {
					ids[obj(c)["id"].(string)] = true
				}
				if len(calls) == 0 && strings.TrimSpace(toString(m["action"])) != "" {
					w.calls++
					actionOpen = true
				}
			case "tool":
				for _, id := range arr(m["tool_call_ids"]) {
					if ids[id.(string)] {
						w.linked++
					}
				}
				actionOpen = false
			default:
				if actionOpen && m["role"] == "user" {
					w.linked++
				}
				actionOpen = false
			}
		}
		// The final submit's observation is only in the trajectory steps.
		if steps := arr(raw["trajectory"]); actionOpen && len(steps) > 0 && toString(obj(steps[len(steps)-1])["observation"]) != "" {
			w.linked++
		}
		if info := obj(raw["info"]); info["exit_status"] != nil {
			w.outcomes = 1
		}
		ts, rep, err := ReadTrajectories(NewInput(f, data), nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Format != "swe-agent" {
			t.Fatalf("%s detected as %s", f, rep.Format)
		}
		checkCounts(t, rep, w)
		if tr := arr(raw["trajectory"]); len(tr) > 0 && rep.Skipped["trajectory steps not imported (history holds the same run as chat)"] != len(tr) {
			t.Errorf("%s: skipped %v, want the %d trajectory steps reported", f, rep.Skipped, len(tr))
		}
		if info := obj(raw["info"]); info != nil && !strings.Contains(ts[0].Outcome.Notes, "exit_status: "+toString(info["exit_status"])) {
			t.Errorf("%s: outcome notes %q lack the exit status", f, ts[0].Outcome.Notes)
		}
	}
	// Chosen steps.
	data := readReal(t, "trajectories/swe-agent/test-repo-i1.traj")
	ts, _, _ := ReadTrajectories(NewInput("test-repo-i1.traj", data), nil)
	s := ts[0].Steps[3]
	if s.Role != "assistant" || len(s.ToolCalls) != 1 || s.ToolCalls[0].Arguments != `find_file "missing_colon.py"` || !strings.HasPrefix(s.ToolCalls[0].Result, `Found 1 matches for "missing_colon.py"`) {
		t.Errorf("step 4 = %+v", s)
	}
	data = readReal(t, "trajectories/swe-agent/marshmallow-1867-function-calling.traj")
	ts, _, _ = ReadTrajectories(NewInput("m.traj", data), nil)
	if c := ts[0].Steps[2].ToolCalls[0]; c.Name != "create" || c.Arguments != `{"filename":"reproduce.py"}` || !strings.HasPrefix(c.Result, "[File: reproduce.py (1 lines total)]") || ts[0].Model != "gpt-4o" {
		t.Errorf("step 3 call = %+v, model %q", c, ts[0].Model)
	}
}

func toString(v any) string { s, _ := v.(string); return s }

func TestRealTauBench(t *testing.T) {
	data := readReal(t, "trajectories/tau-bench-gpt-4o-airline.json")
	var w want
	for _, r := range arr(generic(t, data)) {
		run := obj(r)
		w.runs++
		if run["reward"] != nil {
			w.outcomes++
		}
		ids := map[string]bool{}
		for _, m := range arr(run["traj"]) {
			mo := obj(m)
			w.steps++
			for _, c := range arr(mo["tool_calls"]) {
				w.calls++
				ids[toString(obj(c)["id"])] = true
			}
			if mo["role"] == "tool" && ids[toString(mo["tool_call_id"])] && toString(mo["content"]) != "" {
				w.linked++
				delete(ids, toString(mo["tool_call_id"]))
			}
		}
	}
	ts, rep, err := ReadTrajectories(NewInput("tau.json", data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != "openai" {
		t.Fatalf("detected %s", rep.Format)
	}
	checkCounts(t, rep, w)
	if ts[0].ID != "tau-task0-trial0" || len(rep.Places) != len(ts) || rep.Places[0].Field != "task_id" {
		t.Errorf("first id %s, places %d %+v", ts[0].ID, len(rep.Places), rep.Places[0])
	}
}

func TestRealOTelAndLangfuse(t *testing.T) {
	data := readReal(t, "trajectories/otel/genai-client-span-tool-calls.json")
	raw := obj(generic(t, data))
	var in, out []any
	json.Unmarshal([]byte(raw["gen_ai.input.messages"].(string)), &in)
	json.Unmarshal([]byte(raw["gen_ai.output.messages"].(string)), &out)
	var w want
	w.runs = 1
	w.steps = len(in) + len(out)
	for _, m := range append(in, out...) {
		for _, p := range arr(obj(m)["parts"]) {
			switch obj(p)["type"] {
			case "tool_call":
				w.calls++
			case "tool_call_response":
				w.linked++
			}
		}
	}
	ts, rep, err := ReadTrajectories(NewInput("span.json", data), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, rep, w)
	if ts[0].Model != "gpt-4-0613" || ts[0].Steps[1].ToolCalls[0].Result != "rainy, 57°F" {
		t.Errorf("model %q, step 2 %+v", ts[0].Model, ts[0].Steps[1])
	}

	data = readReal(t, "trajectories/otel/langfuse-pydantic-ai-tools.trace.json")
	lf := obj(generic(t, data))
	// Count from the observations: TOOL observations are results; each
	// GENERATION's output tool_call parts are calls; messages are the
	// distinct (role, text) of generation inputs and outputs plus the tool
	// results.
	w = want{runs: 1}
	seen := map[string]bool{}
	callIDs := map[string]bool{}
	for _, o := range arr(lf["observations"]) {
		ob := obj(o)
		if ob["type"] != "GENERATION" {
			continue
		}
		for _, m := range append(arr(ob["input"]), arr(ob["output"])...) {
			mo := obj(m)
			var text []string
			var calls []string
			hasText, onlyResults := false, true
			for _, p := range arr(mo["parts"]) {
				po := obj(p)
				switch po["type"] {
				case "text":
					text = append(text, toString(po["content"]))
					hasText, onlyResults = true, false
				case "tool_call":
					calls = append(calls, toString(po["id"]))
					onlyResults = false
				case "tool_call_response":
					if !seen["result:"+toString(po["id"])] {
						seen["result:"+toString(po["id"])] = true
						w.steps++
						w.linked++
					}
				}
			}
			_ = hasText
			if onlyResults {
				continue
			}
			key := toString(mo["role"]) + strings.Join(text, "\n") + strings.Join(calls, ",")
			if !seen[key] {
				seen[key] = true
				w.steps++
				for _, c := range calls {
					callIDs[c] = true
					w.calls++
				}
			}
		}
	}
	ts, rep, err = ReadTrajectories(NewInput("lf.json", data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != "langfuse" {
		t.Fatalf("detected %s", rep.Format)
	}
	checkCounts(t, rep, w)
	if s := ts[0].Steps[2]; len(s.ToolCalls) != 3 || s.ToolCalls[1].Name != "get_dad_joke_suggestion" || !strings.HasPrefix(s.ToolCalls[1].Result, "Dad joke idea:") {
		t.Errorf("step 3 = %+v", s)
	}
}

// addSample counts one Inspect sample, read generically, into w.
func (w *want) addSample(so map[string]any) {
	w.runs++
	w.steps += len(arr(so["messages"]))
	if len(obj(so["scores"])) > 0 {
		w.outcomes++
	}
}

func TestRealInspectAndOpenHands(t *testing.T) {
	data := readReal(t, "trajectories/inspect-ai/log_tool_call_error.json")
	raw := obj(generic(t, data))
	var w want
	for _, s := range arr(raw["samples"]) {
		w.addSample(obj(s))
	}
	_, rep, err := ReadTrajectories(NewInput("log.json", data), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, rep, w)

	data = readReal(t, "trajectories/inspect-ai/log_formats.eval")
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	w = want{}
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "samples/") {
			continue
		}
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		w.addSample(obj(generic(t, b)))
	}
	ts, rep, err := ReadTrajectories(NewInput("log_formats.eval", data), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, rep, w)
	if ts[0].Model != "ollama/llama3.1" || !strings.HasPrefix(ts[0].Task, "Is the following statement") || ts[0].Outcome.Passed {
		t.Errorf("run = %+v", ts[0])
	}

	data = readReal(t, "trajectories/openhands/basic.json")
	w = want{runs: 1}
	actions := map[float64]bool{}
	for _, e := range arr(generic(t, data)) {
		eo := obj(e)
		w.steps++
		if a := toString(eo["action"]); a != "" && a != "message" && a != "finish" && a != "system" {
			w.calls++
			actions[eo["id"].(float64)] = true
		}
		if a := toString(eo["action"]); a == "finish" {
			w.outcomes++
		}
		if c, ok := eo["cause"].(float64); ok && actions[c] {
			w.linked++
		}
	}
	ts, rep, err = ReadTrajectories(NewInput("basic.json", data), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, rep, w)
	if ts[0].Model != "claude-3-5-sonnet-20241022" || ts[0].Steps[1].ToolCalls[0].Name != "str_replace_editor" {
		t.Errorf("run model %q step 2 %+v", ts[0].Model, ts[0].Steps[1])
	}
}

func TestRealMemories(t *testing.T) {
	data := readReal(t, "memory/letta/co-3.af")
	raw := obj(generic(t, data))
	nonEmpty, long := 0, map[string]string{} // block id → value, for blocks past splitAbove
	for _, b := range arr(raw["blocks"]) {
		v := toString(obj(b)["value"])
		if strings.TrimSpace(v) != "" {
			nonEmpty++
		}
		if len(v) > splitAbove {
			long[toString(obj(b)["id"])] = v
		}
	}
	ms, rep, err := ReadMemories(NewInput("co-3.af", data), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	// A block up to splitAbove is one memory; a longer one is its parts,
	// each citing the block as ID#N, each of the block's own lines, and
	// together holding every line of the block.
	parts := map[string][]string{}
	whole := 0
	for _, m := range ms {
		src := m.Proposal.Record.Provenance.Source
		id, _, split := strings.Cut(src.ID, "#")
		if !split {
			whole++
			continue
		}
		parts[id] = append(parts[id], m.Proposal.Record.Lemma)
	}
	if rep.Format != "letta" || nonEmpty != 29 || whole != nonEmpty-len(long) || len(parts) != len(long) || len(long) < 3 {
		t.Fatalf("letta: %s %d memories (%d whole, %d blocks split), %d non-empty blocks, %d long", rep.Format, len(ms), whole, len(parts), nonEmpty, len(long))
	}
	for id, v := range long {
		got := parts[id]
		if len(got) < 2 {
			t.Errorf("block %s (%d bytes) gave %d parts", id, len(v), len(got))
		}
		lines := map[string]bool{}
		for _, l := range strings.Split(v, "\n") {
			lines[strings.TrimSpace(l)] = true
		}
		covered := map[string]bool{}
		for _, p := range got {
			if len(p) > 2*splitAbove {
				t.Errorf("block %s: a part of %d bytes", id, len(p))
			}
			for _, l := range strings.Split(p, "\n") {
				if !lines[strings.TrimSpace(l)] {
					t.Errorf("block %s: part line %q is not in the block", id, l)
				}
				covered[strings.TrimSpace(l)] = true
			}
		}
		for l := range lines {
			if !covered[l] && l != "" {
				t.Errorf("block %s: line %q is in no part", id, l)
			}
		}
	}
	if src := ms[0].Proposal.Record.Provenance.Source; src.Agent != "co-3" || src.ID == "" || src.Label == "" {
		t.Errorf("source %+v", src)
	}

	data = readReal(t, "memory/mcp-memory/memory-graph.jsonl")
	n := 0
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		o := obj(generic(t, l))
		if o["from"] != nil {
			n++
			continue
		}
		for _, ob := range arr(o["observations"]) {
			if strings.TrimSpace(toString(ob)) != "" {
				n++
			}
		}
	}
	ms, rep, err = ReadMemories(NewInput("graph.jsonl", data), nil, "kb")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != "mcp-memory" || len(ms) != n {
		t.Fatalf("mcp-memory: %s %d memories, want %d", rep.Format, len(ms), n)
	}
	if r := ms[0].Proposal.Record; r.Lemma != "Alice (Person): Software Engineer" || r.Scope.Env != "kb" || ms[0].Proposal.Status != "pending" {
		t.Errorf("first memory %+v", r)
	}
}

func TestSWEAgentTaskIsTheIssue(t *testing.T) {
	data := readReal(t, "trajectories/swe-agent/marshmallow-1867-function-calling.traj")
	ts, _, err := ReadTrajectories(NewInput("m.traj", data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ts[0].Task, "TimeDelta serialization precision") || strings.Contains(ts[0].Task, "INSTRUCTIONS:") || ts[0].Env != "" {
		t.Errorf("task %.80q env %q", ts[0].Task, ts[0].Env)
	}
	if got := issueText("no template here"); got != "no template here" {
		t.Errorf("issueText without a template = %q", got)
	}
}
