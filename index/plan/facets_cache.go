package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// cachedFacets answers the facets of a request seen before, at this
// generation of the index, from the State's cache (Options.Cache): the
// same query, type, filters and facet fields, whatever the page, sort or
// highlighting. Every other strategy stores what it counts there; it
// declines when the cache lacks the request.
var cachedFacets = facetStrategy{
	strategy: strategy{name: "cache", applies: func(p *Plan) bool { return p.key != "" }},
	run: func(e *Engine, p *Plan) (facets, bool, error) {
		counts, estimated := e.state.facets.get(p.gen, p.key)
		return facets{counts: counts, estimated: estimated}, counts != nil, nil
	},
}

// storeFacets keeps f for p's request in the cache, when p uses it.
func (e *Engine) storeFacets(p *Plan, f map[string][]FacetCount, estimated bool) {
	if p.key != "" && f != nil {
		e.state.facets.put(p.gen, p.key, f, estimated)
	}
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
	entries map[string]cachedCounts
}

// cachedCounts are one request's facets, and whether they are estimates.
type cachedCounts struct {
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
		c.entries = map[string]cachedCounts{}
	}
	c.entries[key] = cachedCounts{copyFacets(f), estimated}
}

func copyFacets(f map[string][]FacetCount) map[string][]FacetCount {
	out := make(map[string][]FacetCount, len(f))
	for k, v := range f {
		out[k] = slices.Clone(v)
	}
	return out
}
