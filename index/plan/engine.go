package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/index/bleveext"
	"github.com/memreview/memreview/index/schema"
)

// Engine answers requests on one Bleve index. The index package makes one
// for each search of its index, while its lock keeps that index open; the
// tail makes one for each of its in-memory indexes.
type Engine struct {
	idx   bleve.Index
	tune  Tuning
	state *State
	gen   func() uint64
}

// State is what the engines of one index share from search to search:
// the facet counts of recent requests and the documents per type, each
// valid for one generation of the index's contents, and the task terms'
// best scores per segment that max-score bounds them by (valid while the
// segment lives).
type State struct {
	facets facetCache
	types  atomic.Pointer[typeCount]
	memo   bleveext.SegmentMemo // the task terms' best scores per segment (max-score)
}

// NewEngine is an Engine on idx. gen tells the generation of idx's
// contents, a number the index moves whenever they change (nil: they
// never do); st holds the caches of that index.
func NewEngine(idx bleve.Index, t Tuning, st *State, gen func() uint64) *Engine {
	if gen == nil {
		gen = func() uint64 { return 0 }
	}
	if st == nil {
		st = &State{}
	}
	return &Engine{idx: idx, tune: t, state: st, gen: gen}
}

// Options are how one search uses its Engine.
type Options struct {
	// Cache takes facet counts from, and stores them in, the State's
	// cache, per query, type, filters and facet fields until the index's
	// contents change: a repeated request (the bank browser's blank first
	// page, paging back to page 0, the same query typed again) skips the
	// facet counting, which at 100,000 records is most of the cost.
	Cache bool
	// Exclude lists document ids (schema.DocID) left out of the hits,
	// totals and facets: the items the tail holds a newer version of.
	Exclude []string
}

// Search runs req. A query that does not parse, or that names a field the
// index does not have, is an error that says so.
func (e *Engine) Search(req Request, opt Options) (*Results, error) {
	res, _, err := e.Explain(req, opt)
	return res, err
}

// Explain runs req as Search does and returns the plan it ran too: the
// strategies that answered each part, and those that declined.
func (e *Engine) Explain(req Request, opt Options) (*Results, *Plan, error) {
	p, err := e.plan(req, opt)
	if err != nil {
		return nil, nil, err
	}
	res, err := e.execute(p)
	if err != nil {
		return nil, p, err
	}
	return res, p, nil
}

// plan parses and checks req and builds the queries its strategies run.
func (e *Engine) plan(req Request, opt Options) (*Plan, error) {
	q, err := ParseQuery(req.Query)
	if err != nil {
		return nil, err
	}
	var filters, mustNot []query.Query
	typeExcluded := false
	if req.Type != "" {
		if !slices.Contains(schema.Types, req.Type) {
			return nil, fmt.Errorf("search: unknown type %q (want one of %s)", req.Type, strings.Join(schema.Types, ", "))
		}
		if len(req.Filters) == 0 {
			mustNot = e.otherTypes(req.Type)
		}
		typeExcluded = mustNot != nil
		if mustNot == nil {
			filters = append(filters, Keyword("type", req.Type))
		}
	}
	p := &Plan{req: req, opt: opt, size: req.size(), typeExcluded: typeExcluded}
	_, p.blank = q.(*query.MatchAllQuery)
	p.bq = query.NewBooleanQuery([]query.Query{allPhrases(q)}, nil, mustNot)
	p.phrases = requiredPhrases(p.bq, nil)
	fields := make([]string, 0, len(req.Filters))
	for f := range req.Filters {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		if !slices.Contains(schema.KeywordFields, f) && !slices.Contains(schema.TextFields, f) {
			return nil, fmt.Errorf("search: cannot filter on %q: not a keyword or text field (%s)", f, strings.Join(schema.Fields(), ", "))
		}
		var any []query.Query
		for _, v := range req.Filters[f] {
			mq := query.NewMatchQuery(v)
			mq.SetField(f)
			any = append(any, mq)
		}
		if len(any) > 0 {
			filters = append(filters, query.NewDisjunctionQuery(any))
		}
	}
	if len(filters) > 0 {
		p.bq.AddFilter(query.NewConjunctionQuery(filters))
	}
	p.root = p.bq
	p.onFilters = p.blank && e.tune.on(filtersOnly) && (req.Type != "" || len(filters) > 0)
	if p.onFilters {
		p.root = filterQuery(req.Type, filters)
	}
	if len(opt.Exclude) > 0 {
		p.root = query.NewBooleanQuery([]query.Query{p.root}, nil, []query.Query{query.NewDocIDQuery(opt.Exclude)})
	}
	p.sr = bleve.NewSearchRequestOptions(p.root, p.size, p.from(), false)
	for _, f := range req.Facets {
		if !slices.Contains(schema.DocValueFields(), f) {
			return nil, fmt.Errorf("search: cannot count facet %q: not a keyword, number or date field (%s)", f, strings.Join(schema.DocValueFields(), ", "))
		}
	}
	if len(req.Sort) > 0 {
		for _, s := range req.Sort {
			f := strings.TrimPrefix(s, "-")
			if f != "_score" && f != "_id" && !slices.Contains(schema.DocValueFields(), f) {
				return nil, fmt.Errorf("search: cannot sort by %q: not a keyword, number or date field (%s)", f, strings.Join(schema.DocValueFields(), ", "))
			}
		}
		p.sr.SortBy(req.Sort)
	}
	// Fragments are found after the search, for the hits returned only
	// (a blank query marks nothing).
	p.highlight = req.Highlight && !p.blank
	// The generation is read before the search: a change written during
	// it bumps the generation after, so facets that may have seen part of
	// the change are never served for the new contents. (A search that
	// starts while a change is being written may, like two separate
	// searches, pair hits and facets from either side of it.)
	p.gen = e.gen()
	if opt.Cache && len(req.Facets) > 0 {
		p.key = facetKey(req)
	}
	return p, nil
}

