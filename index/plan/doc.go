// Package plan answers a search request on one Bleve index, and says how.
//
// A request has two parts that can be answered in several ways: its hits
// and its facet counts. Each part has a table of strategies (hits.go,
// facets.go), one file each, tried in order: the planner takes the first
// whose conditions hold, and a strategy that finds it cannot answer after
// all (a deep page, a rare filter, too few candidates) hands over to the
// next that applies. Around them, two rewrites and a bound: a blank query
// with a type or filters runs as a query on the filters alone
// (filters-only), and a query ordered by score ranks at most a bounded
// number of hits (rank-bound). Plan.String prints what was chosen and
// what declined, as SQL's EXPLAIN does; Tuning moves the thresholds and
// turns strategies off (tests compare a strategy with the plan without
// it; every strategy must answer as its fallback does, or say that it
// estimates).
//
// The index package runs its searches through an Engine over its Bleve
// index, and so does the tail over its in-memory ones. plan imports
// Bleve, index/bleveext, index/schema and review's domain types.
package plan
