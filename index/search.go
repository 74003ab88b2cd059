package index

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/review"
)

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
	// are more than estimateOver of them (see Results.Estimated).
	Exact bool
	// exclude lists document ids left out of the hits, totals and facets
	// (searchBehind: the items the tail holds a newer version of).
	exclude []string
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
	// than estimateOver hits has its facets counted on a sample of about
	// sampleTarget of them and scaled to Total, and a phrase query with
	// that many candidates has its total estimated from the phrase checks
	// of one candidate in tallyEvery (searchRelaxed), unless Request.Exact
	// asks for exact counts. The hits returned are always exact.
	Estimated bool `json:"estimated,omitempty"`
	// Ranked, when not 0, says the query had more than rankOver hits and
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
	// are not searchable until the index catches up (searchBehind).
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
	sortKeys  []string            // bleve's sort values (mergeHits)
}

// FacetCount is how many hits have one term of a facet field.
type FacetCount struct {
	Term  string `json:"term"`
	Count int    `json:"count"`
}

// Types lists the document types the index holds.
var Types = []string{"record", "proposal", "trajectory"}

// defaultSize is the number of hits returned when Request.Size is 0.
const defaultSize = 20

// facetSize caps the terms counted per facet.
const facetSize = 100

// Search runs req. A query that does not parse, or that names a field the
// index does not have, is an error that says so.
//
// Facet counts are cached per query, type, filters and facet fields until
// the index next changes (Sync applying a change, Rebuild), so a repeated
// request (the bank browser's blank first page, paging back to page 0, the
// same query typed again) skips bleve's per-hit facet counting, which at
// 100,000 records is most of the cost. The first request of each kind
// still counts every hit.
//
// While the index is behind the bank, the items changed since its
// sequence are searched directly from the bank as well (searchBehind),
// and Results says how many were and were not.
func (ix *Index) Search(req Request) (*Results, error) {
	defer ix.answer()
	t, err := ix.currentTail()
	if err != nil {
		return nil, err
	}
	if t != nil {
		return ix.searchBehind(req, t)
	}
	return ix.search(req, true)
}

