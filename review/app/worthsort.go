package app

import (
	"slices"
	"sort"

	"github.com/memreview/memreview/review"
)

// Sort by worth without reading every hit.
//
// The bank screen's w orders a search's hits by their record's lift
// (review.Worth.Lift), ties by how many tasks retrieved it (more first),
// then by id. A record no task retrieved has no worth entry: lift 0,
// retrieved 0. So the order is: the hits with a worth entry that sort
// before the unretrieved ones, every unretrieved hit in id order, then
// the hits with a worth entry that sort after them. Only the hits with a
// worth entry (as many as the records tasks retrieved, not the bank) need
// reading and sorting; a page of the unretrieved middle is a page of the
// index's id order with those few left out. Reading every hit and sorting
// them took 2.5 s at 100,000 records (BENCHMARKS.md).

// maxWorthFilter is the most records with a worth entry SearchByWorth
// looks up by id; with more it reads every hit, as the screen once did.
const maxWorthFilter = 20000

// SearchByWorth returns hits [req.From, req.From+req.Size) of req in
// worth order (best first, or worst first), and in Total how many hits
// there are; worth is WorthAll's. The request's Sort is ignored;
// Highlight applies to the page.
func (s *Service) SearchByWorth(req SearchRequest, worth map[string]review.Worth, worst bool) (*SearchResults, error) {
	if req.Size <= 0 {
		req.Size = 20
	}
	less := func(a, b review.Worth) bool { // a sorts before b
		if la, lb := a.Lift(), b.Lift(); la != lb {
			return la > lb != worst
		}
		if a.Retrieved != b.Retrieved {
			return a.Retrieved > b.Retrieved
		}
		return a.Record < b.Record
	}
	var ids []string
	for id, w := range worth {
		if w.Retrieved > 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) > maxWorthFilter {
		return s.searchAllByWorth(req, worth, less)
	}
	// The hits with a worth entry, in worth order.
	var ranked []review.Worth
	if len(ids) > 0 {
		wr := req
		wr.Filters = withFilter(req.Filters, "id", ids)
		wr.From, wr.Size, wr.Highlight, wr.Sort, wr.Facets = 0, len(ids), false, []string{"_id"}, nil
		res, err := s.Search(wr)
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			w := worth[h.ID]
			w.Record = h.ID
			ranked = append(ranked, w)
		}
	}
	sort.Slice(ranked, func(i, j int) bool { return less(ranked[i], ranked[j]) })
	none := review.Worth{}
	head := sort.Search(len(ranked), func(i int) bool { return !less(ranked[i], none) })
	withWorth := make([]string, len(ranked)) // by id
	for i, w := range ranked {
		withWorth[i] = w.Record
	}
	slices.Sort(withWorth)
	// The total, and the unretrieved middle's page.
	tr := req
	tr.From, tr.Size, tr.Highlight, tr.Facets, tr.Sort, tr.Exact = 0, 1, false, nil, []string{"_id"}, true
	tot, err := s.Search(tr)
	if err != nil {
		return nil, err
	}
	total := int(tot.Total)
	middle := total - len(ranked)
	out := *tot
	out.Hits = nil
	out.Total = uint64(total)
	pick := func(lo, hi int) []string { // ranked[lo:hi] as ids
		lo, hi = max(lo, 0), min(hi, len(ranked))
		if lo >= hi {
			return nil
		}
		var xs []string
		for _, w := range ranked[lo:hi] {
			xs = append(xs, w.Record)
		}
		return xs
	}
	from, to := req.From, req.From+req.Size
	want := pick(from, min(to, head)) // the head's part of the page
	var mid []Hit
	if lo, hi := max(from-head, 0), min(to-head, middle); hi > lo {
		var err error
		if mid, err = s.middleByWorth(req, withWorth, lo, hi-lo); err != nil {
			return nil, err
		}
	}
	tail := pick(head+max(from-head-middle, 0), head+max(to-head-middle, 0))
	// The head and tail hits are fetched again as a page (for highlights).
	byID := map[string]Hit{}
	if ask := append(slices.Clone(want), tail...); len(ask) > 0 {
		pr := req
		pr.Filters = withFilter(req.Filters, "id", ask)
		pr.From, pr.Size, pr.Facets, pr.Sort = 0, len(ask), nil, []string{"_id"}
		res, err := s.Search(pr)
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			byID[h.ID] = h
		}
	}
	for _, id := range want {
		out.Hits = append(out.Hits, byID[id])
	}
	out.Hits = append(out.Hits, mid...)
	for _, id := range tail {
		out.Hits = append(out.Hits, byID[id])
	}
	return &out, nil
}

// middleByWorth is n hits of req in id order from the lo-th of those not
// in withWorth (sorted), in one search: the hit at index position q has
// rank q - (withWorth ids ≤ its id) among those not in withWorth, so the
// ranks lo..lo+n-1 lie at positions lo..lo+n-1+len(withWorth).
func (s *Service) middleByWorth(req SearchRequest, withWorth []string, lo, n int) ([]Hit, error) {
	pr := req
	pr.Sort, pr.Facets, pr.Exact = []string{"_id"}, nil, false
	pr.From, pr.Size = lo, n+len(withWorth)
	res, err := s.Search(pr)
	if err != nil {
		return nil, err
	}
	var out []Hit
	for i, h := range res.Hits {
		at, found := slices.BinarySearch(withWorth, h.ID)
		if found {
			continue
		}
		if rank := lo + i - at; rank >= lo && rank < lo+n {
			out = append(out, h)
		}
	}
	return out, nil
}

// searchAllByWorth reads every hit and sorts them (a bank most of whose
// records tasks retrieved).
func (s *Service) searchAllByWorth(req SearchRequest, worth map[string]review.Worth, less func(a, b review.Worth) bool) (*SearchResults, error) {
	ar := req
	ar.From, ar.Size, ar.Highlight, ar.Sort = 0, 1<<20, false, []string{"_id"}
	res, err := s.Search(ar)
	if err != nil {
		return nil, err
	}
	hs := res.Hits
	of := func(h Hit) review.Worth {
		w := worth[h.ID]
		w.Record = h.ID
		return w
	}
	sort.SliceStable(hs, func(i, j int) bool { return less(of(hs[i]), of(hs[j])) })
	out := *res
	out.Total = uint64(len(hs))
	out.Hits = hs[min(req.From, len(hs)):min(req.From+req.Size, len(hs))]
	return &out, nil
}

// withFilter is filters with field limited to values (a copy).
func withFilter(filters map[string][]string, field string, values []string) map[string][]string {
	out := make(map[string][]string, len(filters)+1)
	for k, v := range filters {
		out[k] = v
	}
	out[field] = values
	return out
}
