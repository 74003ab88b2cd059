package curator

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

func TestDistillValidates(t *testing.T) {
	t.Parallel()
	tr := testTrajectory(false)
	for name, tc := range map[string]struct{ content, want string }{
		"step out of range": {args(map[string]any{"task": "x", "observations": []any{map[string]any{"steps": map[string]int{"from": 3, "to": 9}, "text": "y"}}}), "observation 1 cites steps 3–9, but the trajectory has steps 1–4"},
		"empty task":        {args(map[string]any{"task": " ", "observations": []any{}}), "its task is empty"},
		"not json":          {"Sure! Here is the packet.", "is not the packet JSON"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeLLM(t, completion(map[string]any{"role": "assistant", "content": tc.content}))
			_, err := distillOnly(context.Background(), testLLM(f, &sleeper{}, nil), &tr)
			if err == nil {
				t.Fatal("no error")
			}
			mustContain(t, "error", err.Error(), "curator: the distilled packet for traj_1", tc.want)
		})
	}
	f := newFakeLLM(t, completion(map[string]any{"role": "assistant", "content": "```json\n" + `{"task":"t","observations":[{"steps":{"from":1,"to":4},"text":"all"}]}` + "\n```"}))
	p, err := distillOnly(context.Background(), testLLM(f, &sleeper{}, nil), &tr)
	if err != nil || p.Task != "t" || len(p.Observations) != 1 {
		t.Errorf("fenced packet: %+v, %v", p, err)
	}
}

func TestCurateRedistill(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t,
		completion(map[string]any{"role": "assistant", "content": `{"task":"fresh task","retrieved":[],"observations":[],"procedures":[],"assumptions":[],"answer":""}`}),
		toolReply(call{"c1", "propose_skip", `{"targets":[],"rationale":"nothing new","evidence":[],"probe_runs":[]}`}).with(func(t *testing.T, r *wireReq) {
			mustContain(t, "brief", r.Messages[1].Content, "fresh task")
		}),
		toolReply(call{"c2", "finish", `{"summary":"s"}`}),
	)
	if _, err := Curate(context.Background(), Deps{Store: st, LLM: testLLM(f, &sleeper{}, nil)}, []string{"traj_1"}, Options{Redistill: true, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	f.done()
	if n := queueLen(t, st); n != 0 {
		t.Errorf("dry run saved %d proposals", n)
	}
	if got, _ := st.Trajectory("traj_1"); got.Distilled.Task != "List the item names." {
		t.Errorf("dry run replaced the packet: %+v", got.Distilled)
	}
}

func TestDeclaredSchemasAreStrict(t *testing.T) {
	t.Parallel()
	var check func(path string, v any)
	check = func(path string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if m["type"] == "object" {
			props, _ := m["properties"].(map[string]any)
			req, _ := m["required"].([]any)
			if m["additionalProperties"] != false || len(req) != len(props) {
				t.Errorf("%s: not strict: %v", path, m)
			}
		}
		for k, c := range m {
			check(path+"."+k, c)
		}
	}
	every := review.Config{Envs: []probe.Env{{Name: "a", Kind: probe.KindSQL}, {Name: "b", Kind: probe.KindFiles},
		{Name: "c", Kind: probe.KindPostgres}, {Name: "d", Kind: probe.KindMCP}}}
	var loose []string
	for _, tl := range declareTools(every, true, map[string][]string{"d": {"lookup"}}) {
		var v any
		if err := json.Unmarshal(tl.Function.Parameters.(json.RawMessage), &v); err != nil {
			t.Fatal(err)
		}
		if !tl.Function.Strict {
			// mcp_call's arguments follow each MCP tool's own schema;
			// the rest of it is strict.
			loose = append(loose, tl.Function.Name)
			v.(map[string]any)["properties"].(map[string]any)["arguments"] = nil
		}
		check(tl.Function.Name, v)
	}
	if !slices.Equal(loose, []string{"mcp_call"}) {
		t.Errorf("tools declared without strict mode: %v, want only mcp_call", loose)
	}
	names := []string{}
	for _, tl := range declareTools(review.Config{Envs: []probe.Env{{Name: "a", Kind: probe.KindSQL}}}, true, nil) {
		names = append(names, tl.Function.Name)
	}
	if slices.Contains(names, "files_ls") || !slices.Contains(names, "sql_query") {
		t.Errorf("tools for a bank with only a sql env: %v", names)
	}
}

// distillOnly is distill's packet and error.
func distillOnly(ctx context.Context, llm LLM, t *review.Trajectory) (*review.Packet, error) {
	p, _, _, err := distill(ctx, llm, t)
	return p, err
}