// search runs req, taking facets from and storing them in ix.facets when
// useCache is set.
func (ix *Index) search(req Request, useCache bool) (*Results, error) {
	q, err := parseQuery(req.Query)
	if err != nil {
		return nil, err
	}
	var filters, mustNot []query.Query
	if req.Type != "" {
		if !slices.Contains(Types, req.Type) {
			return nil, fmt.Errorf("search: unknown type %q (want one of %s)", req.Type, strings.Join(Types, ", "))
		}
		if len(req.Filters) == 0 {
			mustNot = ix.otherTypes(req.Type)
		}
		if mustNot == nil {
			filters = append(filters, termQuery("type", req.Type))
		}
	}
	_, blank := q.(*query.MatchAllQuery)
	bq := query.NewBooleanQuery([]query.Query{allPhrases(q)}, nil, mustNot)
	phrases := requiredPhrases(bq, nil)
	fields := make([]string, 0, len(req.Filters))
	for f := range req.Filters {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		if !slices.Contains(keywordFields, f) && !slices.Contains(textFields, f) {
			return nil, fmt.Errorf("search: cannot filter on %q: not a keyword or text field (%s)", f, strings.Join(Fields(), ", "))
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
		bq.AddFilter(query.NewConjunctionQuery(filters))
	}
	var root query.Query = bq
	onFilters := blank && rewriteBlank && (req.Type != "" || len(filters) > 0)
	if onFilters {
		root = filterQuery(req.Type, filters)
	}
	if len(req.exclude) > 0 {
		root = query.NewBooleanQuery([]query.Query{root}, nil, []query.Query{query.NewDocIDQuery(req.exclude)})
	}

	size := req.Size
	if size <= 0 {
		size = defaultSize
	}
	sr := bleve.NewSearchRequestOptions(root, size, max(req.From, 0), false)
	for _, f := range req.Facets {
		if !slices.Contains(docValueFields(), f) {
			return nil, fmt.Errorf("search: cannot count facet %q: not a keyword, number or date field (%s)", f, strings.Join(docValueFields(), ", "))
		}
	}
	if len(req.Sort) > 0 {
		for _, s := range req.Sort {
			f := strings.TrimPrefix(s, "-")
			if f != "_score" && f != "_id" && !slices.Contains(docValueFields(), f) {
				return nil, fmt.Errorf("search: cannot sort by %q: not a keyword, number or date field (%s)", f, strings.Join(docValueFields(), ", "))
			}
		}
		sr.SortBy(req.Sort)
	}
	// Fragments are found after the search, for the hits returned only
	// (a blank query marks nothing).
	highlight := req.Highlight && !blank

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.idx == nil {
		return nil, errClosed
	}
	// The generation is read before the search: a change written during it
	// bumps the generation after, so facets that may have seen part of the
	// change are never served for the new contents. (A search that starts
	// while a change is being written may, like two separate searches,
	// pair hits and facets from either side of it.)
	gen := ix.gen.Load()
	var key string
	var cached map[string][]FacetCount
	estimated := false
	if len(req.Facets) > 0 {
		if useCache {
			key = facetKey(req)
			cached, estimated = ix.facets.get(gen, key)
		}
		if cached == nil && blank && len(req.Filters) == 0 && useDict && len(req.exclude) == 0 {
			if f, ok := ix.dictFacets(req.Type, req.Facets); ok {
				cached = f
				if key != "" {
					ix.facets.put(gen, key, f, false)
				}
			}
		}
	}
	// Facets are counted with the hits when asked to be exact, else after
	// them: on every hit when there are at most estimateOver, else on one
	// sample part.
	countAfter := len(req.Facets) > 0 && cached == nil && !req.Exact
	if len(req.Facets) > 0 && cached == nil && req.Exact {
		for _, f := range req.Facets {
			sr.AddFacet(f, bleve.NewFacetRequest(f, facetSize))
		}
	}
	if blank && useIDPage && req.Type != "" && len(req.Filters) == 0 && len(req.exclude) == 0 && slices.Equal(req.Sort, []string{"_id"}) &&
		(len(req.Facets) == 0 || cached != nil) {
		start := time.Now()
		if hits, ok := ix.idPage(req.Type, max(req.From, 0), size); ok {
			out := &Results{Total: ix.typeCountsLocked()[req.Type], Facets: cached}
			if len(hits) > 0 {
				out.Hits = hits
			}
			if out.Behind, err = ix.Behind(); err != nil {
				return nil, err
			}
			out.Took = time.Since(start)
			return out, nil
		}
	}
	// A query ordered by score ranks at most rankLimit hits (see
	// Results.Ranked); a blank one with filters, whose hits all score the
	// same, needs only its first From+Size in index order (firstHits).
	var bound rankBound
	if !req.Exact && scoreFirst(req.Sort) && len(sr.Facets) == 0 && !onFilters && !ix.allHits {
		bound.limit = ix.rankLimit()
		bound.work, bound.after = ix.workLimits()
		bound.steps = new(uint64)
		countSteps(bq, bound.steps)
	}
	var res *bleve.SearchResult
	var ranked uint64
	totalEstimated, relaxed := false, false
	if len(phrases) > 0 && !req.Exact {
		res, totalEstimated, relaxed, ranked, err = ix.searchRelaxed(sr, phrases, ix.estimateLimit(), bound)
	}
	if err == nil && !relaxed {
		bq := bounded(sr.Query, bound)
		if bq != nil {
			sr.Query = bq
		}
		switch {
		case onFilters && scoreOnly(req.Sort) && len(sr.Facets) == 0 && !ix.noFirstHits:
			res, err = ix.firstHits(sr)
		case onFilters && idSorted(req.Sort) && len(sr.Facets) == 0 && !ix.noFilterIDPage:
			var ok bool
			if res, ok, err = ix.filterIDPage(root, req.Type, max(req.From, 0), size); err == nil && !ok {
				res, err = searchGuarded(ix.idx, sr)
			}
		case !ix.allHits && sortedByScore(req.Sort) && len(sr.Facets) == 0 && !onFilters:
			res, err = ix.searchTopScores(sr)
		default:
			res, err = searchGuarded(ix.idx, sr)
		}
		if err == nil && bq != nil && bq.more {
			res.Total, ranked, totalEstimated = bq.estimate(), bq.seen, true
		}
	}
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", req.Query, err)
	}
	out := &Results{Total: res.Total, Took: res.Took, Estimated: totalEstimated, Ranked: ranked}
	if out.Behind, err = ix.Behind(); err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		kind, id := splitDocID(h.ID)
		score := h.Score
		if onFilters {
			score = matchAllScore
		}
		out.Hits = append(out.Hits, Hit{ID: id, Type: kind, Score: score, Fragments: h.Fragments, sortKeys: h.Sort})
	}
	if highlight && len(res.Hits) > 0 {
		if err := ix.fragments(req.Query, res.Hits, out.Hits); err != nil {
			return nil, err
		}
	}
	if len(res.Facets) > 0 {
		out.Facets = facetCounts(res.Facets)
		if key != "" {
			ix.facets.put(gen, key, out.Facets, false)
		}
	}
	if countAfter {
		if cached, estimated, err = ix.countFacets(root, req.Facets, res.Total); err != nil {
			return nil, err
		}
		estimated = estimated || totalEstimated
		if key != "" {
			ix.facets.put(gen, key, cached, estimated)
		}
	}
	if cached != nil {
		out.Facets = cached
		out.Estimated = out.Estimated || estimated
	}
	return out, nil
}

