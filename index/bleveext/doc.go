// Package bleveext holds what memreview builds on Bleve's internals
// rather than on its public API: scorch's index snapshots and doc
// numbers, zap's segment files and their checksums, bbolt's page layout
// and lock, custom searchers (bounded, counted, sampled, top-scored,
// phrase-checked) and a custom "_all" field. Each of them is correct for
// the versions in Pinned only; TestPinnedVersions fails when go.mod
// moves one of them, so that someone reads these files again against the
// new version before the pin moves with it.
//
// It imports Bleve, its index API and bbolt, and nothing of memreview:
// the index package and its plan give these pieces their meaning.
package bleveext

// Pinned are the module versions these files were written and checked
// against (go.mod's requirements).
var Pinned = map[string]string{
	"github.com/blevesearch/bleve/v2":              "v2.6.3",
	"github.com/blevesearch/bleve_index_api":       "v1.4.1",
	"github.com/blevesearch/zapx/v17":              "v17.2.5", // the segment format scorch writes
	"github.com/blevesearch/scorch_segment_api/v2": "v2.4.11", // the segment API max-score reads postings through
	"go.etcd.io/bbolt":                             "v1.4.0",  // root.bolt's pages and lock
}
