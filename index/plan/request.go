package plan

import "time"

// Request is a search over the index.
type Request struct {
	// Query uses bleve's query-string syntax: terms (searched in the English
	// text fields), field:value, +required, -excluded, "phrases",
	// confidence:>0.7, created:>"2026-01-01". Empty matches everything.
	// Dates are indexed at day resolution (UTC): compare them with days.
	Query string
	// Type limits hits to "record", "proposal" or "trajectory"; "" = all.
	Type string
	// Filters maps a keyword or text field to values: a hit must match any
	// one value of every field named. They do not change scores.
	Filters map[string][]string
	// Facets names fields to count terms of, e.g. "category", "env", "status".
	Facets []string
	// Sort lists fields to order by, "-" first for descending; "_score" is
	// the relevance. Empty = best score first.
	Sort []string
	// From skips that many hits; Size caps the hits returned (0 = 20).
	From, Size int
	// Highlight asks for Hit.Fragments.
	Highlight bool
	// Exact counts the total and the facets over every hit even when there
	// are more than EstimateOver of them (see Results.Estimated).
	Exact bool
}

// Results is what a search found.
type Results struct {
	Total  uint64                  `json:"total"` // hits in all, not only those returned
	Hits   []Hit                   `json:"hits"`
	Facets map[string][]FacetCount `json:"facets,omitempty"` // by field name, most frequent first
	Took   time.Duration           `json:"took_ns"`
	// Behind is how many bank changes the index did not hold yet when it
	// was searched (a catch-up still running, or writes since the last
	// Sync): the hits may miss or misstate that many items. 0 = caught up.
	Behind int64 `json:"behind,omitempty"`
	// Estimated says the facet counts, and for a query with a phrase the
	// total, are estimates (show them as "≈ 40,800"): a query with more
	// than EstimateOver hits has its facets counted on a sample of about
	// SampleTarget of them and scaled to Total (block-sample), and a
	// phrase query with that many candidates has its total estimated from
	// the phrase checks of one candidate in 16 (phrase-relaxed), unless
	// Request.Exact asks for exact counts. The hits returned are always
	// exact.
	Estimated bool `json:"estimated,omitempty"`
	// Ranked, when not 0, says the query had more than RankOver hits and
	// was ordered by score (no Sort, or "-_score" first), so only the first
	// Ranked hits in the index's order (for a bank built in one go, about
	// the order the documents were indexed; merges may shuffle segments)
	// were scored: Hits are the best of those, not necessarily of all, and
	// Total is estimated from the share of the index they spanned
	// (Estimated is set). Request.Exact ranks every hit.
	Ranked uint64 `json:"ranked,omitempty"`
	// Direct and Unsearched are set while the index is Behind: Direct items
	// changed after the index's sequence (the newest ones) were read from
	// the bank and searched directly, so the hits, totals and facets hold
	// them; Unsearched changed items were not (over the tail's caps) and
	// are not searchable until the index catches up (index/tail).
	Direct     int `json:"direct,omitempty"`
	Unsearched int `json:"unsearched,omitempty"`
}

// Hit is one document found.
type Hit struct {
	ID    string  `json:"id"`   // the record, proposal or trajectory id
	Type  string  `json:"type"` // "record", "proposal" or "trajectory"
	Score float64 `json:"score"`
	// Fragments holds, per field that matched, snippets of the stored text
	// with each match wrapped in MarkStart and MarkEnd (not HTML-escaped).
	Fragments map[string][]string `json:"fragments,omitempty"`
	sortKeys  []string            // bleve's sort values (MergeHits)
}

// FacetCount is how many hits have one term of a facet field.
type FacetCount struct {
	Term  string `json:"term"`
	Count int    `json:"count"`
}

// Scored is a record the index's Retrieve chose, by id, and its final
// score; BM25 is its score before the weighting (hybrid retrieval ranks
// by it). It is the index's one scored hit (index.Scored); the service
// reads the record and hands it on as an app.Retrieved.
type Scored struct {
	ID    string
	Score float64
	BM25  float64 `json:",omitempty"`
}

// defaultSize is the number of hits returned when Request.Size is 0.
const defaultSize = 20

// facetSize caps the terms counted per facet.
const facetSize = 100

// size is the number of hits req asks for (Request.Size, or 20).
func (req Request) size() int {
	if req.Size <= 0 {
		return defaultSize
	}
	return req.Size
}

// PageSize is the number of hits req asks for: Request.Size, or 20.
func PageSize(req Request) int { return req.size() }