// fragments sets the Fragments of hits, the Results form of found: it
// searches the text fields (which keep positions) for the query again,
// on those documents only, and highlights what it finds there. The
// matches on "_all" are those on the text fields, so the fragments are
// what highlighting "_all" gave in mapping version 2, at the cost of one
// page rather than of every hit.
func (ix *Index) fragments(qs string, found bsearch.DocumentMatchCollection, hits []Hit) error {
	q, err := parseQuery(qs)
	if err != nil {
		return err
	}
	ids := make([]string, len(found))
	for i, h := range found {
		ids[i] = h.ID
	}
	sr := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{query.NewDocIDQuery(ids), perField(q)}), len(ids), 0, false)
	sr.Highlight = bleve.NewHighlightWithStyle(highlighterName)
	sr.Score = "none"
	res, err := searchGuarded(ix.idx, sr)
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

// useDict turns on dictFacets for blank queries (off only in the test that
// compares both ways).
var useDict = true

// useIDPage turns on idPage for blank queries sorted by _id (off only in
// the test that compares both ways).
var useIDPage = true

// rewriteBlank turns on filterQuery for blank queries (off only in the
// test that compares both ways).
var rewriteBlank = true

// matchAllScore is the score bleve gives every hit of a blank query.
const matchAllScore = 1.0

// filterQuery is the query a blank query with a type and filters runs as:
// the filters themselves, every clause with zero boost, so that bleve
// walks the postings of the filter terms instead of every document of the
// index through a filtering searcher (env:docs at 100,000 records: 20 ms
// → 8 ms). Every hit scores 0, so ties keep bleve's document order, as
// under the blank query; the caller reports matchAllScore, as the blank
// query scored.
func filterQuery(typ string, filters []query.Query) query.Query {
	var all []query.Query
	if typ != "" && !slices.ContainsFunc(filters, isTypeTerm) {
		all = append(all, termQuery("type", typ))
	}
	all = append(all, filters...)
	for _, f := range all {
		zeroBoost(f)
	}
	if len(all) == 1 {
		return all[0]
	}
	return query.NewConjunctionQuery(all)
}

func isTypeTerm(q query.Query) bool {
	tq, ok := q.(*query.TermQuery)
	return ok && tq.FieldVal == "type"
}

// zeroBoost sets a zero boost on q and on every query inside it.
func zeroBoost(q query.Query) {
	switch t := q.(type) {
	case *query.ConjunctionQuery:
		for _, c := range t.Conjuncts {
			zeroBoost(c)
		}
	case *query.DisjunctionQuery:
		for _, d := range t.Disjuncts {
			zeroBoost(d)
		}
	}
	if b, ok := q.(query.BoostableQuery); ok {
		b.SetBoost(0)
	}
}

// searchGuarded runs sr, turning a panic inside bleve (a segment damaged
// in a way its checksum was not checked for, e.g. after Open) into an
// error wrapping ErrCorrupt.
func searchGuarded(idx bleve.Index, sr *bleve.SearchRequest) (res *bleve.SearchResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("%w: %v", ErrCorrupt, p)
		}
	}()
	return searchLimited(idx, sr)
}

