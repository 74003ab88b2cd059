package index

import (
	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
)

// The vocabulary of a search is the plan's (index/plan) and the mapping's
// (index/schema); the index gives it under its own names, which the rest
// of memreview uses.
type (
	// Request is a search over the index (plan.Request).
	Request = plan.Request
	// Results is what a search found (plan.Results).
	Results = plan.Results
	// Hit is one document found (plan.Hit).
	Hit = plan.Hit
	// FacetCount is how many hits have one term of a facet field.
	FacetCount = plan.FacetCount
	// Scored is a record Retrieve chose and its final score.
	Scored = plan.Scored
	// QueryError is a query a search cannot read (plan.QueryError).
	QueryError = plan.QueryError
)

// Highlight markers wrapped around each match in Hit.Fragments. The text
// between and around them is the stored field text, not HTML-escaped.
const (
	MarkStart = schema.MarkStart
	MarkEnd   = schema.MarkEnd
)

// Types lists the document types the index holds.
var Types = schema.Types

// Terms returns the distinct terms the index makes of text in its English
// text fields (lemma, trigger, steps): lower-cased, stop words dropped,
// stemmed, in order of first appearance. Similarity measured on them agrees
// with what a search for the text would match.
func Terms(text string) []string { return schema.Terms(text) }

// ErrCorrupt is returned (wrapped) when an index file is damaged so badly
// that reading it panics inside bleve; Open rebuilds such an index, and a
// search that meets one fails with it instead of crashing.
var ErrCorrupt = bleveext.ErrCorrupt
