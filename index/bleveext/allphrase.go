package bleveext

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// AllPhraseQuery is a phrase on an AllField (All), which has no
// positions. It scores as bleve's phrase searcher on a composite "_all"
// with positions did (the conjunction of the phrase's terms on All, with
// the query norm that searcher sets), and keeps the documents where the
// phrase occurs in one of the text fields All sums (Fields, through their
// term vectors: PhraseCheck), which is where a phrase check on the
// composite field looked: each of its locations named its field, and a
// phrase had to hold within one.
type AllPhraseQuery struct {
	Phrase *query.MatchPhraseQuery
	All    string
	Fields []string
	// Relaxed leaves the phrase check out: the query then matches every
	// document with the phrase's terms, scored as the phrase would be.
	Relaxed bool
}

// Terms is the phrase analysed: its terms at each position.
func (q *AllPhraseQuery) Terms(m mapping.IndexMapping) ([][]string, error) {
	name := q.Phrase.Analyzer
	if name == "" {
		name = m.AnalyzerNameForPath(q.All)
	}
	analyzer := m.AnalyzerNamed(name)
	if analyzer == nil {
		return nil, fmt.Errorf("no analyzer named %q registered", name)
	}
	return phraseTerms(analyzer.Analyze([]byte(q.Phrase.MatchPhrase))), nil
}

// MaxMatches bounds the documents of r the phrase can match: every term
// of it (the fewest documents of any position of the phrase, a position
// with several terms counting the documents of each), found by a
// dictionary lookup a term.
func (q *AllPhraseQuery) MaxMatches(r index.IndexReader, m mapping.IndexMapping) (uint64, error) {
	terms, err := q.Terms(m)
	if err != nil {
		return 0, err
	}
	most, any := uint64(0), false
	for _, at := range terms {
		var n uint64
		counted := false
		for _, t := range at {
			if t == "" {
				continue
			}
			c, err := TermCount(r, q.All, t)
			if err != nil {
				return 0, err
			}
			n, counted = n+c, true
		}
		if counted && (!any || n < most) {
			most, any = n, true
		}
	}
	return most, nil
}

func (q *AllPhraseQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	terms, err := q.Terms(m)
	if err != nil {
		return nil, err
	}
	if len(terms) == 0 {
		return searcher.NewMatchNoneSearcher(r)
	}
	boost := q.Phrase.BoostVal.Value()
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
			ts, err := searcher.NewTermSearcher(ctx, r, t, q.All, boost, options)
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
	if q.Relaxed {
		return must, nil
	}
	check, err := NewPhraseCheck(ctx, r, terms, q.Fields)
	if err != nil {
		_ = must.Close()
		return nil, err
	}
	accept := func(_ *bsearch.SearchContext, d *bsearch.DocumentMatch) bool { return check.Holds(d.IndexInternalID) }
	return &checkedSearcher{FilteringSearcher: searcher.NewFilteringSearcher(ctx, must, accept), checks: []*PhraseCheck{check}}, nil
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
	checks []*PhraseCheck
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

// TallyQuery matches what Query matches and, of one match in every
// tallyEvery (more when there are many: about tallyChecks checks in all),
// checks whether it holds every one of Phrases, counting those in Tally:
// Query with the phrase checks relaxed then estimates the phrase query's
// hits from one search.
type TallyQuery struct {
	Query   query.Query
	Phrases []*AllPhraseQuery
	Tally   *PassTally
}

// tallyEvery is how often a TallyQuery checks a match: one in 16 gives
// about 750 checks for the 12,000 candidates of "one row per" at 100,000
// records.
const tallyEvery = 16

// tallyChecks caps the checks at about this many: the inner searcher's
// count of candidates (an upper bound) sets the step.
const tallyChecks = 1000

// PassTally counts matches, those checked and those that held the
// phrases.
type PassTally struct{ seen, checked, passed int }

// Rate is the share of checked matches that held the phrases (1 when
// none was checked).
func (t *PassTally) Rate() float64 {
	if t.checked == 0 {
		return 1
	}
	return float64(t.passed) / float64(t.checked)
}

func (q *TallyQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	var checks []*PhraseCheck
	closeAll := func() {
		for _, c := range checks {
			_ = c.Close()
		}
	}
	for _, p := range q.Phrases {
		terms, err := p.Terms(m)
		if err != nil {
			closeAll()
			return nil, err
		}
		c, err := NewPhraseCheck(ctx, r, terms, p.Fields)
		if err != nil {
			closeAll()
			return nil, err
		}
		checks = append(checks, c)
	}
	inner, err := q.Query.Searcher(ctx, r, m, options)
	if err != nil {
		closeAll()
		return nil, err
	}
	t := q.Tally
	every := max(tallyEvery, int(inner.Count()/tallyChecks))
	accept := func(_ *bsearch.SearchContext, d *bsearch.DocumentMatch) bool {
		if t.seen++; t.seen%every == 0 {
			t.checked++
			for _, c := range checks {
				if !c.Holds(d.IndexInternalID) {
					return true
				}
			}
			t.passed++
		}
		return true
	}
	return &checkedSearcher{FilteringSearcher: searcher.NewFilteringSearcher(ctx, inner, accept), checks: checks}, nil
}