// facetKey identifies what a request's facet counts depend on: the hits
// (query, type, filters) and the fields counted, not paging, sorting or
// highlighting. The query string is taken as written: "a b" and "b a"
// are cached apart.
func facetKey(req Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q exact=%v", req.Query, req.Type, req.Exact)
	fields := make([]string, 0, len(req.Filters))
	for f := range req.Filters {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		fmt.Fprintf(&b, " %q=%q", f, req.Filters[f])
	}
	// Facets come back by field name, so their order and repeats do not
	// matter.
	facets := slices.Clone(req.Facets)
	slices.Sort(facets)
	fmt.Fprintf(&b, " facets %q", slices.Compact(facets))
	return b.String()
}

// facetCacheSize caps the requests whose facets are kept per generation.
const facetCacheSize = 256

// facetCache holds facet counts of recent requests for one generation of
// the index. Entries are copied in and out, so callers may change what
// they get.
type facetCache struct {
	mu      sync.Mutex
	gen     uint64
	entries map[string]cachedFacets
}

// cachedFacets are one request's facets, and whether they are estimates.
type cachedFacets struct {
	facets    map[string][]FacetCount
	estimated bool
}

// get returns a copy of the facets stored for key at gen, or nil, and
// whether they are estimates.
func (c *facetCache) get(gen uint64, key string) (map[string][]FacetCount, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil, false
	}
	f, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	return copyFacets(f.facets), f.estimated
}

// put stores a copy of f for key at gen, dropping entries of older
// generations; facets of a generation older than the cache's are dropped.
func (c *facetCache) put(gen uint64, key string, f map[string][]FacetCount, estimated bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen < c.gen {
		return
	}
	if gen > c.gen || c.entries == nil || len(c.entries) >= facetCacheSize {
		c.gen = gen
		c.entries = map[string]cachedFacets{}
	}
	c.entries[key] = cachedFacets{copyFacets(f), estimated}
}

func copyFacets(f map[string][]FacetCount) map[string][]FacetCount {
	out := make(map[string][]FacetCount, len(f))
	for k, v := range f {
		out[k] = slices.Clone(v)
	}
	return out
}

// otherTypes returns term queries for every document type but typ when
// documents of those types are fewer than those of typ, else nil. Every
// document has exactly one of Types, so excluding the others selects typ
// as a filter on typ would, without changing scores; but a filter is
// checked hit by hit, while an exclusion costs in proportion to the
// excluded documents. In a bank of 100,000 records and 1,000
// trajectories that halves the time of a broad record search (Search uses
// it only when no other filter is checked hit by hit anyway). The counts
// come from the term dictionary and are cached until the index changes.
func (ix *Index) otherTypes(typ string) []query.Query {
	return ix.otherTypesIn(ix.typeCounts(), typ)
}

// otherTypesIn is otherTypes on given type counts.
func (ix *Index) otherTypesIn(counts map[string]uint64, typ string) []query.Query {
	if counts == nil {
		return nil
	}
	var others []query.Query
	var n uint64
	for _, t := range Types {
		if t != typ {
			n += counts[t]
			others = append(others, termQuery("type", t))
		}
	}
	if n >= counts[typ] {
		return nil
	}
	return others
}

// typeCounts returns how many documents of each type the index holds, or
// nil when the dictionary cannot be read.
func (ix *Index) typeCounts() map[string]uint64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.typeCountsLocked()
}

// typeCountsLocked is typeCounts for a caller holding ix.mu. The counts
// are cached for one generation of the index.
func (ix *Index) typeCountsLocked() map[string]uint64 {
	if ix.idx == nil {
		return nil
	}
	gen := ix.gen.Load()
	if c := ix.types.Load(); c != nil && c.gen == gen {
		return c.counts
	}
	counts, err := ix.termCounts("type")
	if err != nil {
		return nil
	}
	ix.types.Store(&typeCount{gen: gen, counts: counts})
	return counts
}

// typeCount is the cached result of typeCounts at one generation.
type typeCount struct {
	gen    uint64
	counts map[string]uint64
}

// syntaxHint follows bleve's terse parse errors.
const syntaxHint = `use terms, field:value, +required, -excluded, "a phrase", field:>number or field:>"2006-01-02"`

