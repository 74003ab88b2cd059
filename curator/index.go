package curator

import (
	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
)

// IndexSearcher adapts the bank's Bleve index to Searcher: active records
// only, best first. A query the query-string syntax rejects (a stray colon
// or quote from the model) is retried as plain words.
type IndexSearcher struct{ Ix *index.Index }

// SearchRecords returns the ids of up to k active records matching query.
func (s IndexSearcher) SearchRecords(query string, k int) ([]string, error) {
	req := index.Request{Query: query, Type: "record", Filters: map[string][]string{"status": {string(review.Active)}}, Size: k}
	res, err := s.Ix.Search(req)
	if err != nil {
		req.Query = index.LiteralWords(query)
		if res, err = s.Ix.Search(req); err != nil {
			return nil, err
		}
	}
	ids := make([]string, 0, len(res.Hits))
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids, nil
}
