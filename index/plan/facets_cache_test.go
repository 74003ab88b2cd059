package plan

import "testing"

// TestFacetKey checks that the facet cache's key holds what a request's
// facets depend on (query, type, filters, facet fields as a set) and
// nothing else (paging, sort, highlighting).
func TestFacetKey(t *testing.T) {
	a := Request{Query: "join", Type: "record", Facets: []string{"env"}}
	same := []Request{
		{Query: "join", Type: "record", Facets: []string{"env"}, From: 100, Size: 100, Sort: []string{"_id"}, Highlight: true},
		{Query: "join", Type: "record", Facets: []string{"env", "env"}},
	}
	differs := []Request{
		{Query: "joins", Type: "record", Facets: []string{"env"}},
		{Query: "join", Type: "proposal", Facets: []string{"env"}},
		{Query: "join", Type: "record", Facets: []string{"category"}},
		{Query: "join", Type: "record", Facets: []string{"env", "status"}},
		{Query: "join", Type: "record", Facets: []string{"env"}, Filters: map[string][]string{"env": {"shop"}}},
		{Query: "join", Type: "record", Facets: []string{"env"}, Filters: map[string][]string{"env": {"docs"}}},
		{Query: `join" "record`, Facets: []string{"env"}},
	}
	for _, r := range same {
		if facetKey(r) != facetKey(a) {
			t.Errorf("facetKey(%+v) = %s, want %s", r, facetKey(r), facetKey(a))
		}
	}
	for _, r := range differs {
		if facetKey(r) == facetKey(a) {
			t.Errorf("facetKey(%+v) = facetKey(%+v)", r, a)
		}
	}
}