// parseQuery parses a query string and checks the fields it names.
func parseQuery(s string) (query.Query, error) {
	if strings.TrimSpace(s) == "" {
		return query.NewMatchAllQuery(), nil
	}
	q, err := query.NewQueryStringQuery(s).Parse()
	if err != nil {
		return nil, fmt.Errorf("search: cannot parse query %q: %v (%s)", s, err, syntaxHint)
	}
	if f := unknownField(q); f != "" {
		return nil, fmt.Errorf("search: query %q names unknown field %q; fields are %s", s, f, strings.Join(Fields(), ", "))
	}
	return dayBounds(keywordPhrases(q)), nil
}

// dayBounds moves the bounds of date ranges to the day resolution dates
// are indexed at, so that they select what they selected on timestamps:
// a lower bound becomes its day, inclusive; an upper bound at midnight
// excludes that day, one inside a day includes all of it. On day bounds
// (created:>="2026-01-01", updated:<"2026-02-01") nothing changes but a
// record stamped exactly at a midnight that a > or <= bound names.
func dayBounds(q query.Query) query.Query {
	return rewriteLeaves(q, func(q query.Query) query.Query {
		t, ok := q.(*query.DateRangeQuery)
		if !ok {
			return q
		}
		yes, no := true, false
		if !t.Start.IsZero() {
			t.Start.Time = day(t.Start.Time)
			t.InclusiveStart = &yes
		}
		if !t.End.IsZero() {
			if end := t.End.Time.UTC(); end.Equal(day(end)) {
				t.InclusiveEnd = &no
			} else {
				t.End.Time = day(end)
				t.InclusiveEnd = &yes
			}
		}
		return q
	})
}

// rewriteLeaves replaces each query below the boolean, conjunction and
// disjunction queries of q (and q itself when it is none of them) by
// leaf(query), in place, and returns the result.
func rewriteLeaves(q query.Query, leaf func(query.Query) query.Query) query.Query {
	switch t := q.(type) {
	case *query.BooleanQuery:
		for _, sub := range []*query.Query{&t.Must, &t.Should, &t.MustNot, &t.Filter} {
			if *sub != nil {
				*sub = rewriteLeaves(*sub, leaf)
			}
		}
	case *query.ConjunctionQuery:
		for i := range t.Conjuncts {
			t.Conjuncts[i] = rewriteLeaves(t.Conjuncts[i], leaf)
		}
	case *query.DisjunctionQuery:
		for i := range t.Disjuncts {
			t.Disjuncts[i] = rewriteLeaves(t.Disjuncts[i], leaf)
		}
	default:
		return leaf(q)
	}
	return q
}

// keywordPhrases turns quoted values on keyword fields (id:"mem_0004",
// tags:"g1") into exact term queries. A keyword field holds its whole value
// as one term without positions, so a phrase search on it never matches.
func keywordPhrases(q query.Query) query.Query {
	return rewriteLeaves(q, func(q query.Query) query.Query {
		t, ok := q.(*query.MatchPhraseQuery)
		if !ok || !slices.Contains(keywordFields, t.FieldVal) {
			return q
		}
		tq := query.NewTermQuery(strings.ToLower(t.MatchPhrase))
		tq.SetField(t.FieldVal)
		if t.BoostVal != nil {
			tq.SetBoost(float64(*t.BoostVal))
		}
		return tq
	})
}

// unknownField returns the first field q names that the mapping lacks.
func unknownField(q query.Query) string {
	var subs []query.Query
	switch q := q.(type) {
	case *query.BooleanQuery:
		subs = []query.Query{q.Must, q.Should, q.MustNot, q.Filter}
	case *query.ConjunctionQuery:
		subs = q.Conjuncts
	case *query.DisjunctionQuery:
		subs = q.Disjuncts
	case query.FieldableQuery:
		f := q.Field()
		if f != "" && f != "_all" && !slices.Contains(Fields(), f) {
			return f
		}
	}
	for _, s := range subs {
		if s == nil {
			continue
		}
		if f := unknownField(s); f != "" {
			return f
		}
	}
	return ""
}

// termQuery matches a keyword field exactly, lower-cased as it was indexed.
func termQuery(field, value string) query.Query {
	tq := query.NewTermQuery(strings.ToLower(value))
	tq.SetField(field)
	return tq
}

