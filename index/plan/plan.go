package plan

import (
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/index/bleveext"
)

// Plan is how one request was answered: the queries built from it and the
// strategies chosen for each part. It is made by Engine.plan and filled
// in as Engine.execute runs it.
type Plan struct {
	req  Request
	opt  Options
	size int
	gen  uint64 // the index's generation when the search began
	key  string // the facet cache's key; "" when the cache is not used

	typeExcluded bool // the type is selected by excluding the other types (otherTypes)
	blank        bool // the query matches everything
	onFilters    bool // the filters-only rewrite: root is the filters alone
	highlight    bool // fragments are wanted (and possible: not blank)
	bq           *query.BooleanQuery
	root         query.Query // what the hits must match: bq, or the filters alone, less Exclude
	phrases      []*bleveext.AllPhraseQuery
	sr           *bleve.SearchRequest

	bound    bleveext.RankBound // rank-bound; Limit 0: none
	withHits bool               // the facets are counted with the hits

	facets          map[string][]FacetCount // answered, before or after the hits
	facetsEstimated bool
	total           uint64 // the hits' total, once the hits are in
	totalEstimated  bool

	hitsBy, facetsBy string   // the strategies that answered
	declined         []string // strategies that applied but could not answer
}

// from is the request's From, at least 0.
func (p *Plan) from() int { return max(p.req.From, 0) }

// Hits names the hit strategy that answered.
func (p *Plan) Hits() string { return p.hitsBy }

// Facets names the facet strategy that answered ("" when no facets were
// asked for).
func (p *Plan) Facets() string { return p.facetsBy }

// Declined lists the strategies that applied but could not answer, in
// the order they were tried.
func (p *Plan) Declined() []string { return p.declined }

// FiltersOnly reports whether the request ran as a query on its filters
// alone (a blank query with a type or filters: the filters-only rewrite).
func (p *Plan) FiltersOnly() bool { return p.onFilters }

// TypeExcluded reports whether the request's type was selected by
// excluding the other, fewer, types instead of filtering on it.
func (p *Plan) TypeExcluded() bool { return p.typeExcluded }

// Bounded reports whether the hits were ranked under a rank bound.
func (p *Plan) Bounded() bool { return p.bound.Limit > 0 }

// String prints the plan as EXPLAIN would: "hits: top-scores
// (rank-bound: 100000 hits, 100000 steps after 20000); facets: count",
// with the filters-only rewrite and any strategy that declined.
func (p *Plan) String() string {
	var b strings.Builder
	if p.onFilters {
		b.WriteString(filtersOnly + "; ")
	}
	if p.typeExcluded {
		b.WriteString("type by exclusion; ")
	}
	fmt.Fprintf(&b, "hits: %s", p.hitsBy)
	if p.Bounded() {
		fmt.Fprintf(&b, " (%s: %d hits", rankBoundName, p.bound.Limit)
		if p.bound.Work > 0 {
			fmt.Fprintf(&b, ", %d steps after %d", p.bound.Work, p.bound.After)
		}
		b.WriteString(")")
	}
	if p.facetsBy != "" {
		fmt.Fprintf(&b, "; facets: %s", p.facetsBy)
	}
	if len(p.declined) > 0 {
		fmt.Fprintf(&b, "; declined: %s", strings.Join(p.declined, ", "))
	}
	return b.String()
}

// A strategy is one way of answering one part of a request. Its table
// lists the ways in order of preference; the planner takes the first
// whose applies holds (and that Tuning.Off does not name), and a run that
// declines (ok false: it cannot answer this one after all) hands over to
// the next that applies.
type strategy struct {
	name    string
	applies func(p *Plan) bool
}

// hits is what a hit strategy answers.
type hits struct {
	res       *bleve.SearchResult
	estimated bool   // res.Total is an estimate
	ranked    uint64 // Results.Ranked
}

type hitStrategy struct {
	strategy
	run func(e *Engine, p *Plan) (h hits, ok bool, err error)
}

// facets is what a facet strategy answers.
type facets struct {
	counts    map[string][]FacetCount
	estimated bool
	withHits  bool // the counts come with the hits (with-hits)
}

type facetStrategy struct {
	strategy
	after bool // runs once the hits are in (it needs their total)
	run   func(e *Engine, p *Plan) (f facets, ok bool, err error)
}

// The table of hit strategies, in order of preference: collect, last,
// always answers.
var hitStrategies = []hitStrategy{
	idPage,
	phraseRelaxed,
	firstHits,
	filterIDPage,
	topScores,
	collect,
}

// The table of facet strategies: those before the hits first, then those
// that need the hits' total; block-sample, last, always answers.
var facetStrategies = []facetStrategy{
	cachedFacets,
	dictFacets,
	withHits,
	countFacets,
	blockSample,
}

// Names of the rewrite and the bound, which Tuning.Off can name too.
const (
	filtersOnly   = "filters-only"
	rankBoundName = "rank-bound"
)

// Strategies lists every name Tuning.Off accepts: the hit strategies and
// the facet strategies in the order of their tables, then the rewrite and
// the bound.
func Strategies() (hitNames, facetNames, other []string) {
	for _, s := range hitStrategies {
		hitNames = append(hitNames, s.name)
	}
	for _, s := range facetStrategies {
		facetNames = append(facetNames, s.name)
	}
	return hitNames, facetNames, []string{filtersOnly, rankBoundName}
}
