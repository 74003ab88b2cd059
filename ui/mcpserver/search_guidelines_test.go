package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/ui/mcpserver"
)

// format "guidelines" gives the records as the prompt section, in the
// text content an agent reads and beside the records; an unknown format
// is refused naming the field.
func TestSearchGuidelinesFormat(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	cs := w.connect(t, "cursor", nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_search",
		Arguments: map[string]any{"query": "order totals in cents", "env": "shop", "format": "guidelines"}})
	if err != nil || res.IsError {
		t.Fatalf("memory_search guidelines: %v %s", err, text(res))
	}
	body := text(res)
	for _, want := range []string{"## Guidelines from memory", "· mem_0002\n", "- Content: Order totals in shop.db are stored in cents", "- Steps:\n  1. SELECT total FROM orders\n"} {
		if !strings.Contains(body, want) {
			t.Fatalf("guidelines text lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "mem_0003") {
		t.Errorf("a retired record reached the guidelines:\n%s", body)
	}
	var out mcpserver.SearchOut
	mustCall(t, cs, "memory_search", map[string]any{"query": "order totals in cents", "env": "shop", "format": "guidelines"}, &out)
	if out.Guidelines != body || len(out.Records) == 0 || out.Records[0].ID != "mem_0002" {
		t.Fatalf("structured result: %+v", out)
	}
	if e := call(t, cs, "memory_search", map[string]any{"query": "x", "format": "yaml"}, nil); !strings.Contains(e, `"format"`) {
		t.Fatalf("format yaml: %q, want the field named", e)
	}
}

// select: true asks the chat model for the query and filters; an env it
// invents is dropped and said, and prose instead of a tool call falls
// back to plain search, said too.
func TestSearchSelect(t *testing.T) {
	llm := llmtest.New(t,
		llmtest.Calls(llmtest.Call{Name: "select_memories", Args: `{"query":"order totals cents","env":"moon","categories":["fact"]}`}),
		llmtest.Text("You probably want the orders table."))
	t.Setenv("OPENAI_BASE_URL", llm.BaseURL())
	t.Setenv("OPENAI_API_KEY", "none")
	t.Setenv("OPENAI_MODEL", "picker")
	w := newWorld(t, mcpserver.Options{})
	cs := w.connect(t, "cursor", nil)
	var out mcpserver.SearchOut
	mustCall(t, cs, "memory_search", map[string]any{"query": "what did the customer pay", "select": true}, &out)
	if len(out.Records) == 0 || out.Records[0].ID != "mem_0002" || !strings.Contains(strings.Join(out.Notes, "|"), `dropped env "moon"`) {
		t.Fatalf("select: %+v", out)
	}
	for _, r := range out.Records {
		if r.Category != "fact" {
			t.Errorf("the selection's categories were not applied: %+v", r)
		}
	}
	mustCall(t, cs, "memory_search", map[string]any{"query": "reviews join items", "env": "shop", "select": true}, &out)
	if len(out.Records) == 0 || out.Records[0].ID != "mem_0001" || !strings.Contains(strings.Join(out.Notes, "|"), "plain hybrid retrieval") {
		t.Fatalf("select answered with prose: %+v", out)
	}
}