// Scored is a record Retrieve chose and its final score.
type Scored struct {
	ID    string
	Score float64
}

// Retrieval weights; see Retrieve.
const (
	priorityWeight = 0.1
	minWeight      = 0.1
	suspectWeight  = 0.5
	retrievePool   = 50
)

// Retrieve returns the k records a task agent working on task should be
// given (k <= 0 means 5), best first. Candidates are active records whose
// env is scope.Env or unset (any env when scope.Env is ""), and, when
// scope.Tags is given, whose tags meet scope.Tags or who have no tags. They
// are matched against task by BM25 over the text fields (all of them when
// task is blank), and ranked by
//
//	score × max(0.1, 1 + 0.1×priority) × (0.5 if suspect)
//
// Suspect records (a check failed at the last verify) are kept but halved.
// The weighting re-ranks the best max(4k, 50) BM25 candidates (BM25 ties
// to the higher priority, then the smaller id); ties go to the smaller id.
//
// While the index is behind the bank, the records changed since its
// sequence are ranked from the bank as well (retrieveBehind).
func (ix *Index) Retrieve(task string, scope review.Scope, k int) ([]Scored, error) {
	if k <= 0 {
		k = 5
	}
	defer ix.answer()
	t, err := ix.currentTail()
	if err != nil {
		return nil, err
	}
	if t != nil {
		return ix.retrieveBehind(task, scope, k, t)
	}
	return ix.retrieve(task, scope, k, nil)
}

// retrieve is Retrieve on the index alone, without the documents exclude
// names.
func (ix *Index) retrieve(task string, scope review.Scope, k int, exclude []string) ([]Scored, error) {
	var q query.Query = query.NewMatchAllQuery()
	if strings.TrimSpace(task) != "" {
		q = taskQuery(task)
	}
	filters := []query.Query{termQuery("type", "record"), termQuery("status", string(review.Active))}
	if scope.Env != "" {
		filters = append(filters, query.NewDisjunctionQuery([]query.Query{
			termQuery("scope_env", scope.Env), termQuery("scope_env", anyScope)}))
	}
	if len(scope.Tags) > 0 {
		any := []query.Query{termQuery("scope_tags", anyScope)}
		for _, t := range scope.Tags {
			any = append(any, termQuery("scope_tags", t))
		}
		filters = append(filters, query.NewDisjunctionQuery(any))
	}
	var not []query.Query
	if len(exclude) > 0 {
		not = []query.Query{query.NewDocIDQuery(exclude)}
	}
	bq := query.NewBooleanQuery([]query.Query{q}, nil, not)
	bq.AddFilter(query.NewConjunctionQuery(filters))
	sr := bleve.NewSearchRequestOptions(bq, max(4*k, retrievePool), 0, false)
	sr.Fields = []string{"priority", "suspect"}
	// BM25 ties (every candidate of a blank task) go to the higher
	// priority, then the smaller id, so the pool does not depend on the
	// order documents reached the index.
	sr.SortBy([]string{"-_score", "-priority", "_id"})

	ix.mu.RLock()
	if ix.idx == nil {
		ix.mu.RUnlock()
		return nil, errClosed
	}
	// Only the hits that can still reach the pool get their tie-break
	// keys read (searchTopScores); the pool is exactly the one bleve's
	// sort of every hit gives. (Every hit of a blank task ties: there
	// it would only add work.)
	var res *bleve.SearchResult
	var err error
	if ix.allHits || strings.TrimSpace(task) == "" {
		res, err = searchGuarded(ix.idx, sr)
	} else {
		res, err = ix.searchTopScores(sr)
	}
	ix.mu.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("retrieve for %q: %w", task, err)
	}
	out := make([]Scored, 0, len(res.Hits))
	for _, h := range res.Hits {
		_, id := splitDocID(h.ID)
		prio, _ := h.Fields["priority"].(float64)
		w := max(minWeight, 1+priorityWeight*prio)
		if s, _ := h.Fields["suspect"].(string); s == "true" {
			w *= suspectWeight
		}
		out = append(out, Scored{ID: id, Score: h.Score * w})
	}
	sortScored(out)
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

// sortScored orders retrieved records best first, ties to the smaller id.
func sortScored(out []Scored) {
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
}
