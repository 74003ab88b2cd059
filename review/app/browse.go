package app

import (
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
)

// BrowseRecords answers the bank browser's blank list — every record with
// one status, in id order — a page at a time: the ids from the store's
// primary key (a first page reads about size rows however large the bank)
// and the total from the index's live count of that status (a term
// count, not a search). The index's own answer to that request sorts
// every hit by id, which loads the id of each: seconds at a million
// records. ok is false when this bank cannot answer so (not SQLite); the
// caller searches instead. The total is the index's, so while the index
// catches up (Results.Behind) it may lag the page.
func (s *Service) BrowseRecords(status review.Status, from, size int) (res *index.Results, ok bool, err error) {
	byStatus, ok := s.b.(interface {
		RecordIDsByStatus(status review.Status, from, limit int) ([]string, error)
	})
	if !ok || s.info.Team {
		return nil, false, nil
	}
	start := time.Now()
	counts, err := s.search(index.Request{Type: "record", Sort: []string{"_id"}, Size: 1, Facets: []string{"status"}})
	if err != nil {
		return nil, true, err
	}
	ids, err := byStatus.RecordIDsByStatus(status, from, size)
	if err != nil {
		return nil, true, err
	}
	out := &index.Results{Behind: counts.Behind, Direct: counts.Direct, Unsearched: counts.Unsearched}
	for _, c := range counts.Facets["status"] {
		if c.Term == string(status) {
			out.Total = uint64(c.Count)
		}
	}
	for _, id := range ids {
		out.Hits = append(out.Hits, index.Hit{ID: id, Type: "record", Score: 1})
	}
	out.Took = time.Since(start)
	return out, true, nil
}
