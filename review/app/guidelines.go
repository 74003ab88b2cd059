package app

import "github.com/memreview/memreview/review"

// The guidelines section is rendered by review.RenderGuidelines, the one
// renderer that retrieve --format guidelines, memory_search's format
// "guidelines", the MCP recall prompt and the eval's task agent share.

// DefaultGuidelineTokens is the section's budget when none is given.
const DefaultGuidelineTokens = review.DefaultGuidelineTokens

// GuidelineOptions shape the section; Guide is a rendered one.
type (
	GuidelineOptions = review.GuidelineOptions
	Guide            = review.Guide
)

// Guidelines renders the retrieved records, best first, as the
// guidelines section (review.RenderGuidelines).
func Guidelines(recs []Retrieved, opt GuidelineOptions) Guide {
	rs := make([]review.Record, len(recs))
	for i, r := range recs {
		rs[i] = r.Record
	}
	return review.RenderGuidelines(rs, opt)
}
