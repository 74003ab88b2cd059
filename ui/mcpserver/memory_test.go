package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/mcpserver"
)

// memoryCall calls the memory tool and returns its text and whether it
// was an error.
func memoryCall(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.ToolMemory, Arguments: args})
	if err != nil {
		t.Fatalf("memory %v: %v", args, err)
	}
	return text(res), res.IsError
}

func mustMemory(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	out, isErr := memoryCall(t, cs, args)
	if isErr {
		t.Fatalf("memory %v: tool error: %s", args, out)
	}
	return out
}

// TestMemoryToolAsAModelUsesIt drives the memory tool through the SDK's
// client with the commands a model sends: view the directory, create a
// file, view it, edit it, view it again. Every write is a pending
// proposal; after a person accepts, a new session views the accepted text.
func TestMemoryToolAsAModelUsesIt(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	cs := w.connect(t, "claude-desktop", nil)

	listing := mustMemory(t, cs, map[string]any{"command": "view", "path": "/memories"})
	if !strings.HasPrefix(listing, "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n") ||
		!strings.Contains(listing, "\t/memories/shop/relation/") || !strings.Contains(listing, "\t/memories/shop/fact/") {
		t.Fatalf("view /memories:\n%s", listing)
	}
	out := mustMemory(t, cs, map[string]any{"command": "create", "path": "/memories/shop/warning/joins.md",
		"file_text": "Never join reviews on items.id; use fdbk_g1.ref_id.\n"})
	if !strings.HasPrefix(out, "File created successfully at: /memories/shop/warning/joins.md (pending review as prop_") {
		t.Fatalf("create: %s", out)
	}
	view := mustMemory(t, cs, map[string]any{"command": "view", "path": "/memories/shop/warning/joins.md"})
	if view != "Here's the content of /memories/shop/warning/joins.md with line numbers:\n     1\tNever join reviews on items.id; use fdbk_g1.ref_id.\n     2\t" {
		t.Fatalf("view after create: %q", view)
	}
	out = mustMemory(t, cs, map[string]any{"command": "str_replace", "path": "/memories/shop/warning/joins.md",
		"old_str": "Never join", "new_str": "Do not join"})
	if !strings.HasPrefix(out, "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tDo not join reviews") {
		t.Fatalf("str_replace: %s", out)
	}
	view = mustMemory(t, cs, map[string]any{"command": "view", "path": "/memories/shop/warning/joins.md"})
	if !strings.Contains(view, "     1\tDo not join reviews on items.id; use fdbk_g1.ref_id.") {
		t.Fatalf("view after str_replace: %q", view)
	}

	// The queue holds one create (the rewrite replaced the first draft).
	q, err := w.store.Queue()
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 1 || q[0].Op != review.OpCreate || q[0].Record.Category != review.Warning || q[0].Record.Scope.Env != "shop" ||
		q[0].Record.Lemma != "Do not join reviews on items.id; use fdbk_g1.ref_id.\n" || q[0].CuratorRun != "memory-tool:claude-desktop" {
		t.Fatalf("queue: %+v", q)
	}
	// Nothing is a record until a person accepts it.
	if n := len(recordsIn(t, w, "shop")); n != 2 {
		t.Fatalf("%d active shop records before the decision, want 2", n)
	}
	if _, err := w.svc.Decide(context.Background(), review.DecideRequest{Proposal: q[0].ID, Verb: review.Accept, Operator: "ana"}); err != nil {
		t.Fatal(err)
	}
	later := w.connect(t, "claude-desktop", nil)
	view = mustMemory(t, later, map[string]any{"command": "view", "path": "/memories/shop/warning/joins.md"})
	if !strings.Contains(view, "     1\tDo not join reviews on items.id; use fdbk_g1.ref_id.") {
		t.Fatalf("view after accept: %q", view)
	}
	// A refusal is a tool error in the reference's words.
	out, isErr := memoryCall(t, later, map[string]any{"command": "create", "path": "/memories/shop/warning/joins.md", "file_text": "again"})
	if !isErr || out != "File /memories/shop/warning/joins.md already exists" {
		t.Fatalf("create over an existing file: %v %q", isErr, out)
	}
}

