package app_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/memreview/memreview/curator/eval"
	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// driftAgent is a scripted task agent for the sample world's task set. It
// knows how to write each task's query except for the names the schema
// migration changed: those it takes from the first guideline that names
// one (a record's SQL), and without one it guesses them as they were
// before the migration (ref_id, attrs_g2) — a plausible, stale guess. It
// queries once and answers the first row, or "unknown" when the query
// fails.
func driftAgent(t testing.TB, tasks []review.Task) *llmtest.Server {
	return llmtest.NewFunc(t, driftRespond(t, tasks))
}

// driftRespond is driftAgent's answer to one request.
func driftRespond(t testing.TB, tasks []review.Task) func(llmtest.Request) llmtest.Reply {
	byText := map[string]review.Task{}
	for _, tk := range tasks {
		byText[tk.Text] = tk
	}
	return func(req llmtest.Request) llmtest.Reply {
		if len(req.Messages) < 2 {
			t.Errorf("driftAgent: a request of %d messages", len(req.Messages))
			return llmtest.Text("?")
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			return llmtest.Calls(llmtest.Call{Name: eval.ToolAnswer, Args: answerArgs(last.Content)})
		}
		tk, ok := byText[req.Messages[1].Content]
		if !ok {
			t.Errorf("driftAgent: an unknown task %q", req.Messages[1].Content)
			return llmtest.Text("?")
		}
		sql := writeQuery(tk.Grading.Probe, guidelineRecords(req.Messages[0].Content))
		b, _ := json.Marshal(map[string]string{"sql": sql})
		return llmtest.Calls(llmtest.Call{Name: eval.ToolSQL, Args: string(b)})
	}
}

// guidelineRecords splits the guidelines section of a system prompt into
// one text per record, in order.
func guidelineRecords(system string) []string {
	_, sec, ok := strings.Cut(system, "## Guidelines from memory")
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(sec, "\n") {
		switch {
		case regexp.MustCompile(`^\d+\. `).MatchString(line):
			out = append(out, line)
		case strings.HasPrefix(line, "   - ") && len(out) > 0:
			out[len(out)-1] += " " + line
		}
	}
	return out
}

// A slot is a name the migration changed: how the grading probe writes
// it today, what the agent writes without knowing, and how a record tells
// which it is (the first of its tokens a record names).
type slot struct {
	fresh, stale string
	tokens       *regexp.Regexp
	isFresh      func(token string) bool
}

var slots = []slot{
	{sample.FreshG1Key, "ref_id", regexp.MustCompile(`\b(item_ref|ref_id)\b`), func(tok string) bool { return tok == "item_ref" }},
	{sample.FreshG2Ext, "attrs_g2", regexp.MustCompile(`\battrs_g2(_ext|_core)?\b`), func(tok string) bool { return tok != "attrs_g2" }},
	{sample.FreshG2Core, "attrs_g2", regexp.MustCompile(`\battrs_g2(_ext|_core)?\b`), func(tok string) bool { return tok != "attrs_g2" }},
	{sample.FreshG3Scale, "stars", regexp.MustCompile(`halve|average them directly`), func(tok string) bool { return tok == "halve" }},
}

// writeQuery is the grading probe with each changed name as the first
// record naming it says, else stale.
func writeQuery(probe string, recs []string) string {
	for _, s := range slots {
		if !strings.Contains(probe, s.fresh) {
			continue
		}
		fresh := false
		for _, r := range recs {
			if tok := s.tokens.FindString(r); tok != "" {
				fresh = s.isFresh(tok)
				break
			}
		}
		if !fresh {
			probe = strings.ReplaceAll(probe, s.fresh, s.stale)
		}
	}
	return probe
}

// answerArgs answers the first row of a query's result.
func answerArgs(result string) string {
	var res struct {
		Rows  [][]any `json:"rows"`
		Error string  `json:"error"`
	}
	answer := "unknown"
	if json.Unmarshal([]byte(result), &res) == nil && res.Error == "" && len(res.Rows) > 0 {
		var cells []string
		for _, v := range res.Rows[0] {
			cells = append(cells, fmt.Sprint(v))
		}
		answer = strings.Join(cells, ", ")
	}
	b, _ := json.Marshal(map[string]string{"answer": answer})
	return string(b)
}
