package plan

import "testing"

// TestTables checks the shape of the strategy tables: names unique
// across both (Tuning.Off names them), each table ending with a strategy
// that applies to every plan and never declines, so that some strategy
// always answers; the facet strategies that need the hits' total after
// those that do not.
func TestTables(t *testing.T) {
	seen := map[string]bool{filtersOnly: true, rankBoundName: true}
	for _, s := range hitStrategies {
		if seen[s.name] {
			t.Errorf("strategy name %q used twice", s.name)
		}
		seen[s.name] = true
	}
	after := false
	for _, s := range facetStrategies {
		if seen[s.name] {
			t.Errorf("strategy name %q used twice", s.name)
		}
		seen[s.name] = true
		if after && !s.after {
			t.Errorf("facet strategy %q runs before the hits but follows one that runs after", s.name)
		}
		after = after || s.after
	}
	for _, p := range []*Plan{{}, {blank: true, onFilters: true}, {withHits: true}, {req: Request{Exact: true}}} {
		if last := hitStrategies[len(hitStrategies)-1]; !last.applies(p) {
			t.Errorf("the last hit strategy, %s, does not apply to %+v", last.name, p)
		}
		if last := facetStrategies[len(facetStrategies)-1]; !last.after || !last.applies(p) {
			t.Errorf("the last facet strategy, %s, does not apply after the hits to %+v", last.name, p)
		}
	}
	hits, facets, other := Strategies()
	if len(hits)+len(facets)+len(other) != len(seen) {
		t.Errorf("Strategies lists %d names, the tables hold %d", len(hits)+len(facets)+len(other), len(seen))
	}
}
