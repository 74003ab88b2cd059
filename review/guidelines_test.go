package review

import (
	"strings"
	"testing"
)

// The section gives each record's category, priority, id, content,
// purpose, trigger and steps, best first; records that do not fit the
// budget are left out and counted; a first record alone over the budget
// is cut, never dropped; none says so; control characters never reach it.
func TestRenderGuidelines(t *testing.T) {
	recs := []Record{
		{ID: "mem_a", Category: Procedure, Priority: 2, Lemma: "join items on item_id", Trigger: "joining items", Steps: []string{"read the schema", "join"}},
		{ID: "mem_b", Category: Warning, Lemma: "stars are 1–10 on g3\x1b[31m"},
	}
	g := RenderGuidelines(recs, GuidelineOptions{})
	for _, want := range []string{"## Guidelines from memory", "### 1. Procedure · priority 2 · mem_a\n", "- Content: join items on item_id\n",
		"- Purpose: a way to do this kind of task\n", "- Trigger: joining items\n", "- Steps:\n  1. read the schema\n  2. join\n", "### 2. Warning · priority 0 · mem_b\n"} {
		if !strings.Contains(g.Text, want) {
			t.Fatalf("section lacks %q:\n%s", want, g.Text)
		}
	}
	if strings.Contains(g.Text, "\x1b") || len(g.IDs) != 2 || g.IDs[0] != "mem_a" || g.Omitted != 0 || g.Tokens != EstimateTokens(g.Text) {
		t.Fatalf("guide %+v", g)
	}
	small := RenderGuidelines(recs, GuidelineOptions{MaxTokens: EstimateTokens(g.Text) - 5})
	if len(small.IDs) != 1 || small.Omitted != 1 || !strings.Contains(small.Text, "1 more left out") {
		t.Fatalf("within a smaller budget: %+v", small)
	}
	long := []Record{{ID: "mem_long", Category: Fact, Lemma: strings.Repeat("word ", 2000)}}
	cut := RenderGuidelines(long, GuidelineOptions{MaxTokens: 100})
	if len(cut.IDs) != 1 || cut.Tokens > 130 || !strings.Contains(cut.Text, "…") {
		t.Fatalf("a first record over the budget: %d tokens, ids %v", cut.Tokens, cut.IDs)
	}
	if none := RenderGuidelines(nil, GuidelineOptions{}); !strings.Contains(none.Text, "No guidelines apply") || len(none.IDs) != 0 {
		t.Fatalf("no records: %+v", none)
	}
}
