package mcpserver_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/mcpserver"
)

// connectTo opens a client session named client on srv.
func connectTo(t *testing.T, srv *mcpserver.Server, client string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func runArgs(id string) map[string]any {
	return map[string]any{"trajectory": map[string]any{"id": id, "task": "join reviews", "outcome": map[string]any{"passed": false, "reward": 0},
		"steps": []any{map[string]any{"role": "user", "content": "join reviews"}, map[string]any{"role": "assistant", "content": "done"}}}}
}

// An agent cannot forge "retrieved by" evidence (issue 23 item 21): a
// memory_search naming a stored run's id, even on a read-only server,
// links nothing, and a task_id links only to the run the same session
// submits under it — never to another session's, nor to a file imported
// later.
func TestTaskIDLinksOnlyTheSessionsOwnRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	worthBefore, err := w.svc.Worth("mem_0001")
	if err != nil {
		t.Fatal(err)
	}
	search := func(cs *mcp.ClientSession, task string) {
		t.Helper()
		var out mcpserver.SearchOut
		mustCall(t, cs, "memory_search", map[string]any{"query": "join reviews to items in shop.db", "env": "shop", "task_id": task}, &out)
		if len(out.Records) == 0 || out.Records[0].ID != "mem_0001" {
			t.Fatalf("search = %+v", out.Records)
		}
	}
	reader := connectTo(t, mcpserver.New(w.bank, mcpserver.Options{ReadOnly: true}), "reader")
	search(reader, "traj_01") // the stored run of the fixture
	forger := w.connect(t, "forger", nil)
	search(forger, "traj_01")
	search(forger, "run-b")
	search(forger, "run-file")
	owner := w.connect(t, "owner", nil)
	mustCall(t, owner, "trajectory_submit", runArgs("run-b"), nil)
	search(owner, "run-own")
	mustCall(t, owner, "trajectory_submit", runArgs("run-own"), nil)
	// A file imported with the CLI, under an id an agent searched with.
	if _, err := w.svc.Import(context.Background(), app.KindTrajectories, []app.ImportInput{{Name: "run-file.jsonl",
		R: bytes.NewReader([]byte(`{"id":"run-file","task":"t","steps":[{"role":"user","content":"x"}]}`))}}, app.ImportOptions{}); err != nil {
		t.Fatal(err)
	}

	used, err := w.store.RetrievedBy("mem_0001")
	if err != nil {
		t.Fatal(err)
	}
	if len(used) != 1 || used[0].Trajectory != "run-own" {
		t.Fatalf("mem_0001 retrieved by %+v, want only run-own (the owner's own search and run)", used)
	}
	worth, err := w.svc.Worth("mem_0001")
	if err != nil {
		t.Fatal(err)
	}
	if worth.Retrieved != worthBefore.Retrieved+1 {
		t.Fatalf("worth of mem_0001 = %+v (before %+v), want one more retrieval", worth, worthBefore)
	}
	for _, id := range []string{"traj_01", "run-b", "run-file"} {
		tr, err := w.store.Trajectory(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Retrieved) != 0 {
			t.Errorf("run %s retrieved %v: another session's search became its evidence", id, tr.Retrieved)
		}
	}
}
