package mcpserver_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review/store"
)

// Agents in separate processes submitting at once never lose an
// acknowledged run (issue 23 item 16): runs without an id get ids that
// do not collide across processes (the same client name, the same
// second), and of submissions under one id exactly one is acknowledged,
// the one the bank then holds.
func TestBinaryConcurrentSubmitsNeverOverwrite(t *testing.T) {
	t.Parallel()
	dir := bankDir(t)
	const procs, runs = 3, 4
	agents := make([]*mcp.ClientSession, procs)
	for i := range agents {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(),
			&mcp.CommandTransport{Command: exec.Command(memreviewBin, "--bank", dir, "serve")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		agents[i] = cs
	}
	type ack struct {
		id, content, refusal string
	}
	// submit sends runs from every agent at once; body(p, r) is agent p's
	// r-th run.
	submit := func(body func(p, r int) (any, string)) [][]ack {
		out := make([][]ack, procs)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for p := range agents {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for r := range runs {
					traj, content := body(p, r)
					res, err := agents[p].CallTool(context.Background(), &mcp.CallToolParams{Name: "trajectory_submit", Arguments: map[string]any{"trajectory": traj}})
					a := ack{content: content}
					switch {
					case err != nil:
						a.refusal = err.Error()
					case res.IsError:
						a.refusal = text(res)
					default:
						a.id = res.StructuredContent.(map[string]any)["trajectory_id"].(string)
					}
					out[p] = append(out[p], a)
				}
			}()
		}
		close(start)
		wg.Wait()
		return out
	}
	chat := func(p, r int) (any, string) {
		c := fmt.Sprintf("agent %d run %d", p, r)
		return []any{map[string]any{"role": "user", "content": c}, map[string]any{"role": "assistant", "content": "done"}}, c
	}
	same := func(p, r int) (any, string) {
		c := fmt.Sprintf("agent %d's run x%d", p, r)
		return map[string]any{"id": fmt.Sprintf("x%d", r), "task": c, "steps": []any{map[string]any{"role": "user", "content": c}}}, c
	}
	generated, shared := submit(chat), submit(same)

	s, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stored := func(id string) string {
		tr, err := s.Trajectory(id)
		if err != nil {
			t.Fatalf("acknowledged run %s is not in the bank: %v", id, err)
		}
		return tr.Steps[0].Content
	}
	ids := map[string]bool{}
	for p, as := range generated {
		for r, a := range as {
			if a.refusal != "" {
				t.Fatalf("agent %d's run %d, which gave no id, was refused: %s", p, r, a.refusal)
			}
			if ids[a.id] {
				t.Fatalf("two runs were given id %s", a.id)
			}
			ids[a.id] = true
			if !strings.HasPrefix(a.id, "mcp-agent-") {
				t.Errorf("generated id %s", a.id)
			}
			if got := stored(a.id); got != a.content {
				t.Fatalf("run %s acknowledged to agent %d holds %q, want %q: overwritten", a.id, p, got, a.content)
			}
		}
	}
	for r := range runs {
		id := fmt.Sprintf("x%d", r)
		var winners []ack
		for p := range shared {
			a := shared[p][r]
			if a.refusal == "" {
				winners = append(winners, a)
			} else if !strings.Contains(a.refusal, "already in the bank") {
				t.Errorf("agent %d's %s refused with %q", p, id, a.refusal)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("%s was acknowledged to %d agents, want exactly 1: %+v", id, len(winners), winners)
		}
		if got := stored(id); got != winners[0].content {
			t.Fatalf("%s holds %q, but %q was acknowledged", id, got, winners[0].content)
		}
	}
	trs, err := s.Trajectories()
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + procs*runs + runs; len(trs) != want { // the fixture's traj_01 too
		t.Fatalf("%d trajectories in the bank, want %d", len(trs), want)
	}
}