// execute runs p: the facets that can be answered before the hits, the
// rank bound, the hits, their fragments, then the facets that need the
// hits' total.
func (e *Engine) execute(p *Plan) (*Results, error) {
	req := p.req
	if len(req.Facets) > 0 {
		if err := e.runFacets(p, false); err != nil {
			return nil, err
		}
	}
	p.bound = e.rankBound(p)
	h, err := e.runHits(p)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", req.Query, err)
	}
	res := h.res
	p.total, p.totalEstimated = res.Total, h.estimated
	out := &Results{Total: res.Total, Took: res.Took, Estimated: h.estimated, Ranked: h.ranked}
	for _, dm := range res.Hits {
		kind, id := schema.SplitDocID(dm.ID)
		score := dm.Score
		if p.onFilters {
			score = matchAllScore
		}
		out.Hits = append(out.Hits, Hit{ID: id, Type: kind, Score: score, Fragments: dm.Fragments, sortKeys: dm.Sort})
	}
	if p.highlight && len(res.Hits) > 0 {
		if err := e.fragments(req.Query, res.Hits, out.Hits); err != nil {
			return nil, err
		}
	}
	switch {
	case len(req.Facets) == 0:
	case p.withHits:
		if len(res.Facets) > 0 {
			p.facets = facetCounts(res.Facets)
			e.storeFacets(p, p.facets, false)
		}
	case p.facets == nil:
		if err := e.runFacets(p, true); err != nil {
			return nil, err
		}
		p.facetsEstimated = p.facetsEstimated || p.totalEstimated
		e.storeFacets(p, p.facets, p.facetsEstimated)
	}
	if p.facets != nil {
		out.Facets = p.facets
		out.Estimated = out.Estimated || p.facetsEstimated
	}
	return out, nil
}

// runHits answers p's hits with the first strategy of the table that
// applies and does not decline.
func (e *Engine) runHits(p *Plan) (hits, error) {
	for _, s := range hitStrategies {
		if !e.tune.on(s.name) || !s.applies(p) {
			continue
		}
		h, ok, err := s.run(e, p)
		if err != nil {
			return hits{}, err
		}
		if ok {
			p.hitsBy = s.name
			return h, nil
		}
		p.declined = append(p.declined, s.name)
	}
	return hits{}, fmt.Errorf("no strategy answered the hits") // collect always does
}

// runFacets answers p's facets with the first strategy of the table that
// runs before the hits (after false) or after them, applies and does not
// decline; none may answer before the hits.
func (e *Engine) runFacets(p *Plan, after bool) error {
	for _, s := range facetStrategies {
		if s.after != after || !e.tune.on(s.name) || !s.applies(p) {
			continue
		}
		f, ok, err := s.run(e, p)
		if err != nil {
			return err
		}
		if ok {
			p.facetsBy = s.name
			if f.withHits {
				p.withHits = true
				return nil
			}
			p.facets, p.facetsEstimated = f.counts, f.estimated
			return nil
		}
		p.declined = append(p.declined, s.name)
	}
	return nil
}

// searchGuarded runs sr, turning a panic inside bleve (a segment damaged
// in a way its checksum was not checked for, e.g. after Open) into an
// error wrapping bleveext.ErrCorrupt.
func searchGuarded(idx bleve.Index, sr *bleve.SearchRequest) (res *bleve.SearchResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("%w: %v", bleveext.ErrCorrupt, p)
		}
	}()
	return SearchWithin(idx, sr, SearchLimit)
}

// Guarded runs sr on idx as the plan's strategies do, a panic inside
// bleve turned into an error wrapping bleveext.ErrCorrupt (the tail's
// searches by id use it).
func Guarded(idx bleve.Index, sr *bleve.SearchRequest) (*bleve.SearchResult, error) {
	return searchGuarded(idx, sr)
}
