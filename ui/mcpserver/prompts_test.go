package mcpserver_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/ui/mcpserver"
)

func promptText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]string) string {
	t.Helper()
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("prompt %s: %v", name, err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("prompt %s: %+v", name, res.Messages)
	}
	return res.Messages[0].Content.(*mcp.TextContent).Text
}

func TestRecallPromptGivesTheGuidelines(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	cs := w.connect(t, "cursor", nil)
	list, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"propose_lesson", "recall"}) {
		t.Fatalf("prompts %v", names)
	}
	text := promptText(t, cs, mcpserver.PromptRecall, map[string]string{"task": "join reviews to items", "env": "shop", "task_id": "task-9"})
	if !strings.Contains(text, "### 1. Relation · priority 0 · mem_0001\n- Content: In shop.db, reviews join items on fdbk_g1.ref_id = items_g1.item_id.\n- Purpose: how things in the environment connect\n- Trigger: joining reviews to items\n") ||
		!strings.HasSuffix(text, "\nTask: join reviews to items\n") || strings.Contains(text, "mem_0003") {
		t.Fatalf("recall:\n%s", text)
	}
	log, err := w.svc.Retrievals(0, 0)
	if err != nil || len(log) != 1 || log[0].TaskID != "task-9" || log[0].Client != "mcp:cursor" {
		t.Fatalf("the recall was not logged as a retrieval: %+v %v", log, err)
	}
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: mcpserver.PromptRecall}); err == nil || !strings.Contains(err.Error(), `"task" is required`) {
		t.Fatalf("recall without a task: %v", err)
	}
	lesson := promptText(t, cs, mcpserver.PromptPropose, map[string]string{"trajectory_id": "traj_01", "lesson": "totals are cents"})
	for _, want := range []string{"calling memory_propose once", "The lesson, as you first put it: totals are cents", "trajectory_id: traj_01",
		"fact, procedure, relation, convention, warning, strategy, recovery, optimisation", "First call memory_search"} {
		if !strings.Contains(lesson, want) {
			t.Errorf("propose_lesson lacks %q:\n%s", want, lesson)
		}
	}
	ro := newWorld(t, mcpserver.Options{ReadOnly: true}).connect(t, "c", nil)
	if list, _ := ro.ListPrompts(context.Background(), nil); len(list.Prompts) != 1 || list.Prompts[0].Name != "recall" {
		t.Fatalf("read-only prompts: %+v", list.Prompts)
	}
}

func complete(t *testing.T, cs *mcp.ClientSession, ref *mcp.CompleteReference, arg, value string) []string {
	t.Helper()
	res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
	if err != nil {
		t.Fatalf("complete %s %s=%q: %v", ref.Name+ref.URI, arg, value, err)
	}
	return res.Completion.Values
}

func TestCompletions(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	cs := w.connect(t, "c", nil)
	records := &mcp.CompleteReference{Type: "ref/resource", URI: mcpserver.RecordURI + "{id}"}
	if got := complete(t, cs, records, "id", "mem_000"); !slices.Equal(got, []string{"mem_0001", "mem_0002"}) {
		t.Errorf("record ids: %v (the retired mem_0003 is not offered)", got)
	}
	var out mcpserver.ProposeOut
	mustCall(t, cs, mcpserver.ToolPropose, createArgs("Ratings are stored in fdbk_g1.stars."), &out)
	proposals := &mcp.CompleteReference{Type: "ref/resource", URI: mcpserver.ProposalURI + "{id}"}
	if got := complete(t, cs, proposals, "id", "prop_"); !slices.Equal(got, []string{out.ProposalID}) {
		t.Errorf("proposal ids: %v, want [%s]", got, out.ProposalID)
	}
	recall := &mcp.CompleteReference{Type: "ref/prompt", Name: mcpserver.PromptRecall}
	if got := complete(t, cs, recall, "env", "sh"); !slices.Equal(got, []string{"shop"}) {
		t.Errorf("envs: %v", got)
	}
	if got := complete(t, cs, recall, "tags", "orders, rev"); !slices.Equal(got, []string{"orders, reviews"}) {
		t.Errorf("tags: %v", got)
	}
	if got := complete(t, cs, &mcp.CompleteReference{Type: "ref/prompt", Name: mcpserver.PromptPropose}, "trajectory_id", "traj"); !slices.Equal(got, []string{"traj_01"}) {
		t.Errorf("trajectory ids: %v", got)
	}
	if got := complete(t, cs, recall, "task", "anything"); len(got) != 0 {
		t.Errorf("a free-text argument completes to %v", got)
	}
	_, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt"},
		Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: "x"}})
	if err == nil || !strings.Contains(err.Error(), `no prompt "test_prompt"`) {
		t.Errorf("an unknown prompt: %v", err)
	}
}
