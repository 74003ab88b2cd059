package review

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/memreview/memreview/review/printable"
)

// The guidelines section: the records a retrieval chose, rendered as the
// part of a task agent's prompt that follows the task context. Each
// guideline gives its category and priority, its content (the lemma),
// its purpose (what the category is for), its trigger and steps, and the
// record id, so the agent can cite it and the retrieval log can tie the
// task to it. The section stays within a token budget: guidelines are
// added best first while they fit. `retrieve --format guidelines`,
// memory_search's format "guidelines", the eval's task agent and the MCP
// recall prompt all render it with RenderGuidelines.

// DefaultGuidelineTokens is the section's budget when none is given.
const DefaultGuidelineTokens = 1200

// GuidelineOptions shape the section.
type GuidelineOptions struct {
	// MaxTokens is the budget (0: DefaultGuidelineTokens), counted by
	// EstimateTokens.
	MaxTokens int
	// Title heads the section ("" : "Guidelines from memory").
	Title string
}

// Guide is a rendered guidelines section.
type Guide struct {
	Text string `json:"text"`
	// IDs are the records it holds, in order; Omitted counts the records
	// left out for the budget.
	IDs     []string `json:"ids"`
	Omitted int      `json:"omitted,omitempty"`
	Tokens  int      `json:"tokens"`
}

// purposes says what each category of record is for.
var purposes = map[Category]string{
	Fact:         "a fact about the environment to rely on",
	Procedure:    "a way to do this kind of task",
	Relation:     "how things in the environment connect",
	Convention:   "a convention the environment follows",
	Warning:      "a pitfall to avoid",
	Strategy:     "an approach that worked before",
	Recovery:     "how to recover when this goes wrong",
	Optimisation: "a faster or cheaper way",
}

// RenderGuidelines renders recs, best first, as the guidelines section
// within opt's token budget. A first record that alone exceeds the budget is
// shown with its content cut, so the section is never empty when there
// is something to give.
func RenderGuidelines(recs []Record, opt GuidelineOptions) Guide {
	budget := opt.MaxTokens
	if budget <= 0 {
		budget = DefaultGuidelineTokens
	}
	title := opt.Title
	if title == "" {
		title = "Guidelines from memory"
	}
	head := "## " + printable.Line(title) + "\n\n"
	if len(recs) == 0 {
		text := head + "No guidelines apply to this task.\n"
		return Guide{Text: text, Tokens: EstimateTokens(text)}
	}
	head += "Lessons from earlier tasks, most useful first. Apply one when its trigger fits your task, and cite its id when it shapes what you do.\n"
	var b strings.Builder
	b.WriteString(head)
	used := EstimateTokens(head)
	g := Guide{}
	for i, r := range recs {
		entry := guideline(len(g.IDs)+1, &r)
		n := EstimateTokens(entry)
		if used+n > budget {
			if len(g.IDs) == 0 {
				entry = cutToTokens(entry, budget-used)
				n = EstimateTokens(entry)
			} else {
				g.Omitted = len(recs) - i
				break
			}
		}
		b.WriteString(entry)
		used += n
		g.IDs = append(g.IDs, r.ID)
	}
	if g.Omitted > 0 {
		fmt.Fprintf(&b, "\n(%d more left out to keep within %d tokens.)\n", g.Omitted, budget)
	}
	g.Text = b.String()
	g.Tokens = EstimateTokens(g.Text)
	return g
}

// guideline is one record's entry.
func guideline(n int, r *Record) string {
	var b strings.Builder
	cat := string(r.Category)
	if cat != "" {
		cat = strings.ToUpper(cat[:1]) + cat[1:]
	}
	fmt.Fprintf(&b, "\n### %d. %s · priority %d · %s\n", n, printable.Line(cat), r.Priority, printable.Line(r.ID))
	fmt.Fprintf(&b, "- Content: %s\n", printable.Line(r.Lemma))
	if p := purposes[r.Category]; p != "" {
		fmt.Fprintf(&b, "- Purpose: %s\n", p)
	}
	if t := strings.TrimSpace(r.Trigger); t != "" {
		fmt.Fprintf(&b, "- Trigger: %s\n", printable.Line(t))
	}
	if len(r.Steps) > 0 {
		b.WriteString("- Steps:\n")
		for i, st := range r.Steps {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, printable.Line(st))
		}
	}
	return b.String()
}

// EstimateTokens estimates how many tokens text takes in a model's
// prompt: the larger of a quarter of its characters and four thirds of
// its words (English runs about 0.75 words a token; code and identifiers
// about 4 characters).
func EstimateTokens(text string) int {
	chars := utf8.RuneCountInString(text)
	words := len(strings.Fields(text))
	return max((chars+3)/4, (words*4+2)/3)
}

// cutToTokens shortens text to about n tokens, ending with "…".
func cutToTokens(text string, n int) string {
	if n <= 0 {
		return ""
	}
	words := strings.Fields(text)
	for len(words) > 0 && EstimateTokens(strings.Join(words, " ")+" …") > n {
		words = words[:len(words)*9/10]
	}
	if len(words) == 0 {
		return ""
	}
	return "\n" + strings.Join(words, " ") + " …\n"
}
