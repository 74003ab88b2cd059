package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/ui/mcpserver"
)

// world is a small real bank (SQLite store + Bleve index) and a server on it.
type world struct {
	dir   string
	store *store.Store
	svc   *app.Service
	bank  mcpserver.Service
	srv   *mcpserver.Server
}

// testRecords: two active records in env shop, one retired.
func testRecords() []review.Record {
	return []review.Record{
		{ID: "mem_0001", Lemma: "In shop.db, reviews join items on fdbk_g1.ref_id = items_g1.item_id.", Category: review.Relation,
			Scope: review.Scope{Env: "shop", Tags: []string{"reviews"}}, Trigger: "joining reviews to items", Confidence: 0.9, Status: review.Active},
		{ID: "mem_0002", Lemma: "Order totals in shop.db are stored in cents; divide by 100 for dollars.", Category: review.Fact,
			Scope: review.Scope{Env: "shop", Tags: []string{"orders"}}, Confidence: 0.8, Status: review.Active,
			Steps: []string{"SELECT total FROM orders", "divide by 100"}},
		{ID: "mem_0003", Lemma: "Old advice about the legacy orders table that no longer exists.", Category: review.Warning,
			Scope: review.Scope{Env: "shop"}, Confidence: 0.5, Status: review.Retired},
	}
}

func testTrajectory() review.Trajectory {
	return review.Trajectory{ID: "traj_01", Env: "shop", Task: "count reviewed items", Outcome: review.Outcome{Passed: true, Reward: 1},
		Steps: []review.Step{{Role: "user", Content: "count reviewed items"}, {Role: "assistant", Content: "SELECT count(*) …"},
			{Role: "tool", Content: "267"}, {Role: "assistant", Content: "267"}}}
}

func newWorld(t testing.TB, opt mcpserver.Options) *world {
	t.Helper()
	dir := t.TempDir()
	s, err := store.Create(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutRecords(testRecords(), "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTrajectories([]review.Trajectory{testTrajectory()}); err != nil {
		t.Fatal(err)
	}
	svc := app.New(s, app.Options{Operator: "test", WatchEvery: 20 * time.Millisecond})
	t.Cleanup(func() { svc.Close() })
	b := mcpserver.FromService(svc)
	return &world{dir: dir, store: s, svc: svc, bank: b, srv: mcpserver.New(b, opt)}
}

// connect opens a client session named client over an in-memory transport,
// with the server watching for changes; each of setup is applied to the
// client before it connects.
func (w *world) connect(t testing.TB, client string, copt *mcp.ClientOptions, setup ...func(*mcp.Client)) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if _, err := w.srv.StartWatch(ctx); err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := w.srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1"}, copt)
	for _, f := range setup {
		f(c)
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out (when not
// nil). It fails the test on a protocol error; a tool error is returned as
// the result's text with isError.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args any, out any) (errText string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		return text(res)
	}
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decode %s: %v", tool, b, err)
		}
	}
	return ""
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mustCall is call that fails the test on a tool error.
func mustCall(t testing.TB, cs *mcp.ClientSession, tool string, args any, out any) {
	t.Helper()
	if e := call(t, cs, tool, args, out); e != "" {
		t.Fatalf("%s: tool error: %s", tool, e)
	}
}

func queueLen(t testing.TB, s *store.Store) int {
	t.Helper()
	q, err := s.Queue()
	if err != nil {
		t.Fatal(err)
	}
	return len(q)
}

// createArgs is a valid memory_propose create citing traj_01's steps 2..3.
func createArgs(lemma string) map[string]any {
	return map[string]any{"op": "create", "rationale": "step 3 returned 267 rows after the join",
		"trajectory_id": "traj_01", "steps": map[string]any{"from": 2, "to": 3},
		"record": map[string]any{"lemma": lemma, "category": "procedure", "confidence": 0.7,
			"scope": map[string]any{"env": "shop", "tags": []string{"reviews"}}}}
}
