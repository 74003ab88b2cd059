package eval

import (
	"fmt"
	"strings"

	"github.com/memreview/memreview/review"
)

// Guidelines renders the records a condition gives a task as the section
// of the task agent's system prompt that carries memory; "" for none.
//
// It is the one place that says how memory reaches the task agent: the
// retrieval issue's guidelines format (retrieve --format guidelines) is
// to replace this plain list when it lands, and every condition then
// renders through it.
func Guidelines(recs []review.Record) string {
	if len(recs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Guidelines from memory\n\n")
	b.WriteString("Records retrieved from the memory bank for this task, most relevant first. They were written by earlier runs and may be out of date: check what matters against the environment.\n\n")
	for i, r := range recs {
		fmt.Fprintf(&b, "%d. [%s] %s", i+1, r.Category, oneLine(r.Lemma))
		if r.Trigger != "" {
			fmt.Fprintf(&b, " (when: %s)", oneLine(r.Trigger))
		}
		b.WriteString("\n")
		for _, s := range r.Steps {
			fmt.Fprintf(&b, "   - %s\n", oneLine(s))
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