func recordsIn(t *testing.T, w *world, env string) []review.Record {
	t.Helper()
	rs, err := w.store.Records(review.RecordFilter{Status: review.Active, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestMemoryToolSchemaIsTheCommands: tools/list offers "memory" with one
// branch per command, and input outside them is refused before it runs.
func TestMemoryToolSchemaIsTheCommands(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	cs := w.connect(t, "c", nil)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		OneOf []struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"oneOf"`
	}
	found := false
	for _, tl := range tools.Tools {
		if tl.Name == mcpserver.ToolMemory {
			found = true
			b, _ := json.Marshal(tl.InputSchema)
			if err := json.Unmarshal(b, &schema); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !found || len(schema.OneOf) != 6 {
		t.Fatalf("memory tool: found %v, %d commands", found, len(schema.OneOf))
	}
	want := map[string]string{`"view"`: "command path", `"create"`: "command path file_text", `"str_replace"`: "command path old_str new_str",
		`"insert"`: "command path insert_line insert_text", `"delete"`: "command path", `"rename"`: "command old_path new_path"}
	for _, c := range schema.OneOf {
		var cmd struct {
			Const string `json:"const"`
		}
		json.Unmarshal(c.Properties["command"], &cmd)
		if got := strings.Join(c.Required, " "); want[`"`+cmd.Const+`"`] != got {
			t.Errorf("command %q requires %q, want %q", cmd.Const, got, want[`"`+cmd.Const+`"`])
		}
	}
	if out, isErr := memoryCall(t, cs, map[string]any{"command": "create", "path": "/memories/x.md"}); !isErr || !strings.Contains(out, "validating") {
		t.Fatalf("create without file_text: %v %q", isErr, out)
	}
	if n := queueLen(t, w.store); n != 0 {
		t.Fatalf("refused input queued %d proposals", n)
	}
	// Every command's fields pass the schema as the model sends them.
	f := "/memories/shop/fact/mem_0002.md"
	if out := mustMemory(t, cs, map[string]any{"command": "view", "path": f, "view_range": []int{1, 1}}); !strings.HasSuffix(out, "     1\tOrder totals in shop.db are stored in cents; divide by 100 for dollars.") {
		t.Fatalf("view_range: %q", out)
	}
	mustMemory(t, cs, map[string]any{"command": "insert", "path": f, "insert_line": 1, "insert_text": "Check the currency column too."})
	mustMemory(t, cs, map[string]any{"command": "rename", "old_path": f, "new_path": "/memories/shop/warning/mem_0002.md"})
	mustMemory(t, cs, map[string]any{"command": "delete", "path": "/memories/shop/relation/mem_0001.md"})
	if n := queueLen(t, w.store); n != 2 { // the rename replaced the insert
		t.Fatalf("%d proposals queued, want 2", n)
	}
	// A read-only server offers no memory tool.
	ro := newWorld(t, mcpserver.Options{ReadOnly: true}).connect(t, "c", nil)
	tools, _ = ro.ListTools(context.Background(), nil)
	for _, tl := range tools.Tools {
		if tl.Name == mcpserver.ToolMemory {
			t.Fatal("a read-only server offers the memory tool")
		}
	}
}

// postMemory sends one memory tool command to POST /memory.
func postMemory(t *testing.T, url, token, session, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set(mcpserver.SessionHeader, session)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestMemoryOverPlainHTTP: the same tool at POST /memory, the tool input
// as the body and the result as text, behind the bearer token.
func TestMemoryOverPlainHTTP(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	base := strings.TrimSuffix(serveHTTP(t, w.srv, "s3cret"), mcpserver.Path)
	url := base + mcpserver.MemoryPath

	if code, _ := postMemory(t, url, "", "", `{"command":"view","path":"/memories"}`); code != http.StatusUnauthorized {
		t.Fatalf("no token: %d", code)
	}
	code, out := postMemory(t, url, "s3cret", "app-1", `{"command":"create","path":"/memories/notes.md","file_text":"Prefer ISO dates."}`)
	if code != http.StatusOK || !strings.HasPrefix(out, "File created successfully at: /memories/notes.md (pending review as prop_") {
		t.Fatalf("create: %d %q", code, out)
	}
	// The session sees its write; another session does not.
	if code, out := postMemory(t, url, "s3cret", "app-1", `{"command":"view","path":"/memories/notes.md"}`); code != http.StatusOK || !strings.HasSuffix(out, "     1\tPrefer ISO dates.") {
		t.Fatalf("view own write: %d %q", code, out)
	}
	if code, out := postMemory(t, url, "s3cret", "app-2", `{"command":"view","path":"/memories/notes.md"}`); code != http.StatusUnprocessableEntity || out != "The path /memories/notes.md does not exist. Please provide a valid path." {
		t.Fatalf("another session: %d %q", code, out)
	}
	if code, out := postMemory(t, url, "s3cret", "app-1", `{"command":"view","path":"/etc/passwd"}`); code != http.StatusUnprocessableEntity || out != "Path must start with /memories, got: /etc/passwd" {
		t.Fatalf("outside /memories: %d %q", code, out)
	}
	if code, _ := postMemory(t, url, "s3cret", "app-1", `{"command":"view","path":"/memories","bogus":1}`); code != http.StatusBadRequest {
		t.Fatalf("unknown field: %d", code)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"command":"view","path":"/memories"}`))
	req.Header.Set("Authorization", "Bearer s3cret")
	req.Header.Set("Content-Type", "text/plain") // what a cross-site form may send
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain body: %d", res.StatusCode)
	}
	if n := queueLen(t, w.store); n != 1 {
		t.Fatalf("%d proposals queued, want 1", n)
	}
}
