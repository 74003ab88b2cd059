package eval

import (
	"math"

	"github.com/memreview/memreview/review"
)

// Guidelines renders the records a condition gives a task as the section
// of the task agent's system prompt that carries memory; "" for none.
// It is review.RenderGuidelines, the section retrieve --format guidelines
// and memory_search give a task agent, with no token budget: the eval
// gives the agent every record its condition chose, so conditions differ
// only in the records.
func Guidelines(recs []review.Record) string {
	if len(recs) == 0 {
		return ""
	}
	return review.RenderGuidelines(recs, review.GuidelineOptions{MaxTokens: math.MaxInt32}).Text
}
