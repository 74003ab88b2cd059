package plan

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/index/schema"
)

// fragments sets the Fragments of hits, the Results form of found: it
// searches the text fields (which keep positions) for the query again,
// on those documents only, and highlights what it finds there. The
// matches on "_all" are those on the text fields, so the fragments are
// what highlighting "_all" gave in mapping version 2, at the cost of one
// page rather than of every hit.
func (e *Engine) fragments(qs string, found bsearch.DocumentMatchCollection, hits []Hit) error {
	q, err := ParseQuery(qs)
	if err != nil {
		return err
	}
	ids := make([]string, len(found))
	for i, h := range found {
		ids[i] = h.ID
	}
	sr := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{query.NewDocIDQuery(ids), perField(q)}), len(ids), 0, false)
	sr.Highlight = bleve.NewHighlightWithStyle(schema.HighlighterName)
	sr.Score = "none"
	res, err := searchGuarded(e.idx, sr)
	if err != nil {
		return fmt.Errorf("highlight %q: %w", qs, err)
	}
	byID := make(map[string]map[string][]string, len(res.Hits))
	for _, h := range res.Hits {
		byID[h.ID] = h.Fragments
	}
	for i := range hits {
		hits[i].Fragments = byID[found[i].ID]
	}
	return nil
}
