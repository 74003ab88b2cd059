package index

import (
	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
)

// ErrSearchLimit is a search stopped at plan.SearchLimit (10 s).
var ErrSearchLimit = plan.ErrSearchLimit

// MaxTaskTerms caps the distinct terms of a task's text a retrieval
// searches for (schema.TaskQuery).
const MaxTaskTerms = schema.MaxTaskTerms
