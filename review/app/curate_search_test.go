package app

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

// TestCuratorSearchesActiveRecords: the curator's memory_search finds
// active records only, and a query the query-string syntax rejects (a
// model's stray colon or parenthesis) is retried as its literal words.
func TestCuratorSearchesActiveRecords(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "bank")
	s, err := Create(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st := s.b.(*store.Store)
	recs := []review.Record{
		{ID: "mem_1", Lemma: "item names are unique per category", Category: review.Fact, Confidence: 0.8},
		{ID: "mem_2", Lemma: "item names were once free text", Category: review.Fact, Confidence: 0.8, Status: review.Retired},
	}
	if err := st.PutRecords(recs, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	s.afterWrite("fixture")
	for _, q := range []string{"item names", "names: (items"} {
		ids, err := recordSearcher{s}.SearchRecords(q, 5)
		if err != nil || !slices.Equal(ids, []string{"mem_1"}) {
			t.Errorf("SearchRecords(%q) = %v, %v; want the active mem_1 only", q, ids, err)
		}
	}
}
