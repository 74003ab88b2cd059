package index

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
)

// A retrieval searches each distinct term of the task once, boosted by
// its repeats, and at most MaxTaskTerms terms (issue 23 item 19: a word
// repeated 4,000 times was 4,000 searchers).
func TestTaskQueryTermsAreDistinctAndCapped(t *testing.T) {
	terms := func(q query.Query) map[string]float64 {
		t.Helper()
		d, ok := q.(*query.DisjunctionQuery)
		if !ok {
			t.Fatalf("query %T, want a disjunction of terms", q)
		}
		out := map[string]float64{}
		for _, c := range d.Disjuncts {
			tq := c.(*query.TermQuery)
			if _, dup := out[tq.Term]; dup || tq.FieldVal != schema.AllField {
				t.Fatalf("term %q twice, or on field %q", tq.Term, tq.FieldVal)
			}
			out[tq.Term] = tq.BoostVal.Value()
		}
		return out
	}
	got := terms(schema.TaskQuery(strings.Repeat("Reviews reviewed ", 4000) + "the items"))
	if want := map[string]float64{"review": 8000, "item": 1}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("terms of a repeated text = %v, want %v", got, want)
	}
	var many []string
	for i := range 3 * MaxTaskTerms {
		many = append(many, fmt.Sprintf("word%dx", i))
	}
	got = terms(schema.TaskQuery(strings.Join(many, " ")))
	if len(got) != MaxTaskTerms || got["word0x"] != 1 || got[fmt.Sprintf("word%dx", MaxTaskTerms)] != 0 {
		t.Fatalf("%d distinct words gave %d terms (%v first)", len(many), len(got), got["word0x"])
	}
	if _, ok := schema.TaskQuery("the of and").(*query.MatchNoneQuery); !ok {
		t.Fatal("a task of stop words should match nothing, as the match query did")
	}
}

// Repeating the task's only word ranks the records as the word alone.
func TestRetrieveRepeatedWordRanksAsTheWord(t *testing.T) {
	ix, err := Open(filepath.Join(t.TempDir(), "index"), benchBank(300))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ids := func(task string) []string {
		got, err := ix.Retrieve(task, review.Scope{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range got {
			out = append(out, s.ID)
		}
		return out
	}
	one, many := ids("warehouse"), ids(strings.Repeat("warehouse ", 4000))
	if len(one) == 0 || !slices.Equal(one, many) {
		t.Fatalf("retrieve warehouse = %v, repeated 4,000 times = %v", one, many)
	}
}

// Every search has a time limit: one that runs past it stops with
// ErrSearchLimit instead of holding the index.
func TestSearchStopsAtItsLimit(t *testing.T) {
	ix, err := Open(filepath.Join(t.TempDir(), "index"), benchBank(50))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	sr := bleve.NewSearchRequest(query.NewMatchAllQuery())
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	// A limit already past when the search starts: it stops at bleve's first check.
	if _, err := plan.SearchWithin(ix.idx, sr, -time.Nanosecond); !errors.Is(err, ErrSearchLimit) {
		t.Fatalf("a search past its limit: %v, want ErrSearchLimit", err)
	}
	if res, err := plan.SearchWithin(ix.idx, sr, time.Minute); err != nil || res.Total != 50 {
		t.Fatalf("a search within its limit: %v, %v", res, err)
	}
}
