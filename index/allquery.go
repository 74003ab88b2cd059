package index

import (
	"context"
	"fmt"
	"reflect"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// onAll reports whether q searches the "_all" field.
func onAll(q query.Query) bool {
	f, ok := q.(query.FieldableQuery)
	return ok && (f.Field() == "" || f.Field() == allFieldName)
}

// allPhrases replaces, in place, every phrase on "_all" in q by an
// allPhraseQuery: "_all" has no positions since mapping version 3.
func allPhrases(q query.Query) query.Query {
	return rewriteLeaves(q, func(q query.Query) query.Query {
		if p, ok := q.(*query.MatchPhraseQuery); ok && onAll(p) {
			if p.Fuzziness != 0 {
				return perField(p) // not written by the query-string syntax
			}
			return &allPhraseQuery{phrase: p}
		}
		return q
	})
}

// perField replaces, in place, every query on "_all" in q by the
// disjunction of the same query on each of allTextFields. It matches the
// same documents, and its term locations are those "_all" held in version
// 2 (where each location named the field it came from), so highlighting
// it gives the same fragments; its scores differ, so it only serves for
// fragments.
func perField(q query.Query) query.Query {
	return rewriteLeaves(q, func(q query.Query) query.Query {
		if !onAll(q) {
			return q
		}
		var any []query.Query
		for _, f := range allTextFields {
			c := reflect.New(reflect.TypeOf(q).Elem())
			c.Elem().Set(reflect.ValueOf(q).Elem())
			fq := c.Interface().(query.FieldableQuery)
			fq.SetField(f)
			any = append(any, fq)
		}
		return query.NewDisjunctionQuery(any)
	})
}

// allPhraseQuery is a phrase on "_all" under mapping version 3. It scores
// as bleve's phrase searcher on version 2's "_all" did (the conjunction
// of the phrase's terms on "_all", with the query norm that searcher
// sets), and keeps the documents where the phrase occurs in one of the
// text fields (phraseCheck), which is where version 2's phrase check
// looked: each location in "_all" named its field, and a phrase had to
// hold within one.
type allPhraseQuery struct {
	phrase *query.MatchPhraseQuery
	// relaxed leaves the phrase check out: the query then matches every
	// document with the phrase's terms, scored as the phrase would be
	// (searchRelaxed).
	relaxed bool
}

// terms is the phrase analysed: its terms at each position.
func (q *allPhraseQuery) terms(m mapping.IndexMapping) ([][]string, error) {
	name := q.phrase.Analyzer
	if name == "" {
		name = m.AnalyzerNameForPath(allFieldName)
	}
	analyzer := m.AnalyzerNamed(name)
	if analyzer == nil {
		return nil, fmt.Errorf("no analyzer named %q registered", name)
	}
	return phraseTerms(analyzer.Analyze([]byte(q.phrase.MatchPhrase))), nil
}

func (q *allPhraseQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	terms, err := q.terms(m)
	if err != nil {
		return nil, err
	}
	if len(terms) == 0 {
		return searcher.NewMatchNoneSearcher(r)
	}
	boost := q.phrase.BoostVal.Value()
	var parts []bsearch.Searcher
	closeAll := func() {
		for _, s := range parts {
			_ = s.Close()
		}
	}
	for _, at := range terms {
		var alts []bsearch.Searcher
		for _, t := range at {
			if t == "" {
				continue
			}
			ts, err := searcher.NewTermSearcher(ctx, r, t, allFieldName, boost, options)
			if err != nil {
				parts = append(parts, alts...)
				closeAll()
				return nil, err
			}
			alts = append(alts, ts)
		}
		switch {
		case len(alts) == 1 && len(at) == 1:
			parts = append(parts, alts[0])
		case len(alts) > 0:
			ds, err := searcher.NewDisjunctionSearcher(ctx, r, alts, 1, options)
			if err != nil {
				parts = append(parts, alts...)
				closeAll()
				return nil, err
			}
			parts = append(parts, ds)
		}
	}
	must, err := searcher.NewConjunctionSearcher(ctx, r, parts, options)
	if err != nil {
		closeAll()
		return nil, err
	}
	must.SetQueryNorm(queryNorm(must.Weight()))
	if q.relaxed {
		return must, nil
	}
	check, err := newPhraseCheck(ctx, r, terms)
	if err != nil {
		_ = must.Close()
		return nil, err
	}
	accept := func(_ *bsearch.SearchContext, d *bsearch.DocumentMatch) bool { return check.holds(d.IndexInternalID) }
	return &checkedSearcher{FilteringSearcher: searcher.NewFilteringSearcher(ctx, must, accept), checks: []*phraseCheck{check}}, nil
}

// phraseTerms is bleve's tokenStreamToPhrase: the terms at each position
// of the phrase, from its first token to its last.
func phraseTerms(tokens analysis.TokenStream) [][]string {
	if len(tokens) == 0 {
		return nil
	}
	first, last := tokens[0].Position, tokens[0].Position
	for _, t := range tokens {
		first, last = min(first, t.Position), max(last, t.Position)
	}
	out := make([][]string, last-first+1)
	for _, t := range tokens {
		out[t.Position-first] = append(out[t.Position-first], string(t.Term))
	}
	return out
}

// checkedSearcher is a filtering searcher that also closes the phrase
// checks its filter reads.
type checkedSearcher struct {
	*searcher.FilteringSearcher
	checks []*phraseCheck
}

func (s *checkedSearcher) Close() error {
	err := s.FilteringSearcher.Close()
	for _, c := range s.checks {
		if e := c.Close(); err == nil {
			err = e
		}
	}
	return err
}

// tallyQuery matches what its query matches and, of one match in every
// tallyEvery (more when there are many: about tallyChecks checks in all),
// checks whether it holds every phrase, counting those.
type tallyQuery struct {
	query   query.Query
	phrases []*allPhraseQuery
	tally   *passTally
}

// tallyEvery is how often tallyQuery checks a match: one in 16 gives
// about 750 checks for the 12,000 candidates of "one row per" at 100,000
// records.
const tallyEvery = 16

// tallyChecks caps the checks at about this many: the inner searcher's
// count of candidates (an upper bound) sets the step.
const tallyChecks = 1000

// passTally counts matches, those checked and those that held the
// phrases.
type passTally struct{ seen, checked, passed int }

// rate is the share of checked matches that held the phrases (1 when
// none was checked).
func (t *passTally) rate() float64 {
	if t.checked == 0 {
		return 1
	}
	return float64(t.passed) / float64(t.checked)
}

func (q *tallyQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	var checks []*phraseCheck
	closeAll := func() {
		for _, c := range checks {
			_ = c.Close()
		}
	}
	for _, p := range q.phrases {
		terms, err := p.terms(m)
		if err != nil {
			closeAll()
			return nil, err
		}
		c, err := newPhraseCheck(ctx, r, terms)
		if err != nil {
			closeAll()
			return nil, err
		}
		checks = append(checks, c)
	}
	inner, err := q.query.Searcher(ctx, r, m, options)
	if err != nil {
		closeAll()
		return nil, err
	}
	t := q.tally
	every := max(tallyEvery, int(inner.Count()/tallyChecks))
	accept := func(_ *bsearch.SearchContext, d *bsearch.DocumentMatch) bool {
		if t.seen++; t.seen%every == 0 {
			t.checked++
			for _, c := range checks {
				if !c.holds(d.IndexInternalID) {
					return true
				}
			}
			t.passed++
		}
		return true
	}
	return &checkedSearcher{FilteringSearcher: searcher.NewFilteringSearcher(ctx, inner, accept), checks: checks}, nil
}
