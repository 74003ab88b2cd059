package index

import (
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// TestRareTerms: RareTerms searches a record's rarest terms (no term
// left out is held by fewer documents than one searched; terms no
// document holds are passed over) and gives the best K active records of
// the env and category asked for, in the order bleve's own query of
// those terms under those filters, sorted by score then id, gives.
func TestRareTerms(t *testing.T) {
	t.Parallel()
	ix, recs := termsIndex(t)
	df := func(term string) uint64 { return termSearch(t, ix, term, 0).Total }
	for i := 0; i < len(recs); i += 97 {
		r := recs[i]
		terms := append(schema.Terms(r.Lemma+"\n"+r.Trigger+"\n"+strings.Join(r.Steps, "\n")), "zzznoterm")
		for _, k := range []int{5, 40} {
			req := RareTermsRequest{Terms: terms, MaxTerms: 4, K: k, Env: r.Scope.Env, Category: string(r.Category)}
			ids, searched, err := ix.RareTerms(req)
			if err != nil {
				t.Fatal(err)
			}
			if len(searched) == 0 || len(searched) > 4 || slices.Contains(searched, "zzznoterm") {
				t.Fatalf("%s: searched %v; want 1 to 4 terms some document holds", r.ID, searched)
			}
			most := uint64(0)
			for _, s := range searched {
				most = max(most, df(s))
			}
			for _, term := range terms {
				if n := df(term); !slices.Contains(searched, term) && n > 0 && n < most {
					t.Errorf("%s: %q (in %d documents) left out for a term in %d", r.ID, term, n, most)
				}
			}
			var clauses []query.Query
			for _, s := range searched {
				q := query.NewTermQuery(s)
				q.SetField(schema.AllField)
				clauses = append(clauses, q)
			}
			env := r.Scope.Env
			if env == "" {
				env = schema.AnyScope
			}
			bq := query.NewBooleanQuery([]query.Query{query.NewDisjunctionQuery(clauses)}, nil, nil)
			bq.AddFilter(query.NewConjunctionQuery([]query.Query{plan.Keyword("type", "record"), plan.Keyword("status", "active"),
				plan.Keyword("scope_env", env), plan.Keyword("category", string(r.Category))}))
			sr := bleve.NewSearchRequestOptions(bq, k, 0, false)
			sr.SortBy([]string{"-_score", "_id"})
			res, err := ix.idx.Search(sr)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, h := range res.Hits {
				_, id := schema.SplitDocID(h.ID)
				want = append(want, id)
			}
			if !slices.Equal(ids, want) || len(ids) == 0 {
				t.Errorf("%s, k=%d: RareTerms gave %v; bleve's query %v", r.ID, k, ids, want)
			}
			if slices.Contains(ids, recs[3].ID) {
				t.Errorf("%s: a retired record among the neighbours", r.ID)
			}
		}
	}
}

// termsIndex is the index RareTerms and SharedTerms are tested on: 800
// synthetic records, the fourth retired, indexed in three parts (so that
// the searches cross segments).
func termsIndex(t *testing.T) (*Index, []review.Record) {
	t.Helper()
	src := newFake()
	recs := sample.SynthRecords(800, benchSeed)
	recs[3].Status = review.Retired
	src.putRecord(recs[:300]...)
	ix := openOn(t, src)
	for _, part := range [][]review.Record{recs[300:550], recs[550:]} { // more segments than one
		src.putRecord(part...)
		if err := ix.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	return ix, recs
}

// termSearch is bleve's own search of term in the all field, its first
// size hits: the brute force the terms' searches are checked against.
func termSearch(t *testing.T, ix *Index, term string, size int) *bleve.SearchResult {
	t.Helper()
	q := query.NewTermQuery(term)
	q.SetField(schema.AllField)
	res, err := ix.idx.Search(bleve.NewSearchRequestOptions(q, size, 0, false))
	if err != nil {
		t.Fatal(err)
	}
	return res
}
