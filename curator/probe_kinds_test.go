package curator

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// TestProbeToolsOfEveryKind: the probe tools of documents, PostgreSQL and
// MCP environments turn the model's arguments into each kind's probe
// grammar (mcp_call's arguments as an object, as a string holding one, or
// absent), refuse malformed ones as bad calls the model can correct, and
// the brief tells the model each environment's kind and an MCP server's
// callable tools. The probes are recorded, not run: the service's runner
// is tested with real servers in review/app.
func TestProbeToolsOfEveryKind(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	cfg, err := st.Config()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Envs = append(cfg.Envs,
		probe.Env{Name: "wh", Kind: probe.KindPostgres, URL: "postgres://ro@db.internal/wh"},
		probe.Env{Name: "tk", Kind: probe.KindMCP, Command: []string{"ticket-server", "--read"}})
	if err := st.SaveConfig(cfg); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var inputs []string
	deps := Deps{Store: st,
		Probe: func(_ context.Context, env probe.Env, input string, _ probe.Limits) probe.Result {
			mu.Lock()
			defer mu.Unlock()
			inputs = append(inputs, env.Name+" "+input)
			return probe.Result{Env: env.Name, Kind: env.Kind, Input: input, Text: "ok"}
		},
		Describe: func(_ context.Context, env probe.Env) probe.Description {
			d := probe.Description{Name: env.Name, Kind: env.Kind, Target: env.Target(), Usage: probe.Usage(env.Kind)}
			if env.Kind == probe.KindMCP {
				d.Tools = []probe.Tool{{Name: "ticket_get", Description: "read one ticket", Callable: true,
					InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)},
					{Name: "ticket_search", Callable: true, AllowListed: true, InputSchema: json.RawMessage(`{"type":"object"}`)}}
			}
			return d
		},
	}
	read := func(path string, page, slide int, sheet string) string {
		return args(map[string]any{"env": "docs", "path": path, "offset": 0, "limit": 0, "page": page, "slide": slide, "sheet": sheet})
	}
	mcpCall := func(tool string, arguments any) string {
		return args(map[string]any{"env": "tk", "tool": tool, "arguments": arguments})
	}
	f := newFakeLLM(t,
		toolReply(
			call{"c1", "files_read", read("q3.pdf", 3, 0, "")},
			call{"c2", "files_read", read("deck.pptx", 0, 2, "")},
			call{"c3", "files_read", read("book.xlsx", 0, 0, "Q3 results")},
			call{"c4", "files_sheet", args(map[string]any{"env": "docs", "path": "book.xlsx", "sheet": "Q3", "range": "B2:D9"})},
			call{"c5", "files_sheet", args(map[string]any{"env": "docs", "path": "book.xlsx", "sheet": "", "range": ""})},
			call{"c6", "postgres_query", args(map[string]any{"env": "wh", "sql": "SELECT count(*) FROM orders"})},
			call{"c7", "mcp_call", mcpCall("ticket_get", map[string]any{"id": "T-1"})},
			call{"c8", "mcp_call", mcpCall("ticket_get", `{"id": "T-2"}`)},
			call{"c9", "mcp_call", `{"env":"tk","tool":"ticket_search"}`},
		).with(func(t *testing.T, r *wireReq) {
			mustContain(t, "brief", r.Messages[1].Content, "- wh (postgres), database \"wh\" on host \"db.internal\": probe with postgres_query",
				"- tk (mcp), stdio: ticket-server --read: probe with mcp_call", `- ticket_get: read one ticket; {"type":"object","properties":{"id":{"type":"string"}}}`,
				"- ticket_search: (no description); {\"type\":\"object\"} (callable by the operator's allow-list")
		}),
		toolReply(
			call{"d1", "files_read", read("deck.pptx", 1, 2, "")},
			call{"d2", "mcp_call", mcpCall("ticket_get", "[1, 2]")},
			call{"d3", "mcp_call", mcpCall("ticket get", map[string]any{})},
		),
		toolReply(call{"e1", "propose_skip", args(map[string]any{"targets": []string{}, "rationale": "nothing new", "evidence": []any{}, "probe_runs": []string{}})}).
			with(func(t *testing.T, r *wireReq) {
				mustContain(t, "two of page, slide, sheet", r.toolResult(t, "d1"), "at most one of page, slide and sheet")
				mustContain(t, "arguments not an object", r.toolResult(t, "d2"), "arguments must be a JSON object")
				mustContain(t, "a tool name with a space", r.toolResult(t, "d3"), "mcp_call needs tool to be the name of one callable tool")
			}),
		toolReply(call{"e2", "finish", args(map[string]any{"summary": "skip"})}),
	)
	deps.LLM = testLLM(f, &sleeper{}, nil)
	run, err := Curate(context.Background(), deps, []string{"traj_1"}, Options{Probe: true, RunID: "cur_k", MaxBadCalls: 5})
	if err != nil {
		t.Fatal(err)
	}
	f.done()
	want := []string{
		"docs read 'q3.pdf' --page 3",
		"docs read 'deck.pptx' --slide 2",
		"docs read 'book.xlsx' --sheet 'Q3 results'",
		"docs sheet 'book.xlsx' 'Q3' 'B2:D9'",
		"docs sheet 'book.xlsx'",
		"wh SELECT count(*) FROM orders",
		`tk ticket_get {"id":"T-1"}`,
		`tk ticket_get {"id":"T-2"}`,
		"tk ticket_search {}",
	}
	if !reflect.DeepEqual(inputs, want) {
		t.Errorf("probes run:\n%s\nwant:\n%s", strings.Join(inputs, "\n"), strings.Join(want, "\n"))
	}
	if run.BadCalls != 3 || len(run.ProbeRuns) != len(want) {
		t.Errorf("run: %d bad calls, %d probe runs", run.BadCalls, len(run.ProbeRuns))
	}
	q, _ := st.Queue()
	if len(q) != 1 || len(q[0].Evidence.ProbeRuns) != len(want) || q[0].Op != review.OpSkip {
		t.Errorf("queue: %+v", q)
	}
}
